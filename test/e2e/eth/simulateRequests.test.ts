import { join } from 'node:path';
import { bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util';
import { sha256 } from 'ethereum-cryptography/sha256.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { httpClient, type RpcClient } from '../../helpers/rpcClient.js';

/**
 * eth_simulateV1's EIP-7685 requests on the execution-apis chain (Osaka, with the EIP-7002
 * withdrawal request contract in its genesis): a call that queues a withdrawal request makes the
 * end-of-block system call return it, so the block's requestsHash is EIP-7685's
 * sha256(sha256(0x01 ‖ source ‖ pubkey ‖ amount)), computed here by hand (the request carries the
 * amount as SSZ does, little-endian, while the call sends it big-endian); a block without requests
 * has sha256("").
 */
const WITHDRAWAL_CONTRACT = '0x00000961ef480eb55e80d19ad83579a64c007002';
const SENDER = '0xc000000000000000000000000000000000000000' as const;
const PUBKEY = `0x${'ab'.repeat(48)}` as const;
const AMOUNT = '0x0000000000000007' as const; // gwei, 8 bytes big-endian

let server: EthTestServer;
let client: RpcClient;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
  client = httpClient(server.url, server.key);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

it('a queued withdrawal request is dequeued by the system call and hashed into requestsHash', async () => {
  const opts = {
    blockStateCalls: [
      {
        stateOverrides: { [SENDER]: { balance: '0xde0b6b3a7640000' } },
        calls: [{ from: SENDER, to: WITHDRAWAL_CONTRACT, value: '0x1', input: `${PUBKEY}${AMOUNT.slice(2)}` }],
      },
      {},
    ],
  };
  const r = await client.call('eth_simulateV1', [opts, 'latest']);
  expect(r.error).toBeUndefined();
  const [withRequest, without] = r.result as Array<{ requestsHash: string; calls: Array<{ status: string }> }>;
  expect(withRequest!.calls[0]!.status).toBe('0x1');
  const request = concatBytes(Uint8Array.of(0x01), hexToBytes(SENDER), hexToBytes(PUBKEY), hexToBytes(AMOUNT).reverse());
  expect(withRequest!.requestsHash).toBe(bytesToHex(sha256(sha256(request))));
  expect(without!.requestsHash).toBe(bytesToHex(sha256(new Uint8Array())));
});

it("a DepositEvent of the chain's deposit contract (zero address here, given code by an override) is a deposit request", async () => {
  const topic = '649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5';
  // CALLDATACOPY the input to memory, LOG1(0, CALLDATASIZE, topic)
  const code = `0x3660006000377f${topic}366000a100`;
  const word = (n: number) => n.toString(16).padStart(64, '0');
  const field = (size: number, byte: string) => word(size) + byte.repeat(size).padEnd(Math.ceil(size / 32) * 64, '0');
  // the event's ABI layout: five offsets, then each field's length and bytes
  const data = `0x${word(160)}${word(256)}${word(320)}${word(384)}${word(512)}${field(48, '11')}${field(32, '22')}${field(8, '33')}${field(96, '44')}${field(8, '55')}`;
  expect((data.length - 2) / 2).toBe(576);
  const opts = {
    blockStateCalls: [
      {
        stateOverrides: { '0x0000000000000000000000000000000000000000': { code } },
        calls: [{ from: SENDER, to: '0x0000000000000000000000000000000000000000', input: data }],
      },
    ],
  };
  const r = await client.call('eth_simulateV1', [opts, 'latest']);
  expect(r.error).toBeUndefined();
  const [block] = r.result as Array<{ requestsHash: string; calls: Array<{ status: string; logs: unknown[] }> }>;
  expect(block!.calls[0]!.logs).toHaveLength(1);
  const request = hexToBytes(`0x00${'11'.repeat(48)}${'22'.repeat(32)}${'33'.repeat(8)}${'44'.repeat(96)}${'55'.repeat(8)}`);
  expect(block!.requestsHash).toBe(bytesToHex(sha256(sha256(request))));
});
