import type { BlockHeader } from '@ethereumjs/block';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { Address, type DB } from '@ethereumjs/util';
import type { ChainStore } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import type { StateReadCache } from '../state/readCache.js';
import { type AccessListResult, buildAccessList } from './accessList.js';
import { blockContext } from './blockContext.js';
import type { AccountOverride, BlockOverrides, CallRequest } from './callArgs.js';
import { CallError, type CallResult, MessageError } from './callResult.js';
import { INTRINSIC_GAS_TOO_LOW, searchGasLimit } from './estimate.js';
import { ESTIMATE_EVMS, type EstimateProbe, resetProbe } from './estimateProbe.js';
import { type EvmFlavour, EvmPool } from './evmPool.js';
import { Forks } from './forks.js';
import { callMessage } from './message.js';
import type { SimulatedBlock } from './simulate/result.js';
import { type SimulateRequest, simulate } from './simulate/simulate.js';
import { overriddenState, precompileEdits } from './stateOverrides.js';
import { type PreparedCall, runMessage } from './transition.js';

/**
 * The call engine: runs a message on the archived state of a block the way geth's `eth_call` and
 * `eth_estimateGas` do (ethereum/go-ethereum `internal/ethapi/api.go` doCall,
 * `internal/ethapi/transaction_args.go` CallDefaults/ToMessage, `core/state_transition.go` with
 * SkipNonceChecks, SkipTransactionChecks and NoBaseFee, `eth/gasestimator`), on top of the
 * @ethereumjs/evm interpreter.
 *
 * Each run gets its own overlay of the state, so nothing it writes outlives it; reads of archived
 * state go through one {@link StateReadCache} shared by all calls. What is expensive to build is
 * built once and reused: the rules of each hardfork (`forks.ts`) and EVM instances, pooled per
 * hardfork (`evmPool.ts`).
 */

/** State and block overrides of one request. */
export interface CallOverrides {
  state?: AccountOverride[];
  block?: BlockOverrides;
}

/** What watches the runs of {@link CallEngine.runSequence}. */
export interface SequenceObserver {
  /** The EVMs the sequence runs on (set up once with the observer's hooks). */
  flavour: EvmFlavour;
  /** The state the sequence runs on, before anything reads it. */
  state(state: StateManagerInterface): void;
  /** Before each run. */
  before(evm: EVM): void;
  /** After each run, with its result and position. */
  after(evm: EVM, result: CallResult, index: number): Promise<void>;
}

/** What the engine needs from an opened chain. */
export interface CallEngineOptions {
  store: ChainStore;
  /** The chain's Common (fork schedule, chain id, crypto); copied per hardfork, never mutated. */
  common: Common;
  /** The network's state read cache (shared with the state methods). */
  reads: StateReadCache;
  /** The `execution` settings: gas cap factor, call timeout, error ratio, EVM pool size. */
  settings: Config['execution'];
  /** The EIP-6110 deposit contract whose logs make deposit requests (eth_simulateV1); zero when unset. */
  depositContract?: Uint8Array;
}

/** Builds a call engine for an opened chain. */
export function createCallEngine(opts: CallEngineOptions): CallEngine {
  return new CallEngine(opts);
}

/** Runs `eth_call` and `eth_estimateGas` requests. Safe for concurrent use. */
export class CallEngine {
  private readonly store: ChainStore;
  private readonly reads: StateReadCache;
  /**
   * The gas cap of a call is this many times the gas limit of the block it runs in. Infura
   * documents "10× the current block gas limit" for eth_call/eth_estimateGas (MetaMask docs,
   * eth_estimateGas, "Gas parameter is capped"); geth's equivalent is the fixed `--rpc.gascap`
   * (50,000,000).
   */
  private readonly capFactor: bigint;
  private readonly errorRatio: number;
  private readonly forks: Forks;
  private readonly evms: EvmPool;
  private readonly simulateGasBudget: bigint;
  private readonly simulateMaxBlocks: number;
  private readonly depositContract: Uint8Array;

  constructor(opts: CallEngineOptions) {
    this.store = opts.store;
    this.reads = opts.reads;
    this.capFactor = BigInt(opts.settings.gasCapFactor);
    this.errorRatio = opts.settings.estimateErrorRatio;
    this.forks = new Forks(opts.common, opts.settings.evmFastPaths);
    this.evms = new EvmPool(opts.store, opts.reads, opts.settings);
    this.simulateGasBudget = BigInt(opts.settings.simulateGasBudget);
    this.simulateMaxBlocks = opts.settings.simulateMaxBlocks;
    this.depositContract = opts.depositContract ?? new Uint8Array(20);
  }

  /** The gas cap at a block: the default and the maximum gas of a call there. */
  gasCap(header: BlockHeader): bigint {
    return header.gasLimit * this.capFactor;
  }

