import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
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
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * #39: the eth_call result cache through anvil's reorganisations. A call at `latest` is answered
 * from the cache while the head stays; once anvil drops the block (evm_revert, then a longer
 * branch) and the follower switches, the same call at `latest`, and at the dropped block's number,
 * answers the new branch's state — anvil's own answer — never the one kept for the dropped block.
 */
const describe = describeWithFoundry(['anvil'], 'the eth_call cache through a reorganisation');
const tmp = tempDir('tracenode-call-cache-reorg-');
let built: BuiltChain;
let chain: EthereumChain;
let ctx: EthContext;
let follower: Follower;

const alice = accountFor('alice');
const signer = privateKeyToAccount(alice.privateKey);
const watched = accountFor('call-cache-reorg').address.toLowerCase() as Hex;
const VIEW = '0x00000000000000000000000000000000000c0de1';
/** BALANCE(watched), returned as one word: the view the cached call runs (as a state override). */
const BALANCE_VIEW = `0x73${watched.slice(2)}3160005260206000f3`;

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
  await until(
    'caught up with anvil',
    async () => {
      const target = (await anvil('eth_getBlockByNumber', ['latest', false])) as { hash: string };
      const head = await chain.store.head();
      return head !== undefined && bytesToHex(head.hash) === target.hash;
    },
    (same) => same,
  );
}

async function pay(to: Hex, value: bigint): Promise<void> {
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
  await anvil('eth_sendRawTransaction', [raw]);
  await anvil('evm_mine');
}

const viewArgs = (block: string) => [{ to: VIEW }, block, { [VIEW]: { code: BALANCE_VIEW } }];
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

describe('eth_call answers kept per block, through a reorganisation', () => {
  it('the dropped block’s answer is never served for the new branch’s block of the same number', async () => {
    const snapshot = await anvil('evm_snapshot');
    await pay(watched, 11n);
    await caughtUp();
    const dropped = (await anvil('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
    const before = ctx.execution.cacheStats();
    expect(await ours('eth_call', viewArgs('latest'))).toBe(word(11n));
    expect(await ours('eth_call', viewArgs(dropped.number))).toBe(word(11n));
    // The second ask (by number: the same block) was the kept answer.
    expect(ctx.execution.cacheStats()).toMatchObject({ hits: before.hits + 1, misses: before.misses + 1 });

    expect(await anvil('evm_revert', [snapshot])).toBe(true);
    await pay(watched, 22n);
    await pay(alice.address as Hex, 1n);
    await caughtUp();
    const replaced = (await anvil('eth_getBlockByNumber', [dropped.number, false])) as { hash: string };
    expect(replaced.hash).not.toBe(dropped.hash);
    expect(await anvil('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await ours('eth_call', viewArgs(dropped.number))).toBe(word(22n));
    expect(await ours('eth_call', viewArgs('latest'))).toBe(word(22n));
    expect(await ours('eth_call', viewArgs('pending'))).toBe(word(22n));
  });
});
