/**
 * `npx tsx bench/otsSearch.ts [--txs 100000] [--per-block 10] [--runs 50]`: what an Otterscan
 * address search costs over a long history (issue 28), and what the address history costs on disk.
 *
 * Data: a datadir holding one sender's `--txs` signed transfers (EIP-1559, to 16 recipients in
 * turn), `--per-block` to a block, written straight to the store with their receipts and their
 * address-history entries as the importer writes them (no execution: the search reads blocks,
 * receipts and the history, never state). Cached under bench/.cache/ots-search-<txs>-<per-block>.
 *
 * Figures: the median and 95th percentile of ots_searchTransactionsBefore/After through the
 * method (index seek, the page's blocks and receipts, rendering) for the first page (the newest),
 * a middle page and the last page (the oldest) of the sender's history, pages of 25; and the
 * history's bytes per transaction after a compaction (LevelDB's approximate sizes of its key
 * ranges: `a` entries, `o` nonce keys, `c` creators, `l` per-height lists).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { makeAlloc, makeGenesis } from '../scripts/anvil/anvilGenesis.js';
import { accountFor } from '../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../src/chain/open.js';
import type { StoredReceipt } from '../src/chain/receipts.js';
import { defaultConfig } from '../src/config/settings.js';
import type { BatchOp } from '../src/db/database.js';
import { PREFIX } from '../src/db/keys.js';
import { initDatadir } from '../src/import/init.js';
import { createEthContext, type EthContext } from '../src/methods/context.js';
import { ethereumMethods } from '../src/methods/ethereum.js';
import { blockHistory, historyHeadOp, historyOps } from '../src/tracing/addressHistory.js';
import type { TxCallTree } from '../src/tracing/callTree.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TXS = arg('txs', 100_000);
const PER_BLOCK = arg('per-block', 10);
const RUNS = arg('runs', 50);
const PAGE = 25;

const sender = accountFor('ots-bench-sender');
const recipients = Array.from({ length: 16 }, (_, i) => accountFor(`ots-bench-recipient-${i}`).address);

async function build(datadir: string): Promise<void> {
  const config = defaultConfig();
  await initDatadir(datadir, JSON.stringify(makeGenesis(makeAlloc([sender]))), config);
  const chain = await openChain(datadir, config.caches);
  try {
    const key = hexToBytes(sender.privateKey);
    let parent = (await chain.store.blockByNumber(0n))!;
    const blocks = Math.ceil(TXS / PER_BLOCK);
    const t0 = performance.now();
    for (let n = 1; n <= blocks; n++) {
      const number = BigInt(n);
      const txs = [];
      for (let i = 0; i < PER_BLOCK && (n - 1) * PER_BLOCK + i < TXS; i++) {
        const nonce = BigInt((n - 1) * PER_BLOCK + i);
        const to = recipients[Number(nonce % 16n)];
        const tx = createFeeMarket1559Tx(
          { chainId: chain.common.chainId(), nonce, to, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n },
          { common: chain.common },
        );
        txs.push(tx.sign(key));
      }
      const block = createBlock(
        {
          header: {
            number,
            parentHash: parent.hash(),
            timestamp: parent.header.timestamp + 12n,
            gasLimit: 30_000_000n,
            gasUsed: 21_000n * BigInt(txs.length),
            baseFeePerGas: 10n ** 9n,
          },
          transactions: txs,
          withdrawals: [],
        },
        { common: chain.common, setHardfork: true },
      );
      const receipts: StoredReceipt[] = txs.map((_, i) => ({
        statusOrRoot: Uint8Array.of(1),
        cumulativeGasUsed: 21_000n * BigInt(i + 1),
        gasUsed: 21_000n,
        logs: [],
      }));
      const trees: TxCallTree[] = txs.map((tx, txIndex) => ({
        txHash: tx.hash(),
        txIndex,
        root: {
          kind: 'call',
          from: createAddressFromString(sender.address).bytes,
          to: tx.to!.bytes,
          value: 1n,
          gas: 0n,
          input: new Uint8Array(0),
          output: new Uint8Array(0),
          gasUsed: 0n,
          error: undefined,
          precompile: false,
          children: [],
        },
      }));
      const ops: BatchOp[] = [
        ...chain.store.blockOps(block, receipts, 0n),
        ...historyOps(number, blockHistory(block, trees), undefined),
        historyHeadOp(number),
      ];
      await chain.level.batch(ops);
      parent = block;
      if (n % 1000 === 0) process.stderr.write(`ots-search bench: ${n * PER_BLOCK} transactions written (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
    chain.store.invalidateHead();
  } finally {
    await chain.close();
  }
}

interface Sizes {
  [range: string]: number;
}

async function diskSizes(chain: EthereumChain): Promise<Sizes> {
  const db = chain.level as unknown as {
    compactRange(a: Uint8Array, b: Uint8Array): Promise<void>;
    approximateSize(a: Uint8Array, b: Uint8Array): Promise<number>;
  };
  await db.compactRange(Uint8Array.of(0x00), Uint8Array.of(0xff));
  const out: Sizes = {};
  for (const [name, prefix] of Object.entries({
    history: PREFIX.addressHistory,
    senderNonce: PREFIX.senderNonce,
    creator: PREFIX.contractCreator,
    lists: PREFIX.historyList,
    blockBodies: PREFIX.body,
    receipts: PREFIX.receipts,
  })) {
    out[name] = await db.approximateSize(Uint8Array.of(prefix), Uint8Array.of(prefix + 1));
  }
  return out;
}

/**
 * Times a page request: `params(i)` gives run i's parameters, each run a different page near the
 * same place in the history, so that no run is answered from the blocks, receipts and senders an
 * earlier one left in the caches (every figure includes reading and decoding its blocks).
 */
