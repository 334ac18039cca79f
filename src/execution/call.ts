import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createEVM, type EVM, EVMError, type EVMMockBlockchainInterface, type EVMResult, getActivePrecompiles, type PrecompileFunc } from '@ethereumjs/evm';
import {
  Account,
  Address,
  bigIntToUnpaddedBytes,
  bytesToHex,
  bytesToUnprefixedHex,
  concatBytes,
  eoaCode7702RecoverAuthority,
  equalsBytes,
  SECP256K1_ORDER,
  SECP256K1_ORDER_DIV_2,
  toChecksumAddress,
} from '@ethereumjs/util';
import { evmBlockchain } from '../chain/blockHashes.js';
import type { ChainStore } from '../chain/store.js';
import type { StateReadCache } from '../state/readCache.js';
import type { AccountOverride, Authorization, BlockOverrides, CallRequest } from './callArgs.js';
import { type FailedFrame, gethErrorText, type PrecompileContext } from './evmErrors.js';
import { hookOpcodes, type OpcodeHooks } from './opcodeHooks.js';
import { OverlayState } from './overlayDb.js';

/**
 * The call engine: runs a message on the archived state of a block the way geth's `eth_call` and
 * `eth_estimateGas` do (ethereum/go-ethereum `internal/ethapi/api.go` doCall,
 * `internal/ethapi/transaction_args.go` CallDefaults/ToMessage, `core/state_transition.go` with
 * SkipNonceChecks, SkipTransactionChecks and NoBaseFee, `eth/gasestimator`), on top of the
 * @ethereumjs/evm interpreter.
 *
 * Each run gets its own {@link OverlayState}, so nothing it writes outlives it; reads of archived
 * state go through one {@link StateReadCache} shared by all calls. What is expensive to build (a
 * Common per hardfork, EVM instances with their opcode tables and precompiles) is built once and
 * reused: EVMs wait in a per-hardfork pool and are re-pointed at the run's state; a pooled EVM
 * serves one run at a time.
 */

/**
 * The gas cap of a call is this many times the gas limit of the block it runs in. Infura documents
 * "10× the current block gas limit" for eth_call/eth_estimateGas (MetaMask docs, eth_estimateGas,
 * "Gas parameter is capped"); geth's equivalent is the fixed `--rpc.gascap` (50,000,000).
 */
export const GAS_CAP_BLOCK_GAS_LIMIT_FACTOR = 10n;

/** geth's `estimateGasErrorRatio`: the binary search stops within 1.5% of the optimum. */
export const ESTIMATE_GAS_ERROR_RATIO = 0.015;

/**
 * Idle EVM instances kept per hardfork. One EVM serves one run at a time and more are built on
 * demand (~0.5 ms each), so this should cover the server's concurrent eth_call limit.
 */
export const EVM_POOL_SIZE_PER_HARDFORK = 64;

/**
 * Longest a single eth_call / eth_estimateGas may execute, geth's `--rpc.evmtimeout` default. The
 * interpreter does not yield to the event loop while it runs, so this also bounds how long one
 * request can hold the server.
 */
export const CALL_TIMEOUT_MS = 5_000;
/** The deadline is checked every this many JUMP/JUMPI (every loop iteration passes one). */
const TIMEOUT_CHECK_EVERY_JUMPS = 1024;
const JUMP_OPCODES: ReadonlyMap<number, string> = new Map([
  [0x56, 'JUMP'],
  [0x57, 'JUMPI'],
]);

/** EIP-7825 (Osaka): the protocol's per-transaction gas limit, which also bounds estimates. */
const MAX_TX_GAS = 1n << 24n;
/** EIP-4844: blob gas per blob. */
const BLOB_GAS_PER_BLOB = 131_072n;
/** EIP-7594 (Osaka): most blobs one transaction may carry. */
const MAX_BLOBS_PER_TX_OSAKA = 6;
/** Gas a value-bearing CALL adds for free; geth's estimator pads its first guess with it. */
const CALL_STIPEND = 2300n;
const TX_GAS = 21_000n;
const UINT256_LIMIT = 1n << 256n;
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const ZERO_HASH = new Uint8Array(32);

/** A failure geth reports as a plain `-32000` error with this message. */
export class CallError extends Error {
  override readonly name: string = 'CallError';
}

/**
 * The message failed validation before execution (funds, intrinsic gas, fee fields…). `reason` is
 * geth's inner text; the message is the `eth_call` wrapping `err: <reason> (supplied gas N)`.
 */
