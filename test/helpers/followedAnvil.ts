import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvil/buildAnvilChain.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { Follower } from '../../src/follow/follower.js';
import { Upstream } from '../../src/follow/upstream.js';
import { initDatadir } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { rawResult } from './anvilPeer.js';
import { testConfig } from './testConfig.js';
import { until } from './until.js';

/**
 * An anvil of the `state` scenario and a datadir of its genesis that a {@link Follower} keeps
 * level with it (polled every 50 ms), with a method context on that datadir: the set-up of the
 * tests that make anvil reorganise (evm_snapshot/evm_revert, anvil_reorg, anvil_rollback) and
 * check what tracenode serves afterwards.
 */
export interface FollowedAnvil {
  built: BuiltChain;
  chain: EthereumChain;
  ctx: EthContext;
  /** A JSON-RPC call to anvil; its result. */
  anvil(method: string, params?: unknown[]): Promise<unknown>;
  /** One of tracenode's methods on the followed datadir; its result. */
  ours(method: string, params: unknown[]): Promise<unknown>;
  /** Resolves once the datadir's head is anvil's latest block (number and hash). */
  caughtUp(): Promise<void>;
  /** Sends `value` wei from alice to `to` and mines it in a block of its own; the transaction's hash. */
  pay(to: Hex, value: bigint): Promise<Hex>;
  close(): Promise<void>;
}

export async function followAnvil(dir: string): Promise<FollowedAnvil> {
  const built = await buildAnvilChain({ outDir: join(dir, 'anvil'), scenario: 'state', keepRunning: true });
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });
  const datadir = join(dir, 'data');
  await initDatadir(datadir, readFileSync(built.genesisPath, 'utf8'), config);
  const chain = await openChain(datadir, config.caches);
  const ctx = await createEthContext(chain, 'test', config);
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  const follower = new Follower(chain, new Upstream(built.anvil!.url, { requestTimeoutMs: 10_000 }), {
    settings: config.follow,
    importSettings: config.import,
    log,
  });
  follower.start();
  const anvil = (method: string, params: unknown[] = []) => rawResult(built.anvil!.url, method, params);
  const alice = accountFor('alice');
  const signer = privateKeyToAccount(alice.privateKey);
  const followed: FollowedAnvil = {
    built,
    chain,
    ctx,
    anvil,
    ours: (method, params) => ethereumMethods.get(method)!.call(ctx, params),
    async caughtUp() {
      await until(
        'caught up with anvil',
        async () => {
          const latest = (await anvil('eth_getBlockByNumber', ['latest', false])) as { hash: string };
          const head = await chain.store.head();
          return head !== undefined && bytesToHex(head.hash) === latest.hash;
        },
        (same) => same,
      );
    },
    async pay(to, value) {
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
    },
    async close() {
      await follower.stop();
      await ctx.evm.close();
      await chain.close();
      await built.anvil?.stop();
    },
  };
  await followed.caughtUp();
  return followed;
}
