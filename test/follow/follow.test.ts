import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { type Hex, keccak256, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { initDatadir } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { type EthereumApi, ethereumMethods } from '../../src/methods/ethereum.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { recordingLog } from '../helpers/recordingLog.js';
import { testConfig } from '../helpers/testConfig.js';
import { methodsOf } from '../helpers/typedClient.js';
import { until } from '../helpers/until.js';

/**
 * Following anvil (issues 16 and 27): a datadir with only the genesis follows an anvil that mined
 * the `state` scenario, then blocks anvil mines while it follows — bursts of evm_mine and automined
 * transactions in one second, which share their parent's timestamp —, then anvil's own
 * reorganisations (evm_revert, anvil_reorg, anvil_rollback), after which anvil mines with a stale
 * base fee. anvil runs as users run it: no timestamp interval, no base fee set by hand. After each
 * step every canonical hash equals anvil's, and what the dropped branch held is gone: its
 * transactions are null by hash wherever anvil says so. anvil has no debug_getRawBlock, so every
 * block is rebuilt from its JSON and checked by hash.
 */

const describe = describeWithFoundry(['anvil'], 'following an upstream node');
const tmp = tempDir('tracenode-follow-');
let built: BuiltChain;
let chain: EthereumChain;
let ctx: EthContext;
let follower: Follower;
const { lines, log } = recordingLog();
let heads = 0;
let reorgs = 0;

const alice = accountFor('alice');
const signer = privateKeyToAccount(alice.privateKey);
const bob = accountFor('bob').address;

beforeAll(async () => {
  built = await buildAnvilChain({ outDir: join(tmp.dir, 'anvil'), scenario: 'state', keepRunning: true });
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), config);
  chain = await openChain(datadir, config.caches);
  ctx = await createEthContext(chain, 'test', config);
  follower = new Follower(chain, new Upstream(built.anvil!.url, { requestTimeoutMs: 10_000 }), {
    settings: config.follow,
    importSettings: config.import,
    log,
    onHead: (reorg) => {
      heads++;
      if (reorg) reorgs++;
    },
  });
  follower.start();
}, 180_000);

afterAll(async () => {
  await follower?.stop();
  await ctx?.evm.close();
  await chain?.close();
  await built?.anvil?.stop();
  tmp.cleanup();
});

const anvil = (method: string, params: unknown[] = []) => rawResult(built.anvil!.url, method, params);
/** Mines a block as anvil does by default (its timestamp may repeat the parent's; after a revert its base fee is stale). */
const mine = () => anvil('evm_mine');

const anvilHead = async () => BigInt((await anvil('eth_blockNumber')) as string);

/** Waits until our head is anvil's head block (number and hash). */
async function caughtUp(timeoutMs = 30_000): Promise<bigint> {
  const read = async () => {
    const target = await anvilHead();
    const theirs = ((await anvil('eth_getBlockByNumber', [`0x${target.toString(16)}`, false])) as { hash: string }).hash;
    return { target, theirs, head: await chain.store.head() };
  };
  const { target } = await until(
    'caught up with anvil',
    read,
    ({ target, theirs, head }) => head?.number === target && bytesToHex(head.hash) === theirs,
    timeoutMs,
    () =>
      lines
        .filter((l) => l.includes('retrying'))
        .slice(-2)
        .join(' | '),
  );
  return target;
}