export class MessageError extends CallError {
  override readonly name = 'MessageError';
  constructor(
    readonly reason: string,
    readonly gas: bigint,
  ) {
    super(`err: ${reason} (supplied gas ${gas})`);
  }
}

/** The run exceeded {@link CALL_TIMEOUT_MS}; geth's text. */
export class CallTimeoutError extends CallError {
  override readonly name = 'CallTimeoutError';
  constructor(ms: number) {
    super(`execution aborted (timeout = ${ms / 1000}s)`);
  }
}

/** eth_estimateGas: the call fails for a reason more gas cannot fix (revert, invalid opcode…). */
export class ExecutionFailedError extends Error {
  override readonly name = 'ExecutionFailedError';
  constructor(readonly result: CallResult) {
    super(result.failure?.kind === 'halt' ? result.failure.message : 'execution reverted');
  }
}

/** How a run ended when it did not succeed. */
export type CallFailure = { kind: 'revert' } | { kind: 'halt'; message: string; outOfGas: boolean };

/** The outcome of one run, in geth's `ExecutionResult` terms. */
export interface CallResult {
  /** Return data, the revert data when reverted, empty on other failures. */
  returnValue: Uint8Array;
  /** Gas used after refunds and the EIP-7623 floor (what a receipt would show). */
  gasUsed: bigint;
  /** Gas used before refunds (at least the floor): what the run needs to be given. */
  peakGasUsed: bigint;
  failure?: CallFailure;
}

/** State and block overrides of one request. */
export interface CallOverrides {
  state?: AccountOverride[];
  block?: BlockOverrides;
}

/** What the engine needs from an opened chain. */
export interface CallEngineOptions {
  store: ChainStore;
  /** The chain's Common (fork schedule, chain id, crypto); copied per hardfork, never mutated. */
  common: Common;
  /** The network's state read cache (shared with the state methods). */
  reads: StateReadCache;
  /** Overrides {@link GAS_CAP_BLOCK_GAS_LIMIT_FACTOR} (tests). */
  gasCapFactor?: bigint;
  /** Overrides {@link CALL_TIMEOUT_MS} (tests). */
  timeoutMs?: number;
}

/** Block context of a run: the header's fields after overrides, and the fork they select. */
interface BlockContext {
  header: BlockHeader;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  coinbase: Uint8Array;
  difficulty: bigint;
  prevRandao: Uint8Array;
  baseFee: bigint | undefined;
  blobBaseFee: bigint | undefined;
  common: Common;
}

/** A message after geth's CallDefaults and ToMessage. */
interface Message {
  from: Uint8Array;
  to: Uint8Array | undefined;
  gasLimit: bigint;
  gasPrice: bigint;
  feeCap: bigint;
  tipCap: bigint;
  value: bigint;
  data: Uint8Array;
  accessList: NonNullable<CallRequest['accessList']>;
  blobHashes: Uint8Array[] | undefined;
  blobFeeCap: bigint | undefined;
  authorizations: Authorization[] | undefined;
}

/** Everything a run needs besides the gas limit. */
interface Prepared {
  ctx: BlockContext;
  msg: Message;
  state: AccountOverride[];
  /** Precompile map edits the state overrides imply (moves, and precompile addresses overridden). */
  precompileEdits: Array<{ address: string; fn?: PrecompileFunc }>;
  /** The fork's standard precompile addresses (geth warms these, not the edited set). */
  precompileAddresses: string[];
}

/** Builds a call engine for an opened chain. */
export function createCallEngine(opts: CallEngineOptions): CallEngine {
  return new CallEngine(opts);
}

/** Runs `eth_call` and `eth_estimateGas` requests. Safe for concurrent use. */
export class CallEngine {
  private readonly store: ChainStore;
  private readonly chainCommon: Common;
  private readonly reads: StateReadCache;
  private readonly capFactor: bigint;
  private readonly timeoutMs: number;
  private readonly commons = new Map<string, Common>();
  private readonly idle = new Map<string, EVM[]>();
  // Each EVM's deadline guard: JUMP/JUMPI hooks that abort a run past its deadline.
  private readonly guards = new WeakMap<EVM, { deadline: number; jumps: number; hooks: OpcodeHooks }>();

  constructor(opts: CallEngineOptions) {
    this.store = opts.store;
    this.chainCommon = opts.common;
    this.reads = opts.reads;
    this.capFactor = opts.gasCapFactor ?? GAS_CAP_BLOCK_GAS_LIMIT_FACTOR;
    this.timeoutMs = opts.timeoutMs ?? CALL_TIMEOUT_MS;
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
    return this.withEvm(prepared, (evm) => this.run(evm, prepared, prepared.msg.gasLimit));
  }

