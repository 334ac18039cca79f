import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { CallError } from '../../execution/callResult.js';
import { type OpcodeEntry, opcodeTable } from '../../execution/evm/opcodeTable.js';
import { FRAME_OPCODES, type FrameType } from '../frameOpcodes.js';
import { type RunStateView, type StateView, type StillbornFrame, type Tracer, type TxEnd, type TxStart, wordToAddress } from './tracer.js';

/**
 * Drives one {@link Tracer} at a time over an @ethereumjs EVM: the EVM's `beforeMessage` /
 * `afterMessage` events open and close frames, wrapped opcode handlers tell which opcode opened a
 * frame and let tracers look at the run state before an opcode runs (after its gas is charged, as
 * geth's hooks see it), and the `step` event is subscribed only while a tracer that needs every
 * step runs (it slows every opcode down). Outside a traced transaction (the block's other
 * transactions) the hooks return at once.
 *
 * The deadline (geth's `timeout`) is checked at every sub-call and every {@link CHECK_EVERY}
 * JUMP/JUMPI and steps; past it, the run is aborted with geth's `execution timeout`.
 */

const CHECK_EVERY = 1024;
const JUMPS = [0x56, 0x57];

/** geth's error when a trace runs past its timeout. */
export class TraceTimeoutError extends CallError {
  override readonly name = 'TraceTimeoutError';
  constructor() {
    super('execution timeout');
  }
}

export class TraceHarness {
  private tracer: Tracer | undefined;
  private now: StateView | undefined;
  private deadline = Number.POSITIVE_INFINITY;
  private ticks = 0;
  private pending: FrameType | undefined;
  private depth = 0;
  /** Messages entered so far (a frame opcode that enters none failed before it started). */
  private entered = 0;
  private readonly codes: Set<number>;
  private readonly wrapped = new WeakSet<object>();
  constructor(
    private readonly evm: EVM,
    extraOpcodes: readonly number[],
  ) {
    this.codes = new Set([...FRAME_OPCODES.keys(), ...JUMPS, ...extraOpcodes]);
    evm.events.on('beforeMessage', (message: Message) => {
      const t = this.tracer;
      if (!t) return;
      // Each sub-call is a deadline check too (a transaction of many short calls has few jumps).
      if (this.depth > 0 && performance.now() > this.deadline) throw new TraceTimeoutError();
      const kind = this.depth === 0 ? (message.to ? 'CALL' : 'CREATE') : (this.pending ?? 'CALL');
      this.pending = undefined;
      this.depth++;
      this.entered++;
      t.enter?.(message, kind);
    });
    evm.events.on('afterMessage', (result: EVMResult) => {
      const t = this.tracer;
      if (!t) return;
      this.depth--;
      t.exit?.(result);
    });
  }

  /** Starts tracing a transaction with `tracer`: `before` is the state before it, `now` the live state. */
  async begin(tracer: Tracer, tx: TxStart, before: StateView, now: StateView, timeoutMs: number): Promise<void> {
    this.ensureHooks();
    this.tracer = tracer;
    this.now = now;
    this.depth = 0;
    this.pending = undefined;
    this.ticks = 0;
    this.deadline = performance.now() + timeoutMs;
    if (timeoutMs <= 0) throw new TraceTimeoutError();
    await tracer.startTx(tx, before);
    if (tracer.steps) this.evm.events.on('step', this.stepListener);
  }

  /** Ends the traced transaction and returns the tracer's answer. */
  async end(end: TxEnd, after: StateView): Promise<unknown> {
    const t = this.tracer;
    const failure = this.failure;
    this.failure = undefined;
    this.detach();
    if (failure !== undefined) throw failure;
    if (!t) return undefined;
    await t.endTx(end, after);
    return t.result();
  }

  /** Stops tracing (after a failure). */
  detach(): void {
    if (this.tracer?.steps) this.evm.events.off('step', this.stepListener);
    this.tracer = undefined;
    this.now = undefined;
    this.deadline = Number.POSITIVE_INFINITY;
  }

