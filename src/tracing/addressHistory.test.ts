import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Level, openDatabase } from '../db/database.js';
import {
  type BlockHistory,
  decodeList,
  encodeList,
  historyKey,
  historyOps,
  historyPage,
  latestCreation,
  readList,
  type TxRef,
  txBySenderAndNonce,
} from './addressHistory.js';

const addr = (n: number) => Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? n : i === 0 ? 0xaa : 0));
const A = addr(1);
const B = addr(2);
const SENDER = addr(3);
const FACTORY = addr(4);
const CONTRACT = addr(5);

let dir: string;
let level: Level;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tracenode-history-'));
  level = await openDatabase(dir);
});

afterAll(async () => {
  await level.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A block's history: `txs[i]` the addresses of transaction i, sent by SENDER with nonce `nonce0 + i`. */
function history(txs: Uint8Array[][], nonce0: bigint, blockLevel: Uint8Array[] = []): BlockHistory {
  return {
    txs: txs.map((addresses, txIndex) => ({ txIndex, addresses: [SENDER, ...addresses], sender: SENDER, nonce: nonce0 + BigInt(txIndex), creations: [] })),
    blockLevel,
  };
}

async function write(number: bigint, h: BlockHistory): Promise<void> {
  await level.batch(historyOps(number, h, await readList(level, number)));
}

const refs = (page: { txs: TxRef[] }) => page.txs.map((t) => `${t.block}:${t.txIndex}`);

describe('address history: keys and lists', () => {
  it('a list holds the keys written for a height and decodes back to them', () => {
    const keys = [historyKey(A, 7n, 0), historyKey(B, 7n, 3), historyKey(A, 7n, 0xffffffff)];
    expect(decodeList(encodeList(keys)).map((k) => Buffer.from(k).toString('hex'))).toEqual(keys.map((k) => Buffer.from(k).toString('hex')));
    expect(() => decodeList(Uint8Array.of(5, 1, 2))).toThrow('ends early');
  });

  it('transaction entries sort by block then index; block-level entries sort apart, after all of them', () => {
    const hex = (k: Uint8Array) => Buffer.from(k).toString('hex');
    expect(hex(historyKey(A, 2n, 1)) < hex(historyKey(A, 10n, 0))).toBe(true);
    expect(hex(historyKey(A, 10n, 0)) < hex(historyKey(A, 10n, 2))).toBe(true);
    expect(hex(historyKey(A, 999n, 7)) < hex(historyKey(A, 1n, 0xffffffff))).toBe(true);
  });
});

describe('address history: pages, lookups, replacement', () => {
  beforeAll(async () => {
    // blocks 1..6: A in every transaction; block 3 has three transactions with A; B only in block 5;
    // A is also the beneficiary of every block (block-level entries, never a search result).
    await write(1n, history([[A]], 0n, [A]));
    await write(2n, history([[A, B]], 1n, [A]));
    await write(3n, history([[A], [A], [A]], 2n, [A]));
    await write(4n, history([[A]], 5n, [A]));
    await write(5n, {
      ...history([[A, B]], 6n, [A]),
      txs: [{ txIndex: 0, addresses: [SENDER, A, B, FACTORY, CONTRACT], sender: SENDER, nonce: 6n, creations: [{ contract: CONTRACT, creator: FACTORY }] }],
    });
    await write(6n, history([[A]], 7n, [A]));
  });

  it('before: newest first, whole blocks once the page is full, `more` when a transaction is left', async () => {
    expect(refs(await historyPage(level, { address: A, direction: 'before', block: undefined, head: 6n, pageSize: 2 }))).toEqual(['6:0', '5:0']);
    const page = await historyPage(level, { address: A, direction: 'before', block: 5n, head: 6n, pageSize: 2 });
    expect([refs(page), page.more]).toEqual([['4:0', '3:2', '3:1', '3:0'], true]);
    const last = await historyPage(level, { address: A, direction: 'before', block: 3n, head: 6n, pageSize: 2 });
    expect([refs(last), last.more]).toEqual([['2:0', '1:0'], false]);
    expect(await historyPage(level, { address: A, direction: 'before', block: 1n, head: 6n, pageSize: 2 })).toEqual({ txs: [], more: false });
  });

  it('after: the oldest matches above the block, returned newest first', async () => {
    const page = await historyPage(level, { address: A, direction: 'after', block: undefined, head: 6n, pageSize: 2 });
    expect([refs(page), page.more]).toEqual([['2:0', '1:0'], true]);
    const next = await historyPage(level, { address: A, direction: 'after', block: 2n, head: 6n, pageSize: 2 });
    expect([refs(next), next.more]).toEqual([['3:2', '3:1', '3:0'], true]);
    const end = await historyPage(level, { address: A, direction: 'after', block: 4n, head: 6n, pageSize: 25 });
    expect([refs(end), end.more]).toEqual([['6:0', '5:0'], false]);
  });

  it('nothing above the head counts (entries a shorter branch left there)', async () => {
    const page = await historyPage(level, { address: A, direction: 'before', block: undefined, head: 4n, pageSize: 25 });
    expect(refs(page)[0]).toBe('4:0');
    expect(await txBySenderAndNonce(level, SENDER, 7n, 5n)).toBeUndefined();
    expect(await txBySenderAndNonce(level, SENDER, 7n, 6n)).toEqual({ block: 6n, txIndex: 0 });
    expect(await latestCreation(level, CONTRACT, 4n)).toBeUndefined();
    expect(await latestCreation(level, CONTRACT, 6n)).toEqual({ block: 5n, txIndex: 0, creator: FACTORY });
  });

  it('writing a height again replaces its entries: a block taking the place of another takes its entries with it', async () => {
    await write(5n, history([[B], [B]], 6n));
    expect(refs(await historyPage(level, { address: A, direction: 'before', block: 6n, head: 6n, pageSize: 1 }))).toEqual(['4:0']);
    expect(refs(await historyPage(level, { address: B, direction: 'before', block: undefined, head: 6n, pageSize: 25 }))).toEqual(['5:1', '5:0', '2:0']);
    expect(await latestCreation(level, CONTRACT, 6n)).toBeUndefined();
    expect(await txBySenderAndNonce(level, SENDER, 7n, 6n)).toEqual({ block: 6n, txIndex: 0 });
    expect(await txBySenderAndNonce(level, SENDER, 6n, 6n)).toEqual({ block: 5n, txIndex: 0 });
    let blockLevel = 0;
    for await (const _ of level.keys({ gte: historyKey(A, 5n, 0xffffffff), lte: historyKey(A, 5n, 0xffffffff) })) blockLevel++;
    expect(blockLevel).toBe(0);
  });
});

describe('address history: a page costs the same wherever it lies', () => {
  const BIG = addr(9);
  const TXS = 100_000;
  const PER_BLOCK = 5;

  beforeAll(async () => {
    // 100,000 entries of one address (20,000 blocks of 5), between neighbours with entries of their own.
    const batch: Array<{ type: 'put'; key: Uint8Array; value: Uint8Array }> = [];
    for (let i = 0; i < TXS; i++) {
      const block = BigInt(Math.floor(i / PER_BLOCK) + 1);
      for (const a of [addr(8), BIG, addr(10)]) batch.push({ type: 'put', key: historyKey(a, block, i % PER_BLOCK), value: new Uint8Array(0) });
      if (batch.length >= 30_000) await level.batch(batch.splice(0));
    }
    await level.batch(batch);
  }, 60_000);

  it('first, middle and last pages of 25 over 100,000 transactions: right entries, times within a small factor', async () => {
    const head = BigInt(TXS / PER_BLOCK);
    const pages = {
      first: { address: BIG, direction: 'before' as const, block: undefined, head, pageSize: 25 },
      middle: { address: BIG, direction: 'before' as const, block: head / 2n, head, pageSize: 25 },
      last: { address: BIG, direction: 'after' as const, block: undefined, head, pageSize: 25 },
    };
    const times: Record<string, number> = {};
    for (const [name, q] of Object.entries(pages)) {
      const samples: number[] = [];
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        const page = await historyPage(level, q);
        samples.push(performance.now() - t0);
        expect(page.txs).toHaveLength(25);
      }
      times[name] = samples.sort((a, b) => a - b)[15];
    }
    expect(refs(await historyPage(level, pages.first)).slice(0, 2)).toEqual([`${head}:4`, `${head}:3`]);
    expect(refs(await historyPage(level, pages.middle))[0]).toBe(`${head / 2n - 1n}:4`);
    expect(refs(await historyPage(level, pages.last)).at(-1)).toBe('1:0');
    console.log(
      `historyPage medians over ${TXS} entries: ${Object.entries(times)
        .map(([k, v]) => `${k} ${v.toFixed(3)} ms`)
        .join(', ')}`,
    );
    const slowest = Math.max(...Object.values(times));
    const fastest = Math.min(...Object.values(times));
    expect(slowest).toBeLessThan(fastest * 5 + 1);
  });
});
