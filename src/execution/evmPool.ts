import type { Common } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { evmBlockchain } from '../chain/blockHashes.js';
import type { ChainStore } from '../chain/store.js';
import type { Config } from '../config/settings.js';
import type { StateReadCache } from '../state/readCache.js';
import { CallError, CallTimeoutError, ExecutionFailedError } from './callResult.js';
import { installCallFastPaths } from './evm/callFastPaths.js';
import { useFastOpcodes } from './evm/fastOpcodes.js';
import { JumpAnalysisCache } from './evm/jumpAnalysis.js';
import { hookOpcodes, type OpcodeHooks } from './evm/opcodeHooks.js';
import { OverlayState } from './overlayDb.js';
import type { PrecompileEdit } from './stateOverrides.js';

/**
 * @ethereumjs/evm instances for calls, pooled per hardfork: building one (opcode table,
 * precompiles) costs ~0.5 ms, so idle EVMs are kept and re-pointed at each run's state; a pooled
 * EVM serves one run at a time. Each EVM carries a deadline guard that aborts a run past
 * `execution.callTimeoutMs`, as geth's `--rpc.evmtimeout` does (ethereum/go-ethereum
 * `internal/ethapi/api.go` doCall): the interpreter does not yield to the event loop while it
 * runs, so the timeout also bounds how long one request can hold the server.
 */
/** The deadline is checked every this many JUMP/JUMPI (every loop iteration passes one). */
const TIMEOUT_CHECK_EVERY_JUMPS = 1024;
const JUMP_OPCODES: ReadonlyMap<number, string> = new Map([
  [0x56, 'JUMP'],
  [0x57, 'JUMPI'],
]);
const ZERO_HASH = new Uint8Array(32);

/** An EVM's deadline guard: JUMP/JUMPI hooks that abort a run past its deadline. */
interface DeadlineGuard {
  deadline: number;
  jumps: number;
  hooks: OpcodeHooks;
}

/**
 * EVMs set up for one purpose (hooks that stay attached, such as a tracer's), pooled apart from
 * the plain ones: `setup` runs once on each new EVM of the flavour.
 */
export interface EvmFlavour {
  key: string;
  setup(evm: EVM): void;
}

/** The EVMs of one chain. Safe for concurrent use. */
export class EvmPool {
  private readonly idle = new Map<string, EVM[]>();
  private readonly guards = new WeakMap<EVM, DeadlineGuard>();
  /** Jump analyses of the code the EVMs run, by code hash (shared by this pool's EVMs). */
  readonly jumpAnalyses: JumpAnalysisCache;
  private readonly timeoutMs: number;
  /**
   * Idle EVMs kept per hardfork. One EVM serves one run at a time and more are built on demand,
   * so this should cover the server's concurrent eth_call limit.
   */
  private readonly poolSize: number;
  /** Whether the EVMs get the fast paths of `evm/` (`execution.evmFastPaths`); without them they run @ethereumjs/evm as published. */
  private readonly fastPaths: boolean;

  /**
   * `settings` gives the deadline (`callTimeoutMs`), the idle EVMs kept (`evmPoolSizePerHardfork`)
   * and the jump analyses kept (`jumpAnalysisCodeBytes`).
   */
  constructor(
    private readonly store: ChainStore,
    private readonly reads: StateReadCache,
    settings: Pick<Config['execution'], 'callTimeoutMs' | 'evmPoolSizePerHardfork' | 'jumpAnalysisCodeBytes'> & { evmFastPaths?: boolean },
  ) {
    this.fastPaths = settings.evmFastPaths ?? true;
    this.jumpAnalyses = new JumpAnalysisCache(settings.jumpAnalysisCodeBytes);
    this.timeoutMs = settings.callTimeoutMs;
    this.poolSize = settings.evmPoolSizePerHardfork;
  }

  /**
   * Runs `fn` with an EVM for `common`'s fork, under the deadline (by default the call timeout from now). With precompile edits (state
   * overrides that move or replace precompiles) the EVM is a private one with the edited map.
   */
  async withEvm<T>(common: Common, edits: PrecompileEdit[], fn: (evm: EVM) => Promise<T>, flavour?: EvmFlavour, deadline = this.deadline()): Promise<T> {
    const key = flavour === undefined ? common.hardfork() : `${common.hardfork()}/${flavour.key}`;
    if (edits.length > 0) {
      // Rare: a private EVM with the edited precompile map.
      const evm = await this.newEvm(common, edits, flavour);
      const guard = this.guards.get(evm)!;
      guard.deadline = deadline;
      return fn(evm);
    }
    const evm = this.idle.get(key)?.pop() ?? (await this.newEvm(common, [], flavour));
    const release = () => {
      const list = this.idle.get(key) ?? [];
      if (list.length < this.poolSize) list.push(evm);
      this.idle.set(key, list);
    };
    const guard = this.guards.get(evm);
    guard?.hooks.ensure();
    if (this.fastPaths) useFastOpcodes(evm);
    if (guard) guard.deadline = deadline;
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

  /**
   * The deadline of a run starting now. Work that spans several runs (eth_simulateV1's blocks)
   * takes one and passes it to each {@link withEvm}, so the whole stays within the call timeout.
   */
  deadline(): number {
    return performance.now() + this.timeoutMs;
  }

  /** A private EVM as @ethereumjs/evm builds it (no fast paths, no deadline guard), for instrumented runs. */
  async plainEvm(common: Common, edits: PrecompileEdit[]): Promise<EVM> {
    const customPrecompiles = edits.map((e) =>
      e.fn === undefined ? { address: `0x${e.address}` as const } : { address: `0x${e.address}` as const, function: e.fn },
    );
    return createEVM({
      common,
      stateManager: new OverlayState(this.reads, ZERO_HASH),
      blockchain: evmBlockchain(this.store),
      customPrecompiles: customPrecompiles.length > 0 ? customPrecompiles : undefined,
    });
  }

  private async newEvm(common: Common, edits: PrecompileEdit[], flavour?: EvmFlavour): Promise<EVM> {
    const customPrecompiles = edits.map((e) =>
      e.fn === undefined ? { address: `0x${e.address}` as const } : { address: `0x${e.address}` as const, function: e.fn },
    );
    const evm = await createEVM({
      common,
      stateManager: new OverlayState(this.reads, ZERO_HASH),
      blockchain: evmBlockchain(this.store),
      customPrecompiles: customPrecompiles.length > 0 ? customPrecompiles : undefined,
    });
    if (this.fastPaths) {
      await installCallFastPaths(evm, this.jumpAnalyses.analyzer);
      useFastOpcodes(evm);
    }
    const guard: DeadlineGuard = { deadline: Number.POSITIVE_INFINITY, jumps: 0, hooks: undefined as unknown as OpcodeHooks };
    const timeoutMs = this.timeoutMs;
    guard.hooks = hookOpcodes(evm, JUMP_OPCODES, () => {
      if (++guard.jumps % TIMEOUT_CHECK_EVERY_JUMPS === 0 && performance.now() > guard.deadline) throw new CallTimeoutError(timeoutMs);
    });
    this.guards.set(evm, guard);
    flavour?.setup(evm);
    return evm;
  }
}
