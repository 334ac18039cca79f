import type { BlockHeader } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { DB } from '@ethereumjs/util';
import { evmBlockchain } from '../../chain/blockHashes.js';
import type { ChainStore } from '../../chain/store.js';
import { raceFetchOnMiss } from '../../state/fetchOnMiss.js';
import type { StateReadCache } from '../../state/readCache.js';
import type { EvmPool } from '../evmPool.js';
import type { Forks } from '../forks.js';
import { assembleBlock } from './assemble.js';
import { blockEnv, type ParentBlock, planChain, type SimBlock } from './plan.js';
import type { SimulatedBlock } from './result.js';
import { runSimulatedBlock, type SimulationRun } from './runBlock.js';
import { SimulationState } from './simState.js';

/**
 * eth_simulateV1 as geth runs it (ethereum/go-ethereum `internal/ethapi/simulate.go`): a chain of
 * blocks on top of a stored block, each with block overrides, state overrides and calls run as
 * transactions (nonces, gas refunds, tips to the fee recipient, EIP-161 clean-up), assembled into
 * blocks whose roots and hashes are computed as a client computes them: the state trie (an
 * in-memory overlay over the archive's trie), the transactions of the unsigned transactions geth
 * builds of the calls, the receipts, the withdrawals and the EIP-7685 requests hash.
 *
 * The parts: `plan.ts` (the chain of blocks and each one's header fields before its calls),
 * `runBlock.ts` (a block's overrides, system writes, calls and credits), `transferLogs.ts` (the
 * logs of the calls, ETH transfers included), `systemCalls.ts` (EIP-4788/2935 writes, EIP-6110/
 * 7002/7251 requests), `assemble.ts` (transactions, receipts, roots, bloom, header), `errors.ts`.
 */

export type { SimBlock } from './plan.js';

/** A decoded eth_simulateV1 request. */
export interface SimulateRequest {
  blocks: SimBlock[];
  /** ETH transfers as ERC-7528 logs. */
  traceTransfers: boolean;
  /** Nonces and fee caps checked as for a transaction; the base fee follows EIP-1559. */
  validation: boolean;
}

/** What a simulation needs of the engine and the worker. */
export interface SimulateDeps {
  store: ChainStore;
  /** The network's shared cache of archived accounts, slots and code. */
  reads: StateReadCache;
  /** The archive's trie nodes (read only; a simulation's nodes stay in its own overlay). */
  stateDb: DB<string, string | Uint8Array>;
  forks: Forks;
  evms: EvmPool;
  /** The gas all calls of the request may use together (geth's `--rpc.gascap` budget). */
  gasBudget: bigint;
  /** The EIP-6110 deposit contract (geth's `DepositContractAddress`). */
  depositContract: Uint8Array;
}

/**
 * Runs a simulation on top of `base`, at most `maxBlocks` blocks past it, and returns its blocks.
 * Throws {@link SimulateError} for the failures geth gives a code of their own, `CallError` for
 * the others.
 */
export async function simulate(deps: SimulateDeps, base: BlockHeader, req: SimulateRequest, maxBlocks: number): Promise<SimulatedBlock[]> {
  const planned = planChain(base, req.blocks, maxBlocks);
  const first = planned[0];
  if (first === undefined) return [];
  const hashes = new Map<bigint, Uint8Array>([[base.number, base.hash()]]);
  let parent: ParentBlock = { header: base, hash: base.hash(), coinbase: base.coinbase.bytes, gasLimit: base.gasLimit, difficulty: base.difficulty };
  const firstEnv = blockEnv(first, parent, base, deps.forks, req.validation);
  const run: SimulationRun = {
    sm: await SimulationState.open(deps.reads, base.stateRoot, deps.stateDb),
    chain: simulatedBlockHashes(deps.store, base, hashes),
    evms: deps.evms,
    deadline: deps.evms.deadline(),
    budget: { remaining: deps.gasBudget },
    depositContract: deps.depositContract,
    traceTransfers: req.traceTransfers,
    validation: req.validation,
  };
  const blocks: SimulatedBlock[] = [];
  for (const block of planned) {
    const env = block === first ? firstEnv : blockEnv(block, parent, base, deps.forks, req.validation);
    // In an archive from block N, a failed fetch of what the datadir lacks ends the run (`state/fetchOnMiss.ts`).
    const done = await raceFetchOnMiss(run.sm, runSimulatedBlock(run, block, env, parent.hash));
    const { block: simulated, header } = await assembleBlock(env, done, await raceFetchOnMiss(run.sm, run.sm.getStateRoot()), parent.hash);
    hashes.set(simulated.number, simulated.hash);
    blocks.push(simulated);
    parent = { header, hash: simulated.hash, coinbase: env.ctx.coinbase, gasLimit: env.ctx.gasLimit, difficulty: env.ctx.difficulty };
  }
  return blocks;
}

/**
 * BLOCKHASH in a simulation: the simulated blocks' hashes (`hashes`, filled as they are made) and
 * the base's, canonical hashes below the base, zero for blocks not simulated yet.
 */
function simulatedBlockHashes(store: ChainStore, base: BlockHeader, hashes: ReadonlyMap<bigint, Uint8Array>): EVMMockBlockchainInterface {
  const canonical = evmBlockchain(store);
  const zero = new Uint8Array(32);
  const chain: EVMMockBlockchainInterface = {
    async getBlock(n: number | bigint) {
      const number = BigInt(n);
      const hash = hashes.get(number);
      if (hash !== undefined) return { hash: () => hash };
      if (number < base.number) return canonical.getBlock(Number(number));
      return { hash: () => zero };
    },
    putBlock: canonical.putBlock,
    shallowCopy: () => chain,
  };
  return chain;
}