  /**
   * The smallest gas limit (within geth's 1.5% tolerance) with which the call succeeds, found by
   * geth's binary search (`eth/gasestimator`). Throws {@link ExecutionFailedError} when the call
   * fails for a reason other than gas, and {@link CallError} with geth's texts otherwise.
   */
  async estimateGas(header: BlockHeader, request: CallRequest, overrides: CallOverrides = {}): Promise<bigint> {
    // geth: a missing gas becomes 0 here, so that the cap is not taken as the caller's own limit.
    const prepared = this.prepare(header, { ...request, gas: request.gas ?? 0n }, overrides);
    const { msg, ctx } = prepared;
    return this.withEvm(prepared, async (evm) => {
      const cap = this.gasCap(header);
      let hi = msg.gasLimit >= TX_GAS ? msg.gasLimit : ctx.gasLimit;
      if (hi > MAX_TX_GAS && ctx.common.gteHardfork('osaka')) hi = MAX_TX_GAS;

      if (msg.feeCap !== 0n) {
        const sm = await this.stateAt(prepared);
        let available = (await sm.getAccount(new Address(msg.from)))?.balance ?? 0n;
        if (msg.value >= available) throw new CallError('insufficient funds for transfer');
        available -= msg.value;
        if (ctx.common.gteHardfork('cancun') && msg.blobHashes && msg.blobHashes.length > 0) {
          const blobCost = BigInt(msg.blobHashes.length) * BLOB_GAS_PER_BLOB * (msg.blobFeeCap ?? 0n);
          if (blobCost >= available) throw new CallError('insufficient funds for gas * price + value');
          available -= blobCost;
        }
        const allowance = available / msg.feeCap;
        if (allowance < 1n << 64n && hi > allowance) hi = allowance;
      }
      if (hi > cap) hi = cap;

      // Runs at `gas`; `undefined` result = "more gas may help" (intrinsic gas too low).
      const attempt = async (gas: bigint): Promise<CallResult | undefined> => {
        try {
          return await this.run(evm, prepared, gas);
        } catch (err) {
          if (err instanceof MessageError) {
            if (err.reason.startsWith('intrinsic gas too low')) return undefined;
            throw new CallError(`failed with ${gas} gas: ${err.reason}`);
          }
          throw err;
        }
      };

      // A plain transfer to an account without code: try the minimum first.
      if (msg.data.length === 0 && msg.to !== undefined) {
        const sm = await this.stateAt(prepared);
        if ((await sm.getCode(new Address(msg.to))).length === 0) {
          const r = await attempt(TX_GAS).catch(() => undefined);
          if (r !== undefined && r.failure === undefined) return TX_GAS;
        }
      }

      const top = await attempt(hi);
      if (top === undefined || top.failure !== undefined) {
        if (top?.failure && !(top.failure.kind === 'halt' && top.failure.outOfGas)) throw new ExecutionFailedError(top);
        throw new CallError(`gas required exceeds allowance (${hi})`);
      }
      let lo = top.gasUsed - 1n;
      const optimistic = ((top.peakGasUsed + CALL_STIPEND) * 64n) / 63n;
      if (optimistic < hi) {
        const r = await attempt(optimistic);
        if (r === undefined || r.failure !== undefined) lo = optimistic;
        else hi = optimistic;
      }
      while (lo + 1n < hi) {
        if (Number(hi - lo) / Number(hi) < ESTIMATE_GAS_ERROR_RATIO) break;
        let mid = lo + (hi - lo) / 2n;
        if (mid > lo * 2n) mid = lo * 2n;
        const r = await attempt(mid);
        if (r === undefined || r.failure !== undefined) lo = mid;
        else hi = mid;
      }
      return hi;
    });
  }

  // --- preparation -----------------------------------------------------------------------------

