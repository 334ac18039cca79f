import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { Account, Address } from '@ethereumjs/util';
import type { CallRequest } from '../callArgs.js';
import { CallError, MessageError } from '../callResult.js';
import type { EvmPool } from '../evmPool.js';
import { callMessage } from '../message.js';
import { applyStateOverrides, type PrecompileEdit, precompileEdits } from '../stateOverrides.js';
import { applyMessage } from '../transition.js';
import { type BlockRun, simulatedTransaction } from './assemble.js';
import { invalidMessageKind, SimulateError } from './errors.js';
import type { PlannedBlock, SimBlockEnv } from './plan.js';
import type { SimulationState } from './simState.js';
import { blockRequests, storeParentRoots } from './systemCalls.js';
import { attachTracer, LogTracer } from './transferLogs.js';

/**
 * One simulated block run on the simulation's state, as geth's simulator processes it
 * (ethereum/go-ethereum `internal/ethapi/simulate.go` processBlock): the block's state overrides,
 * the system writes before the calls, each call run as a transaction (nonce checked with
 * `validation`, fees paid, unused gas refunded, touched empty accounts removed), the block's
 * requests, then ethash's reward before the merge and the withdrawals.
 */

/** What every block of one simulation shares. */
export interface SimulationRun {
  /** The simulated chain's state: a write overlay over the base block's state, with its roots. */
  sm: SimulationState;
  /** BLOCKHASH: the simulated blocks' hashes, canonical ones below the base. */
  chain: EVMMockBlockchainInterface;
  evms: EvmPool;
  /** One deadline for the whole request, as geth's RPCEVMTimeout covers the whole simulation. */
  deadline: number;
  /** The gas the request's calls may still use together (geth's `--rpc.gascap` budget). */
  budget: { remaining: bigint };
  depositContract: Uint8Array;
  traceTransfers: boolean;
  validation: boolean;
}

const GWEI = 1_000_000_000n;

/**
 * Runs `block`'s overrides, system writes and calls on the simulation's state (`env` from
 * `plan.ts`); `parentHash` is the hash of the block before. Throws {@link SimulateError} when a
 * call cannot be included, {@link CallError} when the request's gas budget runs out.
 */
export async function runSimulatedBlock(run: SimulationRun, block: PlannedBlock, env: SimBlockEnv, parentHash: Uint8Array): Promise<BlockRun> {
  const { ctx } = env;
  const { sm } = run;
  // state overrides: checks and precompile moves of this block, then the account edits
  const edits = precompileEdits(ctx.fork, block.stateOverrides);
  await applyStateOverrides(sm, block.stateOverrides);
  await storeParentRoots(sm, ctx, env.beaconRoot, parentHash);
  const out: BlockRun = { txs: [], receipts: [], calls: [], logs: [], requests: [], gasUsed: 0n, blobGasUsed: 0n };
  const tracer = new LogTracer(run.traceTransfers);
  await run.evms.withEvm(
    ctx.fork.common,
    edits,
    async (evm) => {
      const detach = attachTracer(evm, tracer);
      try {
        for (const call of block.calls) await runSimulatedCall(run, evm, tracer, env, edits, call, out);
      } finally {
        detach();
      }
      // EIP-7685 requests (Prague): geth's system calls to the request contracts after the calls
      if (ctx.fork.common.isActivatedEIP(7685)) out.requests = await blockRequests(evm, sm, ctx, out.logs, run.depositContract);
    },
    undefined,
    run.deadline,
  );
  await creditBlock(sm, env);
  return out;
}

/** One call of the block run as a transaction on `evm`, its outcome added to `out`. */
async function runSimulatedCall(
  run: SimulationRun,
  evm: EVM,
  tracer: LogTracer,
  env: SimBlockEnv,
  edits: PrecompileEdit[],
  call: CallRequest,
  out: BlockRun,
): Promise<void> {
  const { ctx } = env;
  const { sm, budget } = run;
  tracer.reset();
  const from = call.from ?? new Uint8Array(20);
  const nonce = call.nonce ?? (await sm.getAccount(new Address(from)))?.nonce ?? 0n;
  const pool = ctx.gasLimit - out.gasUsed;
  const wanted = call.gas ?? pool;
  if (pool < wanted) throw new SimulateError('blockGasLimitReached', `block gas limit reached: remaining: ${pool}, required: ${wanted}`);
  const gas = wanted > budget.remaining ? budget.remaining : wanted;
  // geth's CallDefaults (no cap of its own) and ToMessage, without eth_call's waived base fee
  const msg = callMessage({ ...call, gas }, { ...ctx }, gas);
  const fees =
    ctx.baseFee === undefined || call.gasPrice !== undefined
      ? { gasPrice: call.gasPrice ?? 0n }
      : { maxFeePerGas: call.maxFeePerGas ?? 0n, maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n };
  const tx = simulatedTransaction(
    { ...call, ...fees, nonce, gas, value: msg.value, chainId: ctx.fork.common.chainId(), maxFeePerBlobGas: msg.blobFeeCap },
    from,
  );
  sm.originalStorageCache.clear();
  let result: Awaited<ReturnType<typeof applyMessage>>;
  try {
    result = await applyMessage(evm, sm, run.chain, { ctx, msg, state: [], precompileEdits: edits }, msg.gasLimit, {
      nonce: run.validation ? nonce : undefined,
      noBaseFee: !run.validation,
      settle: true,
    });
  } catch (err) {
    if (err instanceof MessageError) throw new SimulateError(invalidMessageKind(err.reason), err.message);
    throw err;
  }
  if (result.gasUsed > budget.remaining) throw new CallError(`RPC gas cap exhausted: need ${result.gasUsed}, remaining ${budget.remaining}`);
  budget.remaining -= result.gasUsed;
  out.gasUsed += result.gasUsed;
  out.blobGasUsed += BigInt(msg.blobHashes?.length ?? 0) * ctx.fork.params.blobGasPerBlob;
  const { logs: runLogs, ...outcome } = result;
  const success = outcome.failure === undefined;
  const logs = success ? (runLogs ?? []) : [];
  out.receipts.push({ type: tx.type, success, cumulativeGasUsed: out.gasUsed, logs });
  out.txs.push(tx);
  out.logs.push(...logs);
  out.calls.push({ result: outcome, logs: tracer.logs(), gasCapped: gas < wanted });
}

/**
 * After the calls: before the merge, ethash's block reward to the coinbase (geth's beacon engine
 * finalises a header with a difficulty as ethash does; no uncles here), then the withdrawals (gwei).
 */
async function creditBlock(sm: StateManagerInterface, env: SimBlockEnv): Promise<void> {
  const { ctx } = env;
  const { common } = ctx.fork;
  if (ctx.difficulty !== 0n && !common.gteHardfork('paris')) {
    // ethash's block reward: 5 ether, 3 from Byzantium (EIP-649), 2 from Constantinople (EIP-1234)
    const reward = common.gteHardfork('constantinople') ? 2n * 10n ** 18n : common.gteHardfork('byzantium') ? 3n * 10n ** 18n : 5n * 10n ** 18n;
    await credit(sm, ctx.coinbase, reward);
  }
  for (const w of env.withdrawals) await credit(sm, w.address, w.amount * GWEI);
}

async function credit(sm: StateManagerInterface, to: Uint8Array, amount: bigint): Promise<void> {
  const address = new Address(to);
  const account = (await sm.getAccount(address)) ?? new Account();
  account.balance += amount;
  await sm.putAccount(address, account);
}
