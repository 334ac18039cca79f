import type { Hex } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { tempDir } from '../helpers/chains.js';
import { type FollowedAnvil, followAnvil } from '../helpers/followedAnvil.js';
import { describeWithFoundry } from '../helpers/foundry.js';

/**
 * #39: the eth_call result cache through anvil's reorganisations. A call at `latest` is answered
 * from the cache while the head stays; once anvil drops the block (evm_revert, then a longer
 * branch) and the follower switches, the same call at `latest`, and at the dropped block's number,
 * answers the new branch's state — anvil's own answer — never the one kept for the dropped block.
 */
const describe = describeWithFoundry(['anvil'], 'the eth_call cache through a reorganisation');
const tmp = tempDir('tracenode-call-cache-reorg-');
let f: FollowedAnvil;

beforeAll(async () => {
  f = await followAnvil(tmp.dir);
}, 180_000);

afterAll(async () => {
  await f?.close();
  tmp.cleanup();
});

const watched = accountFor('call-cache-reorg').address.toLowerCase() as Hex;
const VIEW = '0x00000000000000000000000000000000000c0de1';
/** BALANCE(watched), returned as one word: the view the cached call runs (as a state override). */
const BALANCE_VIEW = `0x73${watched.slice(2)}3160005260206000f3`;
const viewArgs = (block: string) => [{ to: VIEW }, block, { [VIEW]: { code: BALANCE_VIEW } }];
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

describe('eth_call answers kept per block, through a reorganisation', () => {
  it('the dropped block’s answer is never served for the new branch’s block of the same number', async () => {
    const snapshot = await f.anvil('evm_snapshot');
    await f.pay(watched, 11n);
    await f.caughtUp();
    const dropped = (await f.anvil('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
    const before = f.ctx.execution.cacheStats();
    expect(await f.ours('eth_call', viewArgs('latest'))).toBe(word(11n));
    expect(await f.ours('eth_call', viewArgs(dropped.number))).toBe(word(11n));
    // The second ask (by number: the same block) was the kept answer.
    expect(f.ctx.execution.cacheStats()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1 });

    expect(await f.anvil('evm_revert', [snapshot])).toBe(true);
    await f.pay(watched, 22n);
    await f.pay(accountFor('alice').address as Hex, 1n);
    await f.caughtUp();
    const replaced = (await f.anvil('eth_getBlockByNumber', [dropped.number, false])) as { hash: string };
    expect(replaced.hash).not.toBe(dropped.hash);
    expect(await f.anvil('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs('latest'))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs('pending'))).toBe(word(22n));
  });
});