  /**
   * Block context, override checks and message defaults, in geth's order: block overrides, state
   * overrides (doCall), then CallDefaults and ToMessage (applyMessage).
   */
  private prepare(header: BlockHeader, request: CallRequest, overrides: CallOverrides): Prepared {
    const unsupported = overrides.block?.unsupported[0];
    if (unsupported !== undefined) throw new CallError(`block override "${unsupported}" is not supported for this RPC method`);
    const ctx = this.blockContext(header, overrides.block);
    const common = ctx.common;
    const state = overrides.state ?? [];
    const { edits, standard } = this.precompileEdits(common, state);

    // CallDefaults (transaction_args.go)
    if (request.gasPrice !== undefined && (request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined)) {
      throw new CallError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    }
    const chainId = common.chainId();
    if (request.chainId !== undefined && request.chainId !== chainId) {
      throw new CallError(`chainId does not match node's (have=${request.chainId}, want=${chainId})`);
    }
    const cap = this.gasCap(header);
    let gasLimit = request.gas ?? cap;
    if (gasLimit > cap) gasLimit = cap;

    // ToMessage: the fee fields against the (possibly overridden) base fee
    let gasPrice: bigint;
    let feeCap: bigint;
    let tipCap: bigint;
    if (ctx.baseFee === undefined) {
      gasPrice = request.gasPrice ?? 0n;
      feeCap = tipCap = gasPrice;
    } else if (request.gasPrice !== undefined) {
      gasPrice = feeCap = tipCap = request.gasPrice;
    } else {
      feeCap = request.maxFeePerGas ?? 0n;
      tipCap = request.maxPriorityFeePerGas ?? 0n;
      gasPrice = 0n;
      if (feeCap > 0n || tipCap > 0n) {
        gasPrice = tipCap + ctx.baseFee;
        if (gasPrice > feeCap) gasPrice = feeCap;
      }
    }
    const blobFeeCap = request.maxFeePerBlobGas ?? (request.blobVersionedHashes !== undefined ? 0n : undefined);
    // geth NoBaseFee: a call that pays nothing runs with base fee (and blob base fee) 0.
    if (gasPrice === 0n && ctx.baseFee !== undefined) ctx.baseFee = 0n;
    if (blobFeeCap === 0n && ctx.blobBaseFee !== undefined) ctx.blobBaseFee = 0n;

    const msg: Message = {
      from: request.from ?? new Uint8Array(20),
      to: request.to,
      gasLimit,
      gasPrice,
      feeCap,
      tipCap,
      value: request.value ?? 0n,
      data: request.data ?? new Uint8Array(),
      accessList: request.accessList ?? [],
      blobHashes: request.blobVersionedHashes,
      blobFeeCap,
      authorizations: request.authorizationList,
    };
    return { ctx, msg, state, precompileEdits: edits, precompileAddresses: standard };
  }

  private blockContext(header: BlockHeader, o: BlockOverrides | undefined): BlockContext {
    const number = o?.number ?? header.number;
    const timestamp = o?.time ?? header.timestamp;
    let hardfork = header.common.hardfork();
    if (o?.number !== undefined || o?.time !== undefined) {
      hardfork = this.chainCommon.getHardforkBy({ blockNumber: number, timestamp });
      // Chains that merged by total difficulty: keep a post-merge header post-merge.
      const probe = this.commonFor(hardfork);
      if (header.common.gteHardfork('paris') && !probe.gteHardfork('paris')) hardfork = 'paris';
    }
    return {
      header,
      number,
      timestamp,
      gasLimit: o?.gasLimit ?? header.gasLimit,
      coinbase: o?.feeRecipient ?? header.coinbase.bytes,
      difficulty: o?.difficulty ?? header.difficulty,
      prevRandao: o?.prevRandao ?? header.mixHash,
      baseFee: o?.baseFeePerGas ?? header.baseFeePerGas,
      blobBaseFee: o?.blobBaseFee ?? (header.excessBlobGas !== undefined ? header.getBlobGasPrice() : undefined),
      common: this.commonFor(hardfork),
    };
  }

  /**
   * geth's StateOverride.Apply checks and precompile rules, in its order: an overridden precompile
   * address stops being a precompile; `movePrecompileToAddress` re-installs it elsewhere.
   */
  private precompileEdits(common: Common, state: AccountOverride[]): { edits: Prepared['precompileEdits']; standard: string[] } {
    const standard = this.standardPrecompiles(common);
    const edits: Prepared['precompileEdits'] = [];
    if (state.length === 0) return { edits, standard: [...standard.keys()] };
    const active = new Map(standard);
    const overridden = new Set(state.map((a) => bytesToUnprefixedHex(a.address)));
    const moved = new Set<string>();
    for (const account of state) {
      const addr = bytesToUnprefixedHex(account.address);
      if (moved.has(addr)) throw new CallError(`account ${checksum(account.address)} has already been overridden by a precompile`);
      const fn = active.get(addr);
      if (account.movePrecompileToAddress !== undefined) {
        if (fn === undefined) throw new CallError(`account ${checksum(account.address)} is not a precompile`);
        const dest = bytesToUnprefixedHex(account.movePrecompileToAddress);
        if (overridden.has(dest)) throw new CallError(`account ${checksum(account.movePrecompileToAddress)} is already overridden`);
        active.set(dest, fn);
        moved.add(dest);
        edits.push({ address: dest, fn });
      }
      if (fn !== undefined) {
        active.delete(addr);
        edits.push({ address: addr });
      }
      if (account.state !== undefined && account.stateDiff !== undefined) {
        throw new CallError(`account ${checksum(account.address)} has both 'state' and 'stateDiff'`);
      }
    }
    return { edits, standard: [...standard.keys()] };
  }