  /**
   * Runs a call at `header` (the state after that block) and returns its result; reverts and EVM
   * failures are results, message-validation failures throw {@link MessageError}, bad overrides
   * and fee-field combinations throw {@link CallError}.
   */
  async call(header: BlockHeader, request: CallRequest, overrides: CallOverrides = {}): Promise<CallResult> {
    const prepared = this.prepare(header, request, overrides);
    return this.evms.withEvm(prepared.ctx.fork.common, prepared.precompileEdits, (evm) =>
      runMessage(evm, this.store, this.reads, prepared, prepared.msg.gasLimit),
    );
  }

  /**
   * The smallest gas limit (within `execution.estimateErrorRatio`, geth's 1.5 %) with which the call succeeds, found by
   * geth's binary search (`estimate.ts`), which asks a call whose path cannot depend on its limit
   * its threshold instead of the EVM (`search.threshold: false` runs every step on the EVM, as the
   * tests compare). Throws {@link ExecutionFailedError} when the call fails for a reason other than
   * gas, and {@link CallError} with geth's texts otherwise.
   */
  async estimateGas(header: BlockHeader, request: CallRequest, overrides: CallOverrides = {}, search: { threshold?: boolean } = {}): Promise<bigint> {
    // geth: a missing gas becomes 0 here, so that the cap is not taken as the caller's own limit.
    const prepared = this.prepare(header, { ...request, gas: request.gas ?? 0n }, overrides);
    const { msg, ctx } = prepared;
    const { params } = ctx.fork;
    return this.evms.withEvm(
      ctx.fork.common,
      prepared.precompileEdits,
      async (evm) => {
        // The upper bound: the caller's gas (else the block's), EIP-7825's cap, what the sender's
        // balance can pay for at the fee cap, and the engine's cap.
        let hi = msg.gasLimit >= params.txGas ? msg.gasLimit : ctx.gasLimit;
        if (params.maxTransactionGasLimit !== undefined && hi > params.maxTransactionGasLimit) hi = params.maxTransactionGasLimit;
        if (msg.feeCap !== 0n) {
          const sm = await overriddenState(this.reads, ctx.header.stateRoot, prepared.state);
          let available = (await sm.getAccount(new Address(msg.from)))?.balance ?? 0n;
          if (msg.value >= available) throw new CallError('insufficient funds for transfer');
          available -= msg.value;
          if (params.blobGasPerBlob !== 0n && msg.blobHashes && msg.blobHashes.length > 0) {
            const blobCost = BigInt(msg.blobHashes.length) * params.blobGasPerBlob * (msg.blobFeeCap ?? 0n);
            if (blobCost >= available) throw new CallError('insufficient funds for gas * price + value');
            available -= blobCost;
          }
          const allowance = available / msg.feeCap;
          if (allowance < 1n << 64n && hi > allowance) hi = allowance;
        }
        const cap = this.gasCap(header);
        if (hi > cap) hi = cap;

        // Runs at `gas`; a gas limit below the intrinsic gas is a failure more gas may fix.
        let probe: EstimateProbe | undefined;
        const attempt = async (gas: bigint): Promise<CallResult> => {
          probe = resetProbe(evm);
          try {
            return await runMessage(evm, this.store, this.reads, prepared, gas);
          } catch (err) {
            if (err instanceof MessageError) {
              if (err.reason.startsWith('intrinsic gas too low')) return INTRINSIC_GAS_TOO_LOW;
              throw new CallError(`failed with ${gas} gas: ${err.reason}`);
            }
            throw err;
          }
        };

        // A plain transfer to an account without code: the search tries the minimum first.
        let transferGas: bigint | undefined;
        if (msg.data.length === 0 && msg.to !== undefined) {
          const sm = await overriddenState(this.reads, ctx.header.stateRoot, prepared.state);
          if ((await sm.getCode(new Address(msg.to))).length === 0) transferGas = params.txGas;
        }
        // The run at the cap could not have taken another path with another limit (`estimate.ts`):
        // no inner message, no GAS, and no fee for the sender's balance to show.
        const noFee = msg.feeCap === 0n && (msg.blobHashes === undefined || msg.blobHashes.length === 0);
        const sameRunAbove = () => noFee && probe !== undefined && probe.innerMessages === 0 && probe.gasReads === 0;
        return searchGasLimit(attempt, hi, this.errorRatio, transferGas, search.threshold === false ? undefined : sameRunAbove);
      },
      ESTIMATE_EVMS,
    );
  }

