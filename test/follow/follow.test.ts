import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex } from '@ethereumjs/util';
import { type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mineWithEip1559BaseFee } from '../../scripts/anvil/bareAnvil.js';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { initDatadir } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Following anvil (issue 16): a datadir with only the genesis follows an anvil that mined the
 * `state` scenario, then blocks anvil mines while it follows, then anvil's own reorganisations
 * (anvil_reorg, anvil_rollback). After each step every canonical hash equals anvil's, and what the
 * dropped branch held is gone: its transactions are null by hash wherever anvil says so.
 * anvil has no debug_getRawBlock, so every block is rebuilt from its JSON and checked by hash.
 */

const describe = describeWithFoundry(['anvil'], 'following an upstream node');
const tmp = tempDir('tracenode-follow-');
let built: BuiltChain;
let chain: EthereumChain;
let ctx: EthContext;
let follower: Follower;
const lines: string[] = [];
const log = {
  info: (_o: object, m: string) => lines.push(`info ${m}`),
  warn: (o: object, m: string) => lines.push(`warn ${m} ${JSON.stringify(o)}`),
  error: (o: object, m: string) => lines.push(`error ${m} ${JSON.stringify(o)}`),
  debug: () => undefined,
};
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
  // anvil's clock was set back to mine the scenario at fixed timestamps: without an interval, the
  // blocks it mines next (evm_mine, anvil_reorg) can repeat their parent's timestamp, which no
  // consensus rule allows (geth: "timestamp older than parent") and tracenode refuses.
  await anvil('anvil_setBlockTimestampInterval', [12]);
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
/** Mines a block with the base fee EIP-1559 gives it (anvil keeps a stale one after evm_revert and anvil_reorg). */
const mine = () => mineWithEip1559BaseFee(anvil);

const anvilHead = async () => BigInt((await anvil('eth_blockNumber')) as string);

/** Waits until our head is anvil's head block (number and hash). */
async function caughtUp(timeoutMs = 15_000): Promise<bigint> {
  const t0 = Date.now();
  for (;;) {
    const target = await anvilHead();
    const theirs = ((await anvil('eth_getBlockByNumber', [`0x${target.toString(16)}`, false])) as { hash: string }).hash;
    const head = await chain.store.head();
    if (head && head.number === target && bytesToHex(head.hash) === theirs) return target;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(
        `not caught up: head ${head?.number}, anvil ${target}; log: ${lines
          .filter((l) => l.includes('retrying'))
          .slice(-2)
          .join(' | ')}`,
      );
    await sleep(50);
  }
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
  const nonce = Number(BigInt((await anvil('eth_getTransactionCount', [alice.address, 'pending'])) as string));
  const raw = await signer.signTransaction({
    chainId: built.chainId,
    type: 'eip1559',
    nonce,
    to: bob,
    value,
    gas: 21_000n,
    maxFeePerGas: parseGwei('100'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
  return (await anvil('eth_sendRawTransaction', [raw])) as Hex;
}

const ethGetTx = (hash: string) => ethereumMethods.get('eth_getTransactionByHash')!.call(ctx, [hash]);

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
      expect(((await ethGetTx(hash)) as { hash: string }).hash).toBe(hash);
    }
    await expectSameChain();
    const ours = await ethereumMethods.get('eth_getBalance')!.call(ctx, [bob, 'latest']);
    expect(ours).toBe(await anvil('eth_getBalance', [bob, 'latest']));
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
        const ours = (await ethGetTx(hash)) as { blockHash: string } | null;
        expect(ours?.blockHash ?? null, hash).toBe(theirs?.blockHash ?? null);
      }
      expect((await Promise.all(dropped.map(ethGetTx))).filter((t) => t !== null).length).toBe(0);
      // trace_filter over the replaced heights names the new branch's transfers only (the address
      // index still lists the dropped blocks' heights; their canonical blocks no longer match).
      const from = `0x${(forkedAt + 1n).toString(16)}`;
      const traces = (await ethereumMethods.get('trace_filter')!.call(ctx, [{ fromBlock: from, toBlock: 'latest', toAddress: [bob] }])) as Array<{
        transactionHash: string;
      }>;
      expect(traces.map((t) => t.transactionHash)).toEqual(kept);
      const ours = await ethereumMethods.get('eth_getBalance')!.call(ctx, [bob, 'latest']);
      expect(ours).toBe(await anvil('eth_getBalance', [bob, 'latest']));
    });
  }

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