  private readonly precompileSets = new Map<string, Map<string, PrecompileFunc>>();

  /** The fork's precompiles by unprefixed address (their functions are stateless and shareable). */
  private standardPrecompiles(common: Common): Map<string, PrecompileFunc> {
    let set = this.precompileSets.get(common.hardfork());
    if (!set) {
      set = getActivePrecompiles(common);
      this.precompileSets.set(common.hardfork(), set);
    }
    return set;
  }

  private commonFor(hardfork: string): Common {
    let common = this.commons.get(hardfork);
    if (!common) {
      common = this.chainCommon.copy();
      common.setHardfork(hardfork);
      fastEipLookup(common);
      this.commons.set(hardfork, common);
    }
    return common;
  }

  // --- EVM pool ------------------------------------------------------------------------------------

  private async withEvm<T>(prepared: Prepared, fn: (evm: EVM) => Promise<T>): Promise<T> {
    const common = prepared.ctx.common;
    const key = common.hardfork();
    if (prepared.precompileEdits.length > 0) {
      // Rare: a private EVM with the edited precompile map.
      const evm = await this.newEvm(common, prepared.precompileEdits);
      const guard = this.guards.get(evm)!;
      guard.deadline = performance.now() + this.timeoutMs;
      return fn(evm);
    }
    const evm = this.idle.get(key)?.pop() ?? (await this.newEvm(common, []));
    const release = () => {
      const list = this.idle.get(key) ?? [];
      if (list.length < EVM_POOL_SIZE_PER_HARDFORK) list.push(evm);
      this.idle.set(key, list);
    };
    const guard = this.guards.get(evm);
    guard?.hooks.ensure();
    if (guard) guard.deadline = performance.now() + this.timeoutMs;
    try {
      const result = await fn(evm);
      release();
      return result;
    } catch (err) {
      // Message-validation errors leave the EVM untouched; after anything else (a timeout
      // included) it may be mid-run, so it is dropped.
      if ((err instanceof CallError && !(err instanceof CallTimeoutError)) || err instanceof ExecutionFailedError) release();
      throw err;
    } finally {
      if (guard) guard.deadline = Number.POSITIVE_INFINITY;
    }
  }

  private async newEvm(common: Common, edits: Prepared['precompileEdits']): Promise<EVM> {
    const customPrecompiles = edits.map((e) =>
      e.fn === undefined ? { address: `0x${e.address}` as const } : { address: `0x${e.address}` as const, function: e.fn },
    );
    const evm = await createEVM({
      common,
      stateManager: new OverlayState(this.reads, ZERO_HASH),
      blockchain: evmBlockchain(this.store),
      customPrecompiles: customPrecompiles.length > 0 ? customPrecompiles : undefined,
    });
    const guard = { deadline: Number.POSITIVE_INFINITY, jumps: 0, hooks: undefined as unknown as OpcodeHooks };
    const timeoutMs = this.timeoutMs;
    guard.hooks = hookOpcodes(evm, JUMP_OPCODES, () => {
      if (++guard.jumps % TIMEOUT_CHECK_EVERY_JUMPS === 0 && performance.now() > guard.deadline) throw new CallTimeoutError(timeoutMs);
    });
    this.guards.set(evm, guard);
    return evm;
  }

  // --- one run -------------------------------------------------------------------------------------

  /** A fresh overlay on the block's state with the state overrides applied. */
  private async stateAt(prepared: Prepared): Promise<OverlayState> {
    const sm = new OverlayState(this.reads, prepared.ctx.header.stateRoot);
    await applyStateOverrides(sm, prepared.state);
    return sm;
  }

