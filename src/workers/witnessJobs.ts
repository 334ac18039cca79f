import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import type { StateReader } from '../state/stateReader.js';
import { type ExecutionWitness, executionWitness, type WitnessOptions } from '../tracing/witness.js';
import type { JobOptions } from './pool.js';

/**
 * The EVM workers' witness jobs (debug_executionWitness): a stored block executed again on its
 * parent's state, recording what it read (`tracing/witness.ts`), so a large block never holds
 * the thread that serves clients.
 */

/** A witness job: the block by hash, with the limits of the run. */
export type WitnessJob = { kind: 'executionWitness'; block: Uint8Array; opts: WitnessOptions };

/** A witness as it crosses the thread boundary: headers by hash (a header object does not survive cloning). */
interface WitnessMessage {
  nodes: Uint8Array[];
  codes: Uint8Array[];
  headers: Uint8Array[];
}

/** In the worker: runs a witness job. */
export async function runWitnessJob(job: WitnessJob, env: { chain: EthereumChain; state: StateReader }): Promise<WitnessMessage> {
  const block = await env.chain.store.blockByHash(job.block);
  if (!block) throw new Error('block of the witness not found');
  const witness = await executionWitness(env.chain, env.state.db, block, job.opts);
  return { nodes: witness.nodes, codes: witness.codes, headers: witness.headers.map((h) => h.hash()) };
}

/** debug_executionWitness as the method sees it: the witness of a stored block other than the genesis. */
export type WitnessRunner = (block: Block, job?: JobOptions) => Promise<ExecutionWitness>;

/**
 * The runner over the pool, with the debug tracers' settings: each transaction of the block (and
 * its work outside them) may run `tracing.debugTimeoutMs` (geth's 5 s tracer timeout), the
 * answer may hold `tracing.debugMaxResultBytes`, and the job's watchdog is the replay watchdog
 * plus those timeouts.
 */
export function witnessRunner(run: (job: WitnessJob, opts: JobOptions) => Promise<unknown>, chain: EthereumChain, settings: Config['tracing']): WitnessRunner {
  return async (block, job = {}) => {
    const opts: WitnessOptions = { timeoutMs: settings.debugTimeoutMs, maxResultBytes: settings.debugMaxResultBytes };
    const watchdogMs = settings.replayTimeoutMs + settings.debugTimeoutMs * (block.transactions.length + 1);
    const message = (await run({ kind: 'executionWitness', block: block.hash(), opts }, { ...job, watchdogMs })) as WitnessMessage;
    const headers: BlockHeader[] = [];
    for (const hash of message.headers) {
      const header = await chain.store.headerByHash(hash);
      if (!header) throw new Error(`witness header ${bytesToHex(hash)} not found`);
      headers.push(header);
    }
    return { nodes: message.nodes, codes: message.codes, headers };
  };
}