async function time(ctx: EthContext, method: string, params: (i: number) => unknown[]): Promise<{ median: number; p95: number; txs: number }> {
  const def = ethereumMethods.get(method)!;
  const samples: number[] = [];
  let txs = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const result = (await def.call(ctx, params(i))) as { txs: unknown[] };
    samples.push(performance.now() - t0);
    txs = Math.max(txs, result.txs.length);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], p95: samples[Math.floor(samples.length * 0.95)], txs };
}

async function main(): Promise<void> {
  const dir = join(import.meta.dirname, '.cache', `ots-search-${TXS}-${PER_BLOCK}`);
  const datadir = join(dir, 'data');
  if (!existsSync(join(dir, 'done'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const t0 = performance.now();
    await build(datadir);
    writeFileSync(join(dir, 'done'), `${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const config = defaultConfig();
  const chain = await openChain(datadir, config.caches);
  const ctx = await createEthContext(chain, 'bench', config);
  try {
    const blocks = Math.ceil(TXS / PER_BLOCK);
    // Each run asks for another page (three blocks further), near the newest, the middle and the oldest transactions.
    const step = Math.ceil(PAGE / PER_BLOCK) + 1;
    const mid = Math.floor(blocks / 2);
    const cases: Array<[string, string, (i: number) => unknown[]]> = [
      ['first pages (newest)', 'ots_searchTransactionsBefore', (i) => [sender.address, i === 0 ? 0 : blocks + 1 - i * step, PAGE]],
      ['middle pages', 'ots_searchTransactionsBefore', (i) => [sender.address, Math.max(1, mid - i * step), PAGE]],
      ['last pages (oldest)', 'ots_searchTransactionsAfter', (i) => [sender.address, i * step, PAGE]],
      ['middle pages, forward', 'ots_searchTransactionsAfter', (i) => [sender.address, mid + 2 + i * step, PAGE]],
      ['a recipient (1/16 of them)', 'ots_searchTransactionsBefore', (i) => [recipients[0], i === 0 ? 0 : Math.max(1, blocks + 1 - i * step * 16), PAGE]],
    ];
    const rows: string[] = [];
    for (const [name, method, params] of cases) {
      const t = await time(ctx, method, params);
      rows.push(`| ${name} | \`${method}\` from block ${params(0)[1]}, ${params(1)[1]}, … | ${t.txs} | ${t.median.toFixed(2)} | ${t.p95.toFixed(2)} |`);
    }
    const sizes = await diskSizes(chain);
    const historyBytes = sizes.history + sizes.senderNonce + sizes.creator + sizes.lists;
    process.stdout.write(
      [
        `ots search over one sender's ${TXS.toLocaleString('en')} transactions (${PER_BLOCK} a block, ${blocks.toLocaleString('en')} blocks), pages of ${PAGE}, ${RUNS} different pages each (cold blocks, receipts and senders):`,
        '',
        '| pages | call | txs a page (at most) | median ms | p95 ms |',
        '|---|---|---|---|---|',
        ...rows,
        '',
        `address history on disk (compacted): ${historyBytes.toLocaleString('en')} bytes, ${(historyBytes / TXS).toFixed(1)} bytes per transaction ` +
          `(entries ${sizes.history}, nonce keys ${sizes.senderNonce}, creators ${sizes.creator}, per-height lists ${sizes.lists}; ` +
          `for scale: block bodies ${sizes.blockBodies}, receipts ${sizes.receipts})`,
        '',
      ].join('\n'),
    );
  } finally {
    await ctx.evm.close();
    await chain.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`ots-search bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