  /** geth's state transition for one message with `gasLimit` (pre-Amsterdam rules). */
  private async run(evm: EVM, prepared: Prepared, gasLimit: bigint): Promise<CallResult> {
    const { ctx, msg } = prepared;
    const common = ctx.common;
    const sm = await this.stateAt(prepared);
    const from = new Address(msg.from);
    let fromChecksum: string | undefined;
    const fromHex = () => (fromChecksum ??= checksum(msg.from));
    const fail = (reason: string): never => {
      throw new MessageError(reason, gasLimit);
    };

    // preCheck: fee fields (London), blobs, authorizations
    if (common.isActivatedEIP(1559)) {
      const skip = msg.feeCap === 0n && msg.tipCap === 0n;
      if (!skip) {
        if (msg.feeCap < msg.tipCap) {
          fail(`max priority fee per gas higher than max fee per gas: address ${fromHex()}, maxPriorityFeePerGas: ${msg.tipCap}, maxFeePerGas: ${msg.feeCap}`);
        }
        if (msg.feeCap < (ctx.baseFee ?? 0n)) {
          fail(`max fee per gas less than block base fee: address ${fromHex()}, maxFeePerGas: ${msg.feeCap}, baseFee: ${ctx.baseFee}`);
        }
      }
    }
    const isCancun = common.gteHardfork('cancun');
    if (msg.blobHashes !== undefined) {
      if (msg.to === undefined) fail('blob transaction of type create');
      if (msg.blobHashes.length === 0) fail('blob transaction missing blob hashes');
      if (common.gteHardfork('osaka') && msg.blobHashes.length > MAX_BLOBS_PER_TX_OSAKA) fail('blob transaction has too many blobs');
      msg.blobHashes.forEach((h, i) => {
        if (h[0] !== 0x01) fail(`blob ${i} has invalid hash version`);
      });
    }
    const blobGas = isCancun ? BigInt(msg.blobHashes?.length ?? 0) * BLOB_GAS_PER_BLOB : 0n;
    if (blobGas > 0n && msg.blobFeeCap !== 0n && (msg.blobFeeCap ?? 0n) < (ctx.blobBaseFee ?? 0n)) {
      fail(`max fee per blob gas less than block blob gas fee: address ${fromHex()} blobGasFeeCap: ${msg.blobFeeCap}, blobBaseFee: ${ctx.blobBaseFee}`);
    }
    if (msg.authorizations !== undefined) {
      if (msg.to === undefined) fail(`EIP-7702 transaction cannot be used to create contract (sender ${fromHex()})`);
      if (msg.authorizations.length === 0) fail(`EIP-7702 transaction with empty auth list (sender ${fromHex()})`);
    }

    // buyGas: the balance must cover gas * feeCap + value (+ blob gas * blob fee cap)
    let mgval = gasLimit * msg.gasPrice;
    let balanceCheck = gasLimit * msg.feeCap + msg.value;
    if (blobGas > 0n) {
      balanceCheck += blobGas * (msg.blobFeeCap ?? 0n);
      mgval += blobGas * (ctx.blobBaseFee ?? 0n);
    }
    const sender = (await sm.getAccount(from)) ?? new Account();
    if (balanceCheck >= UINT256_LIMIT) fail(`insufficient funds for gas * price + value: address ${fromHex()} required balance exceeds 256 bits`);
    if (sender.balance < balanceCheck) {
      fail(`insufficient funds for gas * price + value: address ${fromHex()} have ${sender.balance} want ${balanceCheck}`);
    }
    sender.balance -= mgval;

    // intrinsic gas and the EIP-7623 floor
    const isCreate = msg.to === undefined;
    const intrinsic = intrinsicGas(common, msg, isCreate);
    if (gasLimit < intrinsic) fail(`intrinsic gas too low: have ${gasLimit}, want ${intrinsic}`);
    const floor = common.isActivatedEIP(7623) ? floorDataGas(msg.data) : 0n;
    if (gasLimit < floor) fail(`intrinsic gas too low: have ${gasLimit}, want ${floor}`);
    if (msg.value > 0n && sender.balance < msg.value) fail(`insufficient funds for transfer: address ${fromHex()}`);
    if (isCreate && common.isActivatedEIP(3860)) {
      const limit = common.param('maxInitCodeSize');
      if (BigInt(msg.data.length) > limit) fail(`max initcode size exceeded: code size ${msg.data.length} limit ${limit}`);
    }

    // point the pooled EVM at this run's state and block
    const journal = evm.journal as unknown as { stateManager: OverlayState; cleanJournal(): void };
    evm.stateManager = sm;
    journal.stateManager = sm;
    journal.cleanJournal();
    (evm as unknown as { transientStorage: { clear(): void } }).transientStorage.clear();
    evm.blockchain = blockchainBelow(this.store, ctx.header.number);

    // Prepare: warm sender, recipient, precompiles, coinbase (EIP-3651) and the access list
    if (common.isActivatedEIP(2929)) {
      for (const address of prepared.precompileAddresses) evm.journal.addAlwaysWarmAddress(address);
      evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(msg.from));
      if (msg.to !== undefined) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(msg.to));
      if (common.isActivatedEIP(3651)) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(ctx.coinbase));
      for (const entry of msg.accessList) {
        const address = bytesToUnprefixedHex(entry.address);
        evm.journal.addAlwaysWarmAddress(address);
        for (const key of entry.storageKeys) evm.journal.addAlwaysWarmSlot(address, bytesToUnprefixedHex(key));
      }
    }

    // the sender's nonce goes up before the call (a CREATE derives its address from the old one)
    sender.nonce += 1n;
    await sm.putAccount(from, sender);

    let authRefund = 0n;
    if (!isCreate && msg.authorizations !== undefined) authRefund = await applyAuthorizations(evm, sm, common, msg.authorizations);
    if (!isCreate) {
      const code = await sm.getCode(new Address(msg.to!));
      if (isDelegation(code)) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(code.subarray(3, 23)));
    }

    const block = {
      header: {
        number: ctx.number,
        coinbase: new Address(ctx.coinbase),
        timestamp: ctx.timestamp,
        difficulty: ctx.difficulty,
        prevRandao: ctx.prevRandao,
        gasLimit: ctx.gasLimit,
        baseFeePerGas: ctx.baseFee,
        slotNumber: 0n,
        getBlobGasPrice: () => ctx.blobBaseFee,
      },
    };
    const executionGas = gasLimit - intrinsic;
    const result: EVMResult = await evm.runCall({
      block: block as never,
      gasPrice: msg.gasPrice,
      origin: from,
      caller: from,
      gasLimit: executionGas,
      to: msg.to === undefined ? undefined : new Address(msg.to),
      value: msg.value,
      data: msg.data,
      blobVersionedHashes: msg.blobHashes?.map((h) => bytesToHex(h)),
      skipNonceIncrement: true,
    });
    const exec = result.execResult;

    // gas: refunds (capped: 1/2 before London, 1/5 after) and the EIP-7623 floor
    let peak = intrinsic + exec.executionGasUsed;
    const quotient = common.isActivatedEIP(3529) ? 5n : 2n;
    let refund = authRefund + (exec.exceptionError ? 0n : (exec.gasRefund ?? 0n));
    if (refund > peak / quotient) refund = peak / quotient;
    let used = peak - refund;
    if (used < floor) used = floor;
    if (peak < floor) peak = floor;

    const err = exec.exceptionError;
    if (!err) return { returnValue: exec.returnValue, gasUsed: used, peakGasUsed: peak };
    if (err.error === EVMError.errorMessages.REVERT) {
      return { returnValue: exec.returnValue, gasUsed: used, peakGasUsed: peak, failure: { kind: 'revert' } };
    }
    const frame = (exec as { runState?: FailedFrame }).runState;
    const message = gethErrorText(err, frame, precompileContext(evm, msg));
    return {
      returnValue: new Uint8Array(),
      gasUsed: used,
      peakGasUsed: peak,
      failure: { kind: 'halt', message, outOfGas: message === 'out of gas' },
    };
  }
}

