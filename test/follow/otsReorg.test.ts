import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { initDatadir } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { HISTORY_PREFIX, NONCE_PREFIX, readHistoryHead } from '../../src/tracing/addressHistory.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * The Otterscan address history through anvil's reorganisations: a follower writes a block's
 * history entries in the block's own batch, so after anvil drops blocks (evm_revert then a longer
 * branch, anvil_reorg, anvil_rollback) the history lists what anvil's chain holds and nothing of
 * the dropped transactions: ots_searchTransactions* of the dropped recipients are empty (as anvil's
 * own answers), the sender's history and ots_getTransactionBySenderAndNonce name the new branch's
 * transactions, and no history key of a dropped transaction is left in the datadir once its height
 * is written again.
 */
const describe = describeWithFoundry(['anvil'], 'the address history through reorganisations');
const tmp = tempDir('tracenode-ots-reorg-');
let built: BuiltChain;
let chain: EthereumChain;
let ctx: EthContext;
let follower: Follower;

const alice = accountFor('alice');
const signer = privateKeyToAccount(alice.privateKey);
/** Fresh recipients: each branch pays its own, so a dropped branch leaves a recipient with no history. */
const recipient = (name: string) => accountFor(`ots-reorg-${name}`).address.toLowerCase() as Hex;

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'state', keepRunning: true });
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), config);
  chain = await openChain(datadir, config.caches);
  ctx = await createEthContext(chain, 'test', config);
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  follower = new Follower(chain, new Upstream(built.anvil!.url, { requestTimeoutMs: 10_000 }), { settings: config.follow, importSettings: config.import, log });
  follower.start();
  await caughtUp();
}, 180_000);

afterAll(async () => {
  await follower?.stop();
  await ctx?.evm.close();
  await chain?.close();
  await built?.anvil?.stop();
  tmp.cleanup();
});

const anvil = (method: string, params: unknown[] = []) => rawResult(built.anvil!.url, method, params);
const ours = (method: string, params: unknown[]) => ethereumMethods.get(method)!.call(ctx, params);

async function caughtUp(): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const target = BigInt((await anvil('eth_blockNumber')) as string);
    const theirs = ((await anvil('eth_getBlockByNumber', [`0x${target.toString(16)}`, false])) as { hash: string }).hash;
    const head = await chain.store.head();
    if (head && head.number === target && bytesToHex(head.hash) === theirs) return;
    if (Date.now() - t0 > 20_000) throw new Error(`not caught up: head ${head?.number}, anvil ${target}`);
    await sleep(50);
  }
}

/** Sends `value` wei from alice to `to` and mines it in its own block. */
async function pay(to: Hex, value: bigint): Promise<Hex> {
  const nonce = Number(BigInt((await anvil('eth_getTransactionCount', [alice.address, 'pending'])) as string));
  const raw = await signer.signTransaction({
    chainId: built.chainId,
    type: 'eip1559',
    nonce,
    to,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei('100'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
  const hash = (await anvil('eth_sendRawTransaction', [raw])) as Hex;
  await anvil('evm_mine');
  return hash;
}

type Page = { txs: Array<{ hash: string }>; firstPage: boolean; lastPage: boolean };
const history = async (address: string): Promise<string[]> => ((await ours('ots_searchTransactionsBefore', [address, 0, 25])) as Page).txs.map((t) => t.hash);
const anvilHistory = async (address: string): Promise<string[]> =>
  ((await anvil('ots_searchTransactionsBefore', [address, 0, 25])) as Page).txs.map((t) => t.hash);

/** Every address-history and nonce key of the datadir that names `address`. */
async function keysOf(address: string): Promise<number> {
  const bytes = hexToBytes(address as Hex);
  let n = 0;
  for (const prefix of [HISTORY_PREFIX, NONCE_PREFIX]) {
    const from = Uint8Array.of(prefix, ...bytes);
    const to = Uint8Array.of(prefix, ...bytes, 0xff);
    for await (const _ of chain.level.keys({ gte: from, lt: to })) n++;
  }
  return n;
}

describe('Otterscan address history and reorganisations', () => {
  it('a dropped branch (evm_snapshot, 3 blocks, evm_revert, a longer branch) leaves the history with the new branch only', async () => {
    const snapshot = await anvil('evm_snapshot');
    const x = recipient('dropped');
    const dropped = [await pay(x, 11n), await pay(x, 12n), await pay(x, 13n)];
    await caughtUp();
    expect(await history(x)).toEqual([...dropped].reverse());
    const nonceOfFirst = Number(BigInt(((await anvil('eth_getTransactionByHash', [dropped[0]])) as { nonce: string }).nonce));
    expect(await ours('ots_getTransactionBySenderAndNonce', [alice.address, nonceOfFirst])).toBe(dropped[0]);

    expect(await anvil('evm_revert', [snapshot])).toBe(true);
    const y = recipient('kept');
    const kept = [await pay(y, 21n), await pay(y, 22n), await pay(y, 23n), await pay(y, 24n)];
    await caughtUp();

    expect(await history(x)).toEqual([]);
    expect(await anvilHistory(x)).toEqual([]);
    expect(await history(y)).toEqual([...kept].reverse());
    expect(await history(y)).toEqual(await anvilHistory(y));
    const aliceHistory = await history(alice.address);
    expect(aliceHistory.slice(0, 4)).toEqual([...kept].reverse());
    for (const hash of dropped) expect(aliceHistory).not.toContain(hash);
    expect(aliceHistory).toEqual(await anvilHistory(alice.address));
    expect(await ours('ots_getTransactionBySenderAndNonce', [alice.address, nonceOfFirst])).toBe(kept[0]);
    // The dropped blocks' heights were written again by the new branch: their keys are gone.
    expect(await keysOf(x)).toBe(0);
    expect(await readHistoryHead(chain.level)).toBe((await chain.store.head())!.number);
  });

  it('anvil_rollback: the rolled-back blocks’ transactions leave the history at once, their keys when the heights are written again', async () => {
    const z = recipient('rolled-back');
    const rolled = [await pay(z, 31n), await pay(z, 32n)];
    await caughtUp();
    expect(await history(z)).toEqual([...rolled].reverse());
    await anvil('anvil_rollback', [2]);
    await caughtUp();
    expect(await history(z)).toEqual([]);
    expect(await anvilHistory(z)).toEqual([]);
    expect((await history(alice.address)).filter((h) => rolled.includes(h as Hex))).toEqual([]);
    // Above the head the entries wait for their heights to be written again.
    await anvil('evm_mine');
    await anvil('evm_mine');
    await caughtUp();
    // Whatever anvil mined at those heights is all the history names (one key per listed transaction).
    expect(await history(z)).toEqual(await anvilHistory(z));
    expect(await keysOf(z)).toBe((await history(z)).length);
    expect(await history(alice.address)).toEqual(await anvilHistory(alice.address));
  });

  it('anvil_reorg: replacement blocks carry their own history', async () => {
    const w = recipient('replaced');
    const replaced = [await pay(w, 41n), await pay(w, 42n)];
    await caughtUp();
    expect(await history(w)).toEqual([...replaced].reverse());
    await anvil('anvil_reorg', [2, []]);
    await caughtUp();
    expect(await history(w)).toEqual(await anvilHistory(w));
    expect(await history(alice.address)).toEqual(await anvilHistory(alice.address));
    expect(await keysOf(w)).toBe((await history(w)).length);
  });
});