  /**
   * Runs calls one after another on the state after `header` with the state overrides applied,
   * each on the state the previous left, each settled as a transaction (fees refunded and paid to
   * the coinbase), on an EVM of `observer.flavour`, under one deadline: the engine of ad-hoc
   * tracing (trace_call, trace_callMany), which the observer records. A message-validation
   * failure of any call throws for the whole sequence.
   */
  async runSequence(header: BlockHeader, requests: readonly CallRequest[], overrides: CallOverrides, observer: SequenceObserver): Promise<CallResult[]> {
    const prepared = requests.map((request) => this.prepare(header, request, overrides));
    const first = prepared[0];
    if (first === undefined) return [];
    const state = await overriddenState(this.reads, first.ctx.header.stateRoot, first.state);
    observer.state(state);
    return this.evms.withEvm(
      first.ctx.fork.common,
      first.precompileEdits,
      async (evm) => {
        const results: CallResult[] = [];
        for (const [i, call] of prepared.entries()) {
          observer.before(evm);
          const result = await runMessage(evm, this.store, this.reads, { ...call, state: [] }, call.msg.gasLimit, { state, settle: true });
          await observer.after(evm, result, i);
          results.push(result);
        }
        return results;
      },
      observer.flavour,
    );
  }

  /**
   * eth_simulateV1 (`simulate/simulate.ts`) on top of `header`, with the archive's trie nodes in `stateDb`;
   * the gas budget is `execution.simulateGasBudget`, at most the eth_call cap of the base block.
   */
  async simulate(header: BlockHeader, request: SimulateRequest, stateDb: DB<string, string | Uint8Array>): Promise<SimulatedBlock[]> {
    const cap = this.gasCap(header);
    const gasBudget = this.simulateGasBudget < cap ? this.simulateGasBudget : cap;
    return simulate(
      { store: this.store, reads: this.reads, stateDb, forks: this.forks, evms: this.evms, gasBudget, depositContract: this.depositContract },
      header,
      request,
      this.simulateMaxBlocks,
    );
  }

  /**
   * Runs a call as {@link call} does, on an EVM built for this run alone (plain @ethereumjs/evm:
   * no fast paths, not pooled, so hooks never outlive it) that `instrument` may hook first:
   * debug_traceCall's tracers. `instrument` sees the prepared call; the run's deadline is the
   * tracer's, not `execution.callTimeoutMs`.
   */
  async instrumentedCall(
    header: BlockHeader,
    request: CallRequest,
    overrides: CallOverrides,
    instrument: (evm: EVM, prepared: PreparedCall) => Promise<void>,
  ): Promise<{ result: CallResult; evm: EVM; prepared: PreparedCall }> {
    const prepared = this.prepare(header, request, overrides);
    const evm = await this.evms.plainEvm(prepared.ctx.fork.common, prepared.precompileEdits);
    await instrument(evm, prepared);
    const result = await runMessage(evm, this.store, this.reads, prepared, prepared.msg.gasLimit);
    return { result, evm, prepared };
  }

  /**
   * eth_createAccessList (`accessList.ts`) at `header` with state overrides: `request` carries
   * geth's fee defaults (setFeeDefaults, done by the caller); the nonce defaults to the sender's
   * (after the overrides), then geth's CallDefaults.
   */
  async createAccessList(header: BlockHeader, request: CallRequest, overrides: CallOverrides = {}): Promise<AccessListResult> {
    const ctx = blockContext(header, undefined, this.forks);
    const state = overrides.state ?? [];
    const edits = precompileEdits(ctx.fork, state);
    const from = request.from ?? new Uint8Array(20);
    const nonce = request.nonce ?? (await (await overriddenState(this.reads, header.stateRoot, state)).getAccount(new Address(from)))?.nonce ?? 0n;
    const msg = callMessage(request, ctx, this.gasCap(header));
    const chainId = ctx.fork.common.chainId();
    // geth's args after CallDefaults, which name the transaction in a failure's text
    const fees =
      header.baseFeePerGas === undefined || request.gasPrice !== undefined
        ? { gasPrice: request.gasPrice ?? 0n }
        : { maxFeePerGas: request.maxFeePerGas ?? 0n, maxPriorityFeePerGas: request.maxPriorityFeePerGas ?? 0n };
    const args = { ...request, ...fees, nonce, gas: msg.gasLimit, chainId, value: msg.value };
    return this.evms.withEvm(ctx.fork.common, edits, (evm) =>
      buildAccessList(evm, {
        request: args,
        from,
        chainId,
        precompiles: ctx.fork.precompileAddresses,
        run: (accessList) => runMessage(evm, this.store, this.reads, { ctx, msg: { ...msg, accessList }, state, precompileEdits: edits }, msg.gasLimit),
      }),
    );
  }

  /**
   * Block context, override checks and the message, in geth's order: block overrides, state
   * overrides (doCall), then CallDefaults and ToMessage (applyMessage).
   */
  private prepare(header: BlockHeader, request: CallRequest, overrides: CallOverrides): PreparedCall {
    const ctx = blockContext(header, overrides.block, this.forks);
    const state = overrides.state ?? [];
    const edits = precompileEdits(ctx.fork, state);
    const msg = callMessage(request, ctx, this.gasCap(header));
    return { ctx, msg, state, precompileEdits: edits };
  }
}