/** Every canonical hash from 0 to anvil's head equals anvil's. */
async function expectSameChain(): Promise<void> {
  const target = await caughtUp();
  for (let n = 0n; n <= target; n++) {
    const theirs = ((await anvil('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { hash: string }).hash;
    const ours = await chain.store.canonicalHash(n);
    expect(ours && bytesToHex(ours), `block ${n}`).toBe(theirs);
  }
}

/** Signs and sends a transfer from alice; returns its hash. */
async function sendTransfer(value: bigint): Promise<Hex> {
  return (await anvil('eth_sendRawTransaction', [await signTransfer(value)])) as Hex;
}

/** A transfer from alice at her pending nonce (+ `ahead`), signed. */
async function signTransfer(value: bigint, ahead = 0): Promise<Hex> {
  const nonce = Number(BigInt((await anvil('eth_getTransactionCount', [alice.address, 'pending'])) as string)) + ahead;
  return signer.signTransaction({
    chainId: built.chainId,
    type: 'eip1559',
    nonce,
    to: bob,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei('100'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
}

/** anvil's blocks from..to as it holds them. */
async function anvilBlocks(from: bigint, to: bigint): Promise<Array<{ hash: string; timestamp: string; baseFeePerGas: string }>> {
  const out: Array<{ hash: string; timestamp: string; baseFeePerGas: string }> = [];
  for (let n = from; n <= to; n++) out.push((await anvil('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as never);
  return out;
}

/** Lines of the header rule `rule` reported (once per rule for the follower's life). */
const reported = (rule: string) => lines.filter((l) => l.startsWith(`warn block breaks the ${rule} header rule`));

const ours = () => methodsOf<EthereumApi, EthContext>(ethereumMethods, ctx);
const ethGetTx = (hash: string) => ours().request('eth_getTransactionByHash', [hash]);

describe('following anvil', () => {
  it('catches up from the genesis: every canonical hash equals anvil’s', async () => {
    await expectSameChain();
    expect(heads).toBe(built.blocks.length - 1);
    expect(lines).toContain('info upstream has no debug_getRawBlock: blocks are rebuilt from eth_getBlockByNumber and checked against their hash');
  });

  it('follows blocks anvil mines while it follows; balances at latest equal anvil’s', async () => {
    for (let i = 0; i < 3; i++) {
      const hash = await sendTransfer(BigInt(1000 + i));
      await mine();
      await caughtUp();
      expect((await ethGetTx(hash))?.hash).toBe(hash);
    }
    await expectSameChain();
    expect(await ours().request('eth_getBalance', [bob, 'latest'])).toBe(await anvil('eth_getBalance', [bob, 'latest']));
  });

  it('a burst of evm_mine calls: blocks that repeat their parent’s timestamp are followed, the rule reported once and counted', async () => {
    const from = (await anvilHead()) + 1n;
    const before = follower.status().headerDeviations?.timestamp ?? 0;
    for (let i = 0; i < 4; i++) await mine();
    await expectSameChain();
    const blocks = await anvilBlocks(from - 1n, from + 3n);
    const repeated = blocks.filter((b, i) => i > 0 && BigInt(b.timestamp) <= BigInt(blocks[i - 1].timestamp)).length;
    // anvil gives every block mined within one second that second's timestamp.
    expect(repeated).toBeGreaterThan(0);
    expect((follower.status().headerDeviations?.timestamp ?? 0) - before).toBe(repeated);
    expect(reported('timestamp')).toHaveLength(1);
  });

  it('automine: transfers sent in a row are mined one block each, at once, and followed', async () => {
    await anvil('evm_setAutomine', [true]);
    try {
      const from = (await anvilHead()) + 1n;
      const hashes: Hex[] = [];
      for (let i = 0; i < 3; i++) hashes.push(await sendTransfer(BigInt(500 + i)));
      // anvil answers the send before its miner task has mined the block: wait for the third.
      await until('anvil mined the third block', anvilHead, (h) => h >= from + 2n);
      expect(await anvilHead()).toBe(from + 2n);
      await expectSameChain();
      for (const hash of hashes) expect((await ethGetTx(hash))?.hash).toBe(hash);
    } finally {
      await anvil('evm_setAutomine', [false]);
    }
  });

  for (const depth of [1, 3, 20]) {
    it(`a reorganisation of depth ${depth} (evm_snapshot, blocks, evm_revert, a longer branch): the chain switches in one write`, async () => {
      const before = reorgs;
      const snapshot = await anvil('evm_snapshot');
      const forkedAt = await anvilHead();
      // The branch that will be dropped: a transfer in each block.
      const dropped: Hex[] = [];
      for (let i = 0; i < depth; i++) {
        dropped.push(await sendTransfer(BigInt(7 + i)));
        await mine();
      }
      await caughtUp();
      expect(await anvil('evm_revert', [snapshot])).toBe(true);
      // The branch that replaces it: one block longer, other transfers.
      const kept: Hex[] = [];
      for (let i = 0; i <= depth; i++) {
        kept.push(await sendTransfer(BigInt(100 + i)));
        await mine();
      }
      await expectSameChain();
      expect(reorgs).toBe(before + 1);
      // What anvil no longer has, we no longer have; what it has, we have in the same block.
      for (const hash of [...dropped, ...kept]) {
        const theirs = (await anvil('eth_getTransactionByHash', [hash])) as { blockHash: string } | null;
        const mine = await ethGetTx(hash);
        expect(mine?.blockHash ?? null, hash).toBe(theirs?.blockHash ?? null);
      }
      expect((await Promise.all(dropped.map(ethGetTx))).filter((t) => t !== null).length).toBe(0);
      // trace_filter over the replaced heights names the new branch's transfers only (the address
      // index still lists the dropped blocks' heights; their canonical blocks no longer match).
      const from = `0x${(forkedAt + 1n).toString(16)}`;
      const traces = await ours().request('trace_filter', [{ fromBlock: from, toBlock: 'latest', toAddress: [bob] }]);
      expect(traces.map((t) => t.transactionHash)).toEqual(kept);
      expect(await ours().request('eth_getBalance', [bob, 'latest'])).toBe(await anvil('eth_getBalance', [bob, 'latest']));
    });
  }

  it('anvil_reorg: its replacement blocks (parent’s timestamp, a transfer in the second) are followed in one switch', async () => {
    for (let i = 0; i < 3; i++) await mine();
    await caughtUp();
    const before = reorgs;
    const head = await anvilHead();
    const raw = await signTransfer(4242n);
    await anvil('anvil_reorg', [3, [[raw, 1]]]);
    expect(await anvilHead()).toBe(head);
    await expectSameChain();
    expect(reorgs).toBe(before + 1);
    const hash = keccak256(raw);
    const theirs = (await anvil('eth_getTransactionByHash', [hash])) as { blockHash: string; blockNumber: string };
    expect(BigInt(theirs.blockNumber)).toBe(head - 1n);
    expect((await ethGetTx(hash))?.blockHash).toBe(theirs.blockHash);
  });

  it('after evm_revert and anvil_reorg anvil mines with a stale base fee: followed, the rule reported once', () => {
    expect(follower.status().headerDeviations?.baseFee ?? 0).toBeGreaterThan(0);
    expect(reported('baseFee')).toHaveLength(1);
  });

  it('anvil_rollback: blocks above anvil’s new head are dropped', async () => {
    for (let i = 0; i < 2; i++) await mine();
    await caughtUp();
    const head = await anvilHead();
    await anvil('anvil_rollback', [2]);
    expect(await anvilHead()).toBe(head - 2n);
    await expectSameChain();
    expect(await chain.store.canonicalHash(head)).toBeUndefined();
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });
});
