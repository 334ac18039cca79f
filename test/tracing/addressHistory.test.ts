import { join } from 'node:path';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import type { BatchOp } from '../../src/db/database.js';
import { PREFIX } from '../../src/db/keys.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { type EthereumApi, ethereumMethods } from '../../src/methods/ethereum.js';
import { historyKey, readHistoryHead } from '../../src/tracing/addressHistory.js';
import { reindexAddressHistory } from '../../src/tracing/historyReindex.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { testConfig } from '../helpers/testConfig.js';
import { methodsOf } from '../helpers/typedClient.js';

/**
 * The Otterscan address history on the demo chain (fixtures/demo: proof of work with uncles, the
 * merge, Shanghai's withdrawals, Cancun): import writes it with every block; block-level entries
 * (beneficiaries, uncles' beneficiaries, withdrawal recipients) are kept apart from transactions;
 * without it (a datadir from before it) the history methods refuse rather than answer short, and
 * `reindex-traces` (the function and the command) rebuilds exactly what import wrote.
 */
const tmp = tempDir('tracenode-history-');
let chain: EthereumChain;
let ctx: EthContext;
let head: bigint;

const HISTORY_PREFIXES = [PREFIX.addressHistory, PREFIX.senderNonce, PREFIX.contractCreator, PREFIX.historyList];
const HEAD_KEY = hexToBytes(`0x6d${Buffer.from('historyIndexHead').toString('hex')}`);

async function storedHistory(): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const prefix of HISTORY_PREFIXES) {
    for await (const [key, value] of chain.level.iterator({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1) }))
      out.push([bytesToHex(key), bytesToHex(value)]);
  }
  return out;
}

const call = <N extends keyof EthereumApi>(method: N, params: EthereumApi[N]['params']) =>
  methodsOf<EthereumApi, EthContext>(ethereumMethods, ctx).request(method, params);

beforeAll(async () => {
  chain = await importFixtureChain(join(FIXTURES, 'demo'), join(tmp.dir, 'data'));
  ctx = await createEthContext(chain, 'test', testConfig());
  head = (await chain.store.head())!.number;
}, 120_000);

afterAll(async () => {
  await ctx?.evm.close();
  await chain?.close();
  tmp.cleanup();
});

describe('address history on the demo chain', () => {
  it('import writes it for every block; beneficiaries and withdrawal recipients are block-level entries, never search results', async () => {
    expect(await readHistoryHead(chain.level)).toBe(head);
    const blockWith = async (pred: (b: Awaited<ReturnType<typeof chain.store.blockByNumber>>) => boolean) => {
      for (let n = 1n; n <= head; n++) if (pred(await chain.store.blockByNumber(n))) return (await chain.store.blockByNumber(n))!;
      throw new Error('no such block');
    };
    const withUncle = await blockWith((b) => (b?.uncleHeaders.length ?? 0) > 0);
    const withWithdrawal = await blockWith((b) => (b?.withdrawals?.length ?? 0) > 0);
    const has = async (key: Uint8Array) => (await chain.level.get(key)) !== undefined;
    expect(await has(historyKey(withUncle.header.coinbase.bytes, withUncle.header.number, 0xffffffff))).toBe(true);
    expect(await has(historyKey(withUncle.uncleHeaders[0].coinbase.bytes, withUncle.header.number, 0xffffffff))).toBe(true);
    const recipient = withWithdrawal.withdrawals![0].address.bytes;
    expect(await has(historyKey(recipient, withWithdrawal.header.number, 0xffffffff))).toBe(true);
    // The search reads transaction entries only: the miner's many block-level entries are not read.
    const miner = await call('ots_searchTransactionsBefore', [bytesToHex(withUncle.header.coinbase.bytes), 0, 25]);
    expect(miner.lastPage).toBe(true);
  });

  it('every transaction is in its sender’s history and found by sender and nonce', async () => {
    let txs = 0;
    for (let n = 1n; n <= head; n++) {
      const block = (await chain.store.blockByNumber(n))!;
      for (const tx of block.transactions) {
        const sender = bytesToHex(tx.getSenderAddress().bytes);
        expect(await call('ots_getTransactionBySenderAndNonce', [sender, Number(tx.nonce)])).toBe(bytesToHex(tx.hash()));
        const page = await call('ots_searchTransactionsAfter', [sender, Number(n) - 1, 1]);
        expect(page.txs.map((t) => t.hash)).toContain(bytesToHex(tx.hash()));
        txs++;
      }
    }
    expect(txs).toBeGreaterThan(20);
  });

  it('without it (removed, as in a datadir from before it) the history methods refuse; reindexing rebuilds exactly what import wrote', async () => {
    const imported = await storedHistory();
    const ops: BatchOp[] = imported.map(([key]) => ({ type: 'del', key: hexToBytes(key as `0x${string}`) }));
    ops.push({ type: 'del', key: HEAD_KEY });
    await chain.level.batch(ops);
    const refused = call('ots_searchTransactionsBefore', ['0x000000000000000000000000000000000000beef', 0, 25]);
    await expect(refused).rejects.toThrow(`the address history is built up to block 0 of ${head}: run tracenode reindex-traces`);
    expect(await reindexAddressHistory(chain, { trieNodeEntries: testConfig().caches.trieNodeEntries })).toEqual({ indexed: Number(head), head });
    expect(await storedHistory()).toEqual(imported);
    expect(await reindexAddressHistory(chain, { trieNodeEntries: testConfig().caches.trieNodeEntries })).toEqual({ indexed: 0, head });
  });

  it('`tracenode reindex-traces` builds both indexes for a datadir without them', async () => {
    const imported = await storedHistory();
    await chain.level.batch([...imported.map(([key]) => ({ type: 'del' as const, key: hexToBytes(key as `0x${string}`) })), { type: 'del', key: HEAD_KEY }]);
    await ctx.evm.close();
    await chain.close();
    const run = await runCli(['reindex-traces', '--datadir', join(tmp.dir, 'data')]);
    expect(run.stdout).toContain(`reindex-traces: address history: ${head} blocks indexed, history head is block ${head}`);
    expect(run.code).toBe(0);
    chain = await openChain(join(tmp.dir, 'data'), testConfig().caches);
    ctx = await createEthContext(chain, 'test', testConfig());
    expect(await storedHistory()).toEqual(imported);
  });
});
