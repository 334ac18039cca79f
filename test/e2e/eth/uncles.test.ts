import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { connect, type RpcClient, TRANSPORTS } from '../../helpers/rpcClient.js';

/**
 * eth_getUncleByBlockNumberAndIndex / ByBlockHashAndIndex and the uncle counts. Each returned uncle
 * is re-encoded from its JSON fields alone (RLP of the header list, written here from the yellow
 * paper's field order) and hashed: the hash must equal the fixture's uncle hash, which proves every
 * consensus field. Uncle chains: hashes from expected.json. execution-apis chain: the block's
 * sha3Uncles must equal keccak(rlp(rebuilt uncles)), and the block hash the chain summary's.
 */
type RpcHeader = Record<string, string>;
const q = (hex: string) =>
  BigInt(hex) === 0n
    ? new Uint8Array()
    : hexToBytes(
        `0x${BigInt(hex)
          .toString(16)
          .padStart(Math.ceil(BigInt(hex).toString(16).length / 2) * 2, '0')}`,
      );
const d = (hex: string) => hexToBytes(hex as `0x${string}`);

function rebuildHeader(h: RpcHeader): Uint8Array[] {
  const fields = [
    d(h.parentHash),
    d(h.sha3Uncles),
    d(h.miner),
    d(h.stateRoot),
    d(h.transactionsRoot),
    d(h.receiptsRoot),
    d(h.logsBloom),
    q(h.difficulty),
    q(h.number),
    q(h.gasLimit),
    q(h.gasUsed),
    q(h.timestamp),
    d(h.extraData),
    d(h.mixHash),
    d(h.nonce),
  ];
  if (h.baseFeePerGas !== undefined) fields.push(q(h.baseFeePerGas));
  return fields;
}
const headerHash = (h: RpcHeader) => bytesToHex(keccak256(RLP.encode(rebuildHeader(h))));
const hex = (n: number) => `0x${n.toString(16)}`;

async function withServer(dir: string, fn: (client: RpcClient) => Promise<void>) {
  const server: EthTestServer = await startEthServer(dir);
  try {
    for (const transport of TRANSPORTS) {
      const client = await connect(transport, server.url, server.key);
      try {
        await fn(client);
      } finally {
        await client.close();
      }
    }
  } finally {
    await server.close();
  }
}

async function checkUncle(client: RpcClient, blockNumber: number, blockHash: string, index: number, wantHash: string) {
  const byNumber = (await client.call<RpcHeader>('eth_getUncleByBlockNumberAndIndex', [hex(blockNumber), hex(index)])).result!;
  const byHash = (await client.call<RpcHeader>('eth_getUncleByBlockHashAndIndex', [blockHash, hex(index)])).result!;
  expect(byHash).toEqual(byNumber);
  expect(headerHash(byNumber)).toBe(wantHash);
  expect(byNumber.hash).toBe(wantHash);
  expect(byNumber).not.toHaveProperty('transactions');
  expect(byNumber.uncles).toEqual([]);
  // size of the uncle wrapped as an empty block: rlp([header, [], []])
  expect(BigInt(byNumber.size)).toBe(BigInt(RLP.encode([rebuildHeader(byNumber), [], []]).length));
  return byNumber;
}

describe('uncles of the 11 uncle chains (hashes from expected.json)', () => {
  const root = join(FIXTURES, 'uncle-chains');
  for (const name of readdirSync(root).filter((n) => !n.endsWith('.md'))) {
    it(name, async () => {
      const expected = JSON.parse(readFileSync(join(root, name, 'expected.json'), 'utf8'));
      await withServer(join(root, name), async (client) => {
        for (const b of expected.blocks) {
          const n = Number(b.number);
          expect((await client.call('eth_getUncleCountByBlockNumber', [hex(n)])).result).toBe(hex(b.uncleCount));
          expect((await client.call('eth_getUncleCountByBlockHash', [b.hash])).result).toBe(hex(b.uncleCount));
          for (const u of b.uncles) {
            const uncle = await checkUncle(client, n, b.hash, u.index, u.hash);
            expect([uncle.miner, uncle.number, uncle.stateRoot]).toEqual([u.miner, u.number, u.stateRoot]);
          }
          expect((await client.call('eth_getUncleByBlockNumberAndIndex', [hex(n), hex(b.uncleCount)])).result).toBeNull();
          expect((await client.call('eth_getUncleByBlockHashAndIndex', [b.hash, hex(b.uncleCount)])).result).toBeNull();
        }
      });
    });
  }
});

describe('uncles of the execution-apis chain', () => {
  const dir = join(FIXTURES, 'execution-apis');
  const summary = readFileSync(join(dir, 'chain-summary.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { number: number; hash: string; uncles: number });

  it('18 blocks carry one uncle each; every uncle rebuilds to its hash; the set hashes to sha3Uncles', async () => {
    expect(summary.filter((b) => b.uncles > 0).map((b) => b.number)).toEqual([3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 25, 29, 32, 34]);
    await withServer(dir, async (client) => {
      for (const b of summary) {
        const block = (await client.call<RpcHeader & { uncles: string[] }>('eth_getBlockByNumber', [hex(b.number), false])).result!;
        expect(block.hash).toBe(b.hash);
        expect((await client.call('eth_getUncleCountByBlockNumber', [hex(b.number)])).result).toBe(hex(b.uncles));
        const uncles: Uint8Array[][] = [];
        for (let i = 0; i < b.uncles; i++) {
          const uncle = await checkUncle(client, b.number, b.hash, i, block.uncles[i]);
          uncles.push(rebuildHeader(uncle));
        }
        expect(bytesToHex(keccak256(RLP.encode(uncles)))).toBe(block.sha3Uncles);
        expect((await client.call('eth_getUncleByBlockNumberAndIndex', [hex(b.number), hex(b.uncles)])).result).toBeNull();
      }
    });
  });

  it('unknown block → null; malformed index or hash → -32602', async () => {
    await withServer(dir, async (client) => {
      expect((await client.call('eth_getUncleByBlockNumberAndIndex', ['0x99', '0x0'])).result).toBeNull();
      expect((await client.call('eth_getUncleByBlockHashAndIndex', [`0x${'ab'.repeat(32)}`, '0x0'])).result).toBeNull();
      expect((await client.call('eth_getUncleByBlockNumberAndIndex', ['0x3', '0x00'])).error?.code).toBe(-32602);
      expect((await client.call('eth_getUncleByBlockNumberAndIndex', ['0x3', 0])).error?.code).toBe(-32602);
      expect((await client.call('eth_getUncleByBlockHashAndIndex', ['0x1234', '0x0'])).error?.code).toBe(-32602);
    });
  });
});
