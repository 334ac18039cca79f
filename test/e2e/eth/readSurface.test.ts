import { join } from 'node:path';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, bytesToHex, generateAddress, hexToBytes, toChecksumAddress } from '@ethereumjs/util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, BOB, CHAIN_ID, GRID_ALICE_7, GRID_ALICE_7_HISTORY, HEAD, SLOT0, STATEBOX, TOKEN, valueAt, word } from '../../clients/demo.js';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { forEachTransport, type RpcClient } from '../../helpers/rpcClient.js';

/**
 * The small read methods of issue #18 and the bad input of the larger ones, on the demo chain
 * (fixtures/demo). Expected values come from the generator's record (fixtures/demo/README.md), from
 * the established methods of the same node (a header is its block without the body; an account's
 * fields are what eth_getBalance/eth_getTransactionCount/eth_getProof answer), from @ethereumjs/tx
 * (the transaction hash geth names in eth_createAccessList's failure) and from geth's texts.
 */
const NOBODY = '0x00000000000000000000000000000000000c0ffe';
const EMPTY_KECCAK = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'demo'));
});
afterAll(() => server.close());

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

forEachTransport(
  'issue #18 read surface on the demo chain',
  () => server,
  (client: () => RpcClient) => {
    const result = async (method: string, params: unknown[]) => {
      const r = await client().call(method, params);
      expect(r.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
      return r.result;
    };
    const error = async (method: string, params: unknown[]) => {
      const r = await client().call(method, params);
      expect(r.result, `${method} ${JSON.stringify(params)}`).toBeUndefined();
      return r.error!;
    };

    it('eth_getStorageValues: the recorded histories, several accounts at once; geth limits and errors', async () => {
      for (const b of [3, 18, 19, 41, 42, HEAD]) {
        const got = (await result('eth_getStorageValues', [{ [STATEBOX]: [GRID_ALICE_7, SLOT0], [NOBODY]: [SLOT0] }, hex(b)])) as Record<string, string[]>;
        expect(got[STATEBOX]![0]).toBe(word(valueAt(GRID_ALICE_7_HISTORY, b)));
        expect(got[NOBODY]).toEqual([word(0n)]);
      }
      expect(await error('eth_getStorageValues', [{}, 'latest'])).toEqual({ code: -32602, message: 'empty request' });
      const many = Array.from({ length: 1025 }, (_, i) => word(BigInt(i)));
      expect(await error('eth_getStorageValues', [{ [STATEBOX]: many }])).toEqual({ code: -32005, message: 'too many slots (max 1024)' });
      expect((await error('eth_getStorageValues', [{ '0x12': [SLOT0] }])).code).toBe(-32602);
      expect((await error('eth_getStorageValues', [{ [STATEBOX]: SLOT0 }])).code).toBe(-32602);
    });

    it('eth_getHeaderByNumber/ByHash: the block without its body; null beyond the head or for an unknown hash', async () => {
      for (const b of [0, 11, 20, 23, 28, HEAD]) {
        const block = (await result('eth_getBlockByNumber', [hex(b), false])) as Record<string, unknown>;
        const { transactions: _t, uncles: _u, size: _s, withdrawals: _w, ...header } = block;
        expect(await result('eth_getHeaderByNumber', [hex(b)])).toEqual(header);
        expect(await result('eth_getHeaderByHash', [block.hash])).toEqual(header);
      }
      expect(await result('eth_getHeaderByNumber', [hex(HEAD + 1)])).toBeNull();
      expect(await result('eth_getHeaderByHash', [`0x${'ab'.repeat(32)}`])).toBeNull();
      expect(((await result('eth_getHeaderByNumber', ['latest'])) as { number: string }).number).toBe(hex(HEAD));
    });

    it('eth_getAccount: balance and nonce as eth_getBalance/eth_getTransactionCount, roots as eth_getProof; the empty account', async () => {
      for (const [address, b] of [
        [ALICE, 10],
        [TOKEN, 42],
        [STATEBOX, HEAD],
      ] as const) {
        const account = (await result('eth_getAccount', [address, hex(b)])) as Record<string, string>;
        const proof = (await result('eth_getProof', [address, [], hex(b)])) as Record<string, string>;
        expect(account).toEqual({
          balance: await result('eth_getBalance', [address, hex(b)]),
          nonce: await result('eth_getTransactionCount', [address, hex(b)]),
          codeHash: proof.codeHash,
          storageRoot: proof.storageHash,
        });
      }
      expect(await result('eth_getAccount', [NOBODY, 'latest'])).toEqual({
        balance: '0x0',
        nonce: '0x0',
        codeHash: EMPTY_KECCAK,
        storageRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      });
    });

    it('web3_sha3 and the non-mining constants', async () => {
      expect(await result('web3_sha3', ['0x'])).toBe(EMPTY_KECCAK);
      expect(await result('web3_sha3', ['0x68656c6c6f20776f726c64'])).toBe('0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad');
      expect((await error('web3_sha3', ['hello'])).code).toBe(-32602);
      expect(await result('eth_mining', [])).toBe(false);
      expect(await result('eth_hashrate', [])).toBe('0x0');
      expect(await result('eth_protocolVersion', [])).toBe('0x44');
      expect(await error('eth_coinbase', [])).toEqual({ code: -32000, message: 'etherbase must be explicitly specified' });
      expect(await error('eth_getWork', [])).toEqual({ code: -32000, message: 'not supported' });
      expect(await result('eth_submitWork', ['0x0000000000000001', `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`])).toBe(false);
    });

    it("eth_createAccessList: a message that cannot pay names geth's unsigned transaction hash", async () => {
      const call = { from: NOBODY, to: BOB, value: '0x1', gas: '0x5208', nonce: '0x0', maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' };
      const tx = createFeeMarket1559Tx(
        {
          chainId: BigInt(CHAIN_ID),
          nonce: 0n,
          maxFeePerGas: 1_000_000_000n,
          maxPriorityFeePerGas: 1n,
          gasLimit: 21_000n,
          to: BOB,
          value: 1n,
          v: 0n,
          r: 0n,
          s: 0n,
        },
        { common: createCustomCommon({ chainId: CHAIN_ID }, Mainnet, { hardfork: Hardfork.Prague }) },
      );
      const e = await error('eth_createAccessList', [call, 'latest']);
      expect(e.code).toBe(-32000);
      expect(e.message).toBe(
        `failed to apply transaction: ${bytesToHex(tx.hash())} err: insufficient funds for gas * price + value: address ${toChecksumAddress(NOBODY)} have 0 want 21000000000001`,
      );
      expect((await error('eth_createAccessList', [{ ...call, gasPrice: '0x1' }])).message).toBe(
        'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
      );
      expect((await error('eth_createAccessList', [{ to: 'nope' }])).code).toBe(-32602);
    });

    it('eth_simulateV1 traceTransfers: a value-bearing creation logs a transfer to the address it creates', async () => {
      const nonce = BigInt((await result('eth_getTransactionCount', [ALICE, 'latest'])) as string);
      const created = bytesToHex(generateAddress(hexToBytes(ALICE), bigIntToUnpaddedBytes(nonce)));
      const answer = (await result('eth_simulateV1', [
        { traceTransfers: true, blockStateCalls: [{ calls: [{ from: ALICE, input: '0x00', value: '0x7' }] }] },
      ])) as Array<{
        calls: Array<{ status: string; logs: Array<{ address: string; topics: string[]; data: string }> }>;
      }>;
      const [call] = answer[0]!.calls;
      expect(call!.status).toBe('0x1');
      expect(call!.logs.map((l) => [l.address, l.topics.slice(1).map((t) => `0x${t.slice(26)}`), BigInt(l.data)])).toEqual([
        ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', [ALICE, created], 7n],
      ]);
      expect(await result('eth_getCode', [created, 'latest'])).toBe('0x');
    });

    it("eth_createAccessList: an SLOAD that runs out of gas is still recorded, as geth's tracer sees the failed opcode", async () => {
      const SLOADER = '0x00000000000000000000000000000000005104d0';
      const overrides = { [SLOADER]: { code: '0x60425400' } }; // PUSH1 0x42 SLOAD STOP
      const call = { from: ALICE, to: SLOADER, maxFeePerGas: '0x3b9aca00', maxPriorityFeePerGas: '0x1' };
      const slot = word(0x42n);
      expect(await result('eth_createAccessList', [call, 'latest', overrides])).toEqual({
        accessList: [{ address: SLOADER, storageKeys: [slot] }],
        gasUsed: hex(21000 + 2400 + 1900 + 3 + 100),
      });
      // 1,000 gas for the cold SLOAD's 2,100: the first run fails there and records the slot; the
      // run with that list then cannot pay its intrinsic gas (21,000 + 2,400 + 1,900)
      const e = await error('eth_createAccessList', [{ ...call, gas: hex(21000 + 3 + 1000) }, 'latest', overrides]);
      expect(e.code).toBe(-32000);
      expect(e.message).toMatch(/^failed to apply transaction: 0x[0-9a-f]{64} err: intrinsic gas too low: have 22003, want 25300$/);
    });

    it('eth_simulateV1 across the London and merge blocks: the first London block has the initial base fee with validation, 0 without', async () => {
      // the demo chain activates London at block 8 and the merge at block 20 (fixtures/demo/README.md)
      for (const validation of [true, false]) {
        const blocks = (await result('eth_simulateV1', [{ validation, blockStateCalls: [{ blockOverrides: { number: hex(21) } }] }, hex(5)])) as Array<{
          number: string;
          baseFeePerGas?: string;
          difficulty: string;
        }>;
        expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: 16 }, (_, i) => hex(6 + i)));
        expect(blocks[0]!.baseFeePerGas).toBeUndefined();
        expect(blocks[2]!.baseFeePerGas).toBe(validation ? '0x3b9aca00' : '0x0');
        expect(blocks[13]!.difficulty).not.toBe('0x0');
        expect(blocks[14]!.difficulty).toBe('0x0');
      }
    });

    it("eth_simulateV1: geth's errors for empty, oversized and malformed requests", async () => {
      expect(await error('eth_simulateV1', [{ blockStateCalls: [] }, 'latest'])).toEqual({ code: -32602, message: 'empty input' });
      const blocks = Array.from({ length: 257 }, () => ({}));
      expect(await error('eth_simulateV1', [{ blockStateCalls: blocks }, 'latest'])).toEqual({ code: -38026, message: 'too many blocks' });
      expect(await error('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: hex(HEAD + 300) } }] }, 'latest'])).toEqual({
        code: -38026,
        message: 'too many blocks',
      });
      expect(await error('eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: hex(HEAD) } }] }, 'latest'])).toEqual({
        code: -38020,
        message: `block numbers must be in order: ${HEAD} <= ${HEAD}`,
      });
      expect((await error('eth_simulateV1', [{ blockStateCalls: 'x' }])).code).toBe(-32602);
      // Go decodes a null block as an empty one
      expect(((await result('eth_simulateV1', [{ blockStateCalls: [null] }])) as Array<{ number: string }>).map((b) => b.number)).toEqual([hex(HEAD + 1)]);
      expect((await error('eth_simulateV1', [{ blockStateCalls: [{ calls: [{ to: '0x12' }] }] }])).code).toBe(-32602);
      expect((await error('eth_simulateV1', [{ blockStateCalls: [{ calls: [{}] }], validation: 'yes' }])).code).toBe(-32602);
      const gasHog = {
        blockStateCalls: [
          {
            blockOverrides: { gasLimit: '0x5208' },
            calls: [
              { from: ALICE, to: BOB },
              { from: ALICE, to: BOB, gas: '0x5208' },
            ],
          },
        ],
      };
      expect(await error('eth_simulateV1', [gasHog])).toEqual({ code: -38015, message: 'block gas limit reached: remaining: 0, required: 21000' });
    });
  },
);
