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
/**
 * Counts BALANCE(watched) down to zero, 40 gas a turn (JUMPDEST 1, DUP1 3, ISZERO 3, PUSH1 3,
 * JUMPI 10, PUSH1 3, SWAP1 3, SUB 3, PUSH1 3, JUMP 8): its gas, and so its estimate, tells the
 * branches apart.
 */
const LOOP_VIEW = `0x73${watched.slice(2)}315b8015602357600190036016565b00`;
const loopArgs = (block: string) => [{ to: VIEW }, block, { [VIEW]: { code: LOOP_VIEW } }];
/** The loop's gas by hand: 21,000 + PUSH20 3 + a cold BALANCE 2,600 + 40 a turn + the last test 20 + JUMPDEST 1. */
const loopGas = (balance: bigint) => 23_624n + 40n * balance;
/** An estimate of the loop is within geth's 1.5 % above its gas. */
const estimateFor = (balance: bigint) => (e: bigint) => e >= loopGas(balance) && e <= (loopGas(balance) * 1015n) / 1000n;

/**
 * anvil pays `watched` 11 wei in a block that is then dropped (`evm_revert`) for a longer branch
 * that pays it 22; `onDropped` runs while the dropped block is the head, tracenode caught up.
 * Returns the dropped block and its replacement at the same number.
 */
async function reorgAround(onDropped: (dropped: { number: string; hash: string }) => Promise<void>): Promise<{ dropped: { number: string; hash: string } }> {
  const snapshot = await f.anvil('evm_snapshot');
  await f.pay(watched, 11n);
  await f.caughtUp();
  const dropped = (await f.anvil('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
  await onDropped(dropped);
  expect(await f.anvil('evm_revert', [snapshot])).toBe(true);
  await f.pay(watched, 22n);
  await f.pay(accountFor('alice').address as Hex, 1n);
  await f.caughtUp();
  const replaced = (await f.anvil('eth_getBlockByNumber', [dropped.number, false])) as { hash: string };
  expect(replaced.hash).not.toBe(dropped.hash);
  return { dropped };
}

describe('eth_call answers kept per block, through a reorganisation', () => {
  it('the dropped block’s answer is never served for the new branch’s block of the same number', async () => {
    const { dropped } = await reorgAround(async (dropped) => {
      const before = f.ctx.execution.cacheStats();
      expect(await f.ours('eth_call', viewArgs('latest'))).toBe(word(11n));
      expect(await f.ours('eth_call', viewArgs(dropped.number))).toBe(word(11n));
      // The second ask (by number: the same block) was the kept answer.
      expect(f.ctx.execution.cacheStats()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1 });
    });
    expect(await f.anvil('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs('latest'))).toBe(word(22n));
    expect(await f.ours('eth_call', viewArgs('pending'))).toBe(word(22n));
  });

  it('eth_estimateGas answers kept per block, through a reorganisation: the new branch’s estimate, never the dropped one’s', async () => {
    let balanceThen = 0n;
    const { dropped } = await reorgAround(async (dropped) => {
      balanceThen = BigInt((await f.anvil('eth_getBalance', [watched, dropped.number])) as string);
      const before = f.ctx.execution.estimateCacheStats();
      const first = BigInt((await f.ours('eth_estimateGas', loopArgs('latest'))) as string);
      expect(first).toSatisfy(estimateFor(balanceThen));
      expect(await f.ours('eth_estimateGas', loopArgs(dropped.number))).toBe(`0x${first.toString(16)}`);
      expect(f.ctx.execution.estimateCacheStats()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1 });
    });
    // The new branch paid 22 wei where the dropped one paid 11: 11 turns more, 440 gas, more than
    // the search's 1.5 %, so the dropped block's estimate cannot pass for the new one's.
    const balanceNow = BigInt((await f.anvil('eth_getBalance', [watched, dropped.number])) as string);
    expect(balanceNow - balanceThen).toBe(11n);
    const fresh = BigInt((await f.ours('eth_estimateGas', loopArgs('pending'))) as string); // never kept
    expect(fresh).toSatisfy(estimateFor(balanceNow));
    expect(BigInt((await f.ours('eth_estimateGas', loopArgs(dropped.number))) as string)).toBe(fresh);
    expect(BigInt((await f.ours('eth_estimateGas', loopArgs('latest'))) as string)).toBe(fresh);
  });
});
