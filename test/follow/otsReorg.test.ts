import { hexToBytes } from '@ethereumjs/util';
import type { Hex } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { HISTORY_PREFIX, NONCE_PREFIX, readHistoryHead } from '../../src/tracing/addressHistory.js';
import { tempDir } from '../helpers/chains.js';
import { type FollowedAnvil, followAnvil } from '../helpers/followedAnvil.js';
import { describeWithFoundry } from '../helpers/foundry.js';

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
let f: FollowedAnvil;

const alice = accountFor('alice');
/** Fresh recipients: each branch pays its own, so a dropped branch leaves a recipient with no history. */
const recipient = (name: string) => accountFor(`ots-reorg-${name}`).address.toLowerCase() as Hex;

beforeAll(async () => {
  f = await followAnvil(tmp.dir);
}, 180_000);

afterAll(async () => {
  await f?.close();
  tmp.cleanup();
});

const anvil = (method: string, params: unknown[] = []) => f.anvil(method, params);
const ours = (method: string, params: unknown[]) => f.ours(method, params);
const caughtUp = () => f.caughtUp();
const pay = (to: Hex, value: bigint) => f.pay(to, value);

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
    for await (const _ of f.chain.level.keys({ gte: from, lt: to })) n++;
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
    expect(await readHistoryHead(f.chain.level)).toBe((await f.chain.store.head())!.number);
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