/**
 * The interpreter asks `isActivatedEIP` several times per opcode, and @ethereumjs/common answers
 * with a linear search of an array (a quarter of the time of a compute-heavy call). This engine's
 * Commons are per hardfork and never change fork, so answer from a Set, rebuilt if it ever does.
 */
function fastEipLookup(common: Common): void {
  const internal = common as unknown as { _activatedEIPsCache: number[] };
  let active = new Set(internal._activatedEIPsCache);
  common.events.on('hardforkChanged', () => {
    active = new Set(internal._activatedEIPsCache);
  });
  common.isActivatedEIP = (eip: number) => active.has(eip);
}

/**
 * BLOCKHASH as geth serves it to a call: canonical hashes below the block the call runs on, and
 * zero for that block and later ones (which a block-number override can bring into the window).
 */
function blockchainBelow(store: ChainStore, below: bigint): EVMMockBlockchainInterface {
  const base = evmBlockchain(store);
  const chain: EVMMockBlockchainInterface = {
    async getBlock(n: number | bigint) {
      if (BigInt(n) >= below) return { hash: () => ZERO_HASH };
      return base.getBlock(Number(n));
    },
    putBlock: base.putBlock,
    shallowCopy: () => chain,
  };
  return chain;
}

/** geth's `StateOverride.Apply` on a state manager (precompile edits are handled by the caller). */
async function applyStateOverrides(sm: OverlayState, overrides: AccountOverride[]): Promise<void> {
  for (const o of overrides) {
    const address = new Address(o.address);
    const account = (await sm.getAccount(address)) ?? new Account();
    if (o.nonce !== undefined) account.nonce = o.nonce;
    if (o.balance !== undefined) account.balance = o.balance;
    await sm.putAccount(address, account);
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state !== undefined && o.stateDiff !== undefined) {
      throw new CallError(`account ${checksum(o.address)} has both 'state' and 'stateDiff'`);
    }
    if (o.state !== undefined) {
      await sm.clearStorage(address);
      for (const [slot, value] of o.state) await sm.putStorage(address, slot, value);
    }
    if (o.stateDiff !== undefined) {
      for (const [slot, value] of o.stateDiff) await sm.putStorage(address, slot, value);
    }
  }
}