  // A two-argument listener: @ethereumjs/evm awaits it before the opcode runs.
  private readonly stepListener = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
    this.tick();
    const t = this.tracer;
    if (!t?.step || !this.now) {
      resolve?.();
      return;
    }
    // A rejection here would be lost by the EVM's emitter: keep it and throw from the next hook.
    t.step(step, this.now).then(
      () => resolve?.(),
      (err) => {
        this.failure = err;
        resolve?.();
      },
    );
  };
  private failure: unknown;

  private tick(): void {
    if (this.failure !== undefined) {
      const err = this.failure;
      this.failure = undefined;
      throw err;
    }
    if (++this.ticks % CHECK_EVERY === 0 && performance.now() > this.deadline) throw new TraceTimeoutError();
  }

  /** Wraps the handlers of the opcodes the tracers need (again after a hardfork change rebuilt the table). */
  private ensureHooks(): void {
    const table = opcodeTable(this.evm);
    for (const code of this.codes) {
      const entry = table[code];
      if (!entry || entry.opcodeInfo.code !== code || this.wrapped.has(entry.opHandler)) continue;
      const original = entry.opHandler as (runState: RunStateView, common: unknown) => unknown;
      const before = (runState: RunStateView): Promise<void> | void => {
        const t = this.tracer;
        if (!t) return;
        if (code === 0x56 || code === 0x57) {
          this.tick();
          return;
        }
        const frame = FRAME_OPCODES.get(code);
        if (frame) this.pending = frame;
        if (t.opcode && this.now && t.opcodes?.includes(code)) return t.opcode(code, runState, this.now);
      };
      const frameType = FRAME_OPCODES.get(code);
      const wrapped = entry.opcodeInfo.isAsync
        ? async (runState: RunStateView, common: unknown) => {
            await before(runState);
            if (!frameType || !this.tracer?.stillborn) return original(runState, common);
            // A frame opcode that starts no message failed before it began (geth still traces it).
            const entered = this.entered;
            const frame = stillborn(frameType, runState);
            const out = await original(runState, common);
            if (this.entered === entered && frame) this.tracer?.stillborn?.(frame);
            return out;
          }
        : (runState: RunStateView, common: unknown) => {
            void before(runState);
            return original(runState, common);
          };
      this.wrapped.add(wrapped);
      entry.opHandler = wrapped as OpcodeEntry['opHandler'];
    }
  }
}

/** The call depth limit (geth's `CallCreateDepth`). */
const MAX_DEPTH = 1024;
const CALL_STIPEND = 2300n;

/**
 * What a frame opcode is about to open, read before its handler pops the stack, in case it fails
 * before a message starts: the two reasons @ethereumjs/evm returns early, with geth's texts.
 */
function stillborn(type: FrameType, rs: RunStateView): StillbornFrame | undefined {
  const gas = rs.messageGasLimit;
  if (gas === undefined || gas < 0n) return undefined;
  const from = rs.interpreter.getAddress().bytes;
  const error = rs.env.depth >= MAX_DEPTH ? 'max call depth exceeded' : 'insufficient balance for transfer';
  const read = (offset: bigint, size: bigint): Uint8Array => (size === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(size)).slice());
  try {
    if (type === 'CREATE' || type === 'CREATE2') {
      const [value, offset, size] = rs.stack.peek(3);
      return { type, from, to: undefined, value, gas, input: read(offset, size), error };
    }
    if (type === 'CALL' || type === 'CALLCODE') {
      const [, to, value, offset, size] = rs.stack.peek(5);
      return { type, from, to: wordToAddress(to), value, gas: value > 0n ? gas + CALL_STIPEND : gas, input: read(offset, size), error };
    }
    const [, to, offset, size] = rs.stack.peek(4);
    const value = type === 'DELEGATECALL' ? rs.interpreter.getCallValue() : undefined;
    return { type, from, to: wordToAddress(to), value, gas, input: read(offset, size), error };
  } catch {
    return undefined;
  }
}