/**
 * EIP-7702 authorizations as geth applies them for a message (`applyAuthorization`): invalid ones
 * are skipped; each valid one bumps the authority's nonce and installs (or clears) its delegation.
 * Returns the refund for authorities that already existed.
 */
async function applyAuthorizations(evm: EVM, sm: OverlayState, common: Common, auths: Authorization[]): Promise<bigint> {
  let refund = 0n;
  const chainId = common.chainId();
  for (const auth of auths) {
    if (auth.chainId !== 0n && auth.chainId !== chainId) continue;
    if (auth.nonce >= (1n << 64n) - 1n) continue;
    if (auth.yParity > 1n || auth.r === 0n || auth.s === 0n || auth.r >= SECP256K1_ORDER || auth.s > SECP256K1_ORDER_DIV_2) continue;
    let authority: Address;
    try {
      authority = eoaCode7702RecoverAuthority([
        bigIntToUnpaddedBytes(auth.chainId),
        auth.address,
        bigIntToUnpaddedBytes(auth.nonce),
        bigIntToUnpaddedBytes(auth.yParity),
        bigIntToUnpaddedBytes(auth.r),
        bigIntToUnpaddedBytes(auth.s),
      ]);
    } catch {
      continue;
    }
    evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(authority.bytes));
    const existing = await sm.getAccount(authority);
    const code = existing ? await sm.getCode(authority) : new Uint8Array();
    const delegated = isDelegation(code);
    if (code.length > 0 && !delegated) continue;
    if ((existing?.nonce ?? 0n) !== auth.nonce) continue;
    // per-empty-account cost (25000) was charged as intrinsic gas; an existing account refunds
    // the difference to the per-authorization base cost (12500)
    if (existing !== undefined) refund += 25_000n - 12_500n;
    const account = existing ?? new Account();
    account.nonce = auth.nonce + 1n;
    await sm.putAccount(authority, account);
    const zero = auth.address.every((b) => b === 0);
    if (zero) {
      if (delegated) await sm.putCode(authority, new Uint8Array());
    } else if (!delegated || !equalsBytes(code.subarray(3, 23), auth.address)) {
      await sm.putCode(authority, concatBytes(DELEGATION_PREFIX, auth.address));
    }
  }
  return refund;
}

/** Intrinsic gas of a message (geth `core.IntrinsicGas`, pre-Amsterdam). */
function intrinsicGas(common: Common, msg: Message, isCreate: boolean): bigint {
  let gas = isCreate && common.gteHardfork('homestead') ? 53_000n : TX_GAS;
  let nonZero = 0n;
  for (const b of msg.data) if (b !== 0) nonZero++;
  const zero = BigInt(msg.data.length) - nonZero;
  // EIP-2028 (Istanbul) cut non-zero calldata from 68 to 16; ethereumjs lists it as a param change
  gas += nonZero * (common.gteHardfork('istanbul') ? 16n : 68n) + zero * 4n;
  if (isCreate && common.isActivatedEIP(3860)) gas += ((BigInt(msg.data.length) + 31n) / 32n) * 2n;
  for (const entry of msg.accessList) gas += 2400n + BigInt(entry.storageKeys.length) * 1900n;
  gas += BigInt(msg.authorizations?.length ?? 0) * 25_000n;
  return gas;
}

/** EIP-7623 calldata floor: 21000 + 10 per token, a non-zero byte counting 4 tokens. */
function floorDataGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const b of data) tokens += b === 0 ? 1n : 4n;
  return TX_GAS + tokens * 10n;
}

function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** The precompile the top frame called, for precompile-specific error texts. */
function precompileContext(evm: EVM, msg: Message): PrecompileContext {
  if (msg.to === undefined || evm.precompiles.get(bytesToUnprefixedHex(msg.to)) === undefined) return undefined;
  let address = 0;
  for (const b of msg.to) address = address * 256 + b;
  return { address, input: msg.data };
}

/** EIP-55 form, as geth's `Address.Hex()` prints it in error texts. */
function checksum(address: Uint8Array): string {
  return toChecksumAddress(bytesToHex(address));
}
