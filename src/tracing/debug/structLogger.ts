import { EVMError, type EVMResult, type InterpreterStep, type Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { DomainError } from '../../errors/domainError.js';
import { memoryBytes } from '../../execution/evm/frames.js';
import { type FailedFrame, gethErrorText, opcodeName } from '../../execution/evmErrors.js';
import { FRAME_OPCODES, type FrameType } from '../frameOpcodes.js';
import type { RunStateView, StateView, StructLoggerOptions, Tracer, TxEnd } from './tracer.js';
import { word32 } from './tracer.js';

/**
 * geth's default tracer, the struct logger (ethereum/go-ethereum `eth/tracers/logger/logger.go`,
 * its "legacy" JSON): one entry per executed opcode with the state before it runs: pc, op, gas
 * left, the opcode's cost (for the CALL family including the gas handed to the callee, as geth
 * counts it), depth (1 for the transaction's frame), the refund counter (omitted when zero) and,
 * as configured, the stack, the memory (as 32-byte words, before this opcode expands it), the
 * return data of the frame's last call, and at SLOAD/SSTORE the contract's storage as the trace
 * has seen it so far (read values and written ones).
 *
 * An opcode that fails before it runs (out of gas, stack under/overflow) carries the error, as
 * geth logs it; failures inside an opcode (revert, invalid jump, write protection) do not.
 * `limit` stops logging once the entries' JSON exceeds that many bytes, as geth does.
 */

/** @ethereumjs/evm failures geth reports on the opcode's own log entry (raised before it executes). */
const PRE_EXECUTION_FAILURES: ReadonlySet<string> = new Set([
  EVMError.errorMessages.OUT_OF_GAS,
  EVMError.errorMessages.STACK_UNDERFLOW,
  EVMError.errorMessages.STACK_OVERFLOW,
]);
const CALLS: ReadonlySet<number> = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const EMPTY = new Uint8Array(0);

/** The struct logs outgrew the answer's bound (the runner names the setting in its error). */
export class TraceTooLargeError extends DomainError {
  override readonly name = 'TraceTooLargeError';
  constructor() {
    super('trace result too large');
  }
}

/** One struct log entry in geth's JSON. */
export interface StructLogEntry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

/** Opcodes after which a frame has ended (no implicit STOP follows). */
const HALTS: ReadonlySet<string> = new Set(['STOP', 'RETURN', 'REVERT', 'SELFDESTRUCT', 'INVALID']);

/** The interpreter's state at a frame's end (@ethereumjs/evm's `execResult.runState`). */
interface EndState {
  code?: Uint8Array;
  programCounter: number;
  gasLeft: bigint;
  gasRefund: bigint;
  stack: { getStack(): bigint[] };
  /** The frame's Memory (read through `memoryBytes`). */
  memory: unknown;
  memoryWordCount: bigint;
}

interface Frame {
  create: boolean;
  /** The index of the frame's last logged entry, -1 when none. */
  lastEntry: number;
  /** The return data of the frame's last call (what RETURNDATASIZE sees). */
  returnData: Uint8Array;
}

export class StructLogger implements Tracer {
  readonly steps = true;
  readonly opcodes = [...FRAME_OPCODES.keys()];
  private readonly logs: StructLogEntry[] = [];
  private bytes = 0;
  private readonly storage = new Map<string, Record<string, string>>();
  private readonly frames: Frame[] = [];
  private root: EVMResult | undefined;
  private gasUsed = 0n;

  /** `budget`: the bytes the entries may take before the answer is refused as too large. */
  constructor(
    private readonly options: StructLoggerOptions,
    private readonly budget: number = Number.POSITIVE_INFINITY,
  ) {}

  async startTx(): Promise<void> {}

  async step(e: InterpreterStep, now: StateView): Promise<void> {
    const frame = this.frames[this.frames.length - 1];
    const o = this.options;
    if (o.limit !== 0 && this.bytes > o.limit) {
      if (frame) frame.lastEntry = -1;
      return;
    }
    const code = e.opcode.code;
    const entry: StructLogEntry = {
      pc: e.pc,
      op: opcodeName(code),
      gas: Number(e.gasLeft),
      gasCost: Number(e.opcode.dynamicFee ?? BigInt(e.opcode.fee)),
      depth: e.depth + 1,
    };
    if (!o.disableStack) entry.stack = e.stack.map(quantity);
    if (o.enableReturnData && frame && frame.returnData.length > 0) entry.returnData = bytesToHex(frame.returnData);
    if (o.enableMemory && e.memory.length > 0) entry.memory = memoryWords(e.memory);
    if (!o.disableStorage && (code === 0x54 || code === 0x55)) {
      const n = e.stack.length;
      const contract = bytesToHex(e.address.bytes);
      let seen = this.storage.get(contract);
      if (!seen) {
        seen = {};
        this.storage.set(contract, seen);
      }
      if (code === 0x54 && n >= 1) {
        const key = word32(e.stack[n - 1]);
        seen[bytesToHex(key)] = bytesToHex(await now.storage(e.address.bytes, key));
        entry.storage = { ...seen };
      } else if (code === 0x55 && n >= 2) {
        seen[bytesToHex(word32(e.stack[n - 1]))] = bytesToHex(word32(e.stack[n - 2]));
        entry.storage = { ...seen };
      }
    }
    if (e.gasRefund > 0n) entry.refund = Number(e.gasRefund);
    this.logs.push(entry);
    this.bytes += JSON.stringify(entry).length + 1;
    if (this.bytes > this.budget) throw new TraceTooLargeError();
    if (frame) frame.lastEntry = this.logs.length - 1;
  }

  opcode(code: number, runState: RunStateView): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    // geth's cost of a CALL includes the gas handed to the callee (without the value stipend).
    if (CALLS.has(code) && frame.lastEntry >= 0 && runState.messageGasLimit !== undefined && runState.messageGasLimit > 0n) {
      this.logs[frame.lastEntry].gasCost += Number(runState.messageGasLimit);
    }
    frame.returnData = EMPTY;
  }

  enter(message: Message, kind: FrameType): void {
    this.frames.push({ create: kind === 'CREATE' || kind === 'CREATE2' || message.to === undefined, lastEntry: -1, returnData: EMPTY });
  }

  exit(result: EVMResult): void {
    const frame = this.frames.pop();
    if (!frame) return;
    const exec = result.execResult;
    const err = exec.exceptionError;
    if (err && PRE_EXECUTION_FAILURES.has(err.error) && frame.lastEntry >= 0) {
      const text = gethErrorText(err, (exec as { runState?: FailedFrame }).runState);
      // ethereumjs charges an out-of-bounds RETURNDATACOPY as gas; geth fails it while executing.
      if (text !== 'return data out of bounds') this.logs[frame.lastEntry].error = text;
    }
    if (!err) this.implicitStop(frame, (exec as { runState?: EndState }).runState);
    const parent = this.frames[this.frames.length - 1];
    if (!parent) {
      this.root = result;
      return;
    }
    const reverted = err?.error === EVMError.errorMessages.REVERT;
    const output = exec.returnValue ?? EMPTY;
    parent.returnData = frame.create ? (reverted ? output : EMPTY) : !err || reverted ? output : EMPTY;
  }

  /**
   * geth reads past the end of the code as STOP and logs it; @ethereumjs/evm just stops there.
   * A frame whose code ran out without a halting opcode gets that STOP entry.
   */
  private implicitStop(frame: Frame, rs: EndState | undefined): void {
    if (!rs?.code || rs.code.length === 0 || rs.programCounter < rs.code.length) return;
    const last = frame.lastEntry >= 0 ? this.logs[frame.lastEntry] : undefined;
    if (last && HALTS.has(last.op)) return;
    const o = this.options;
    if (o.limit !== 0 && this.bytes > o.limit) return;
    const entry: StructLogEntry = { pc: rs.programCounter, op: 'STOP', gas: Number(rs.gasLeft), gasCost: 0, depth: this.frames.length + 1 };
    if (!o.disableStack) entry.stack = rs.stack.getStack().map(quantity);
    if (o.enableReturnData && frame.returnData.length > 0) entry.returnData = bytesToHex(frame.returnData);
    const memory = memoryBytes(rs.memory, Number(rs.memoryWordCount) * 32);
    if (o.enableMemory && memory.length > 0) entry.memory = memoryWords(memory);
    if (rs.gasRefund > 0n) entry.refund = Number(rs.gasRefund);
    this.logs.push(entry);
    this.bytes += JSON.stringify(entry).length + 1;
    if (this.bytes > this.budget) throw new TraceTooLargeError();
  }

  async endTx(end: TxEnd): Promise<void> {
    this.gasUsed = end.gasUsed;
    this.root ??= end.result;
  }

  size(): number {
    return this.bytes;
  }

  result(): unknown {
    const exec = this.root?.execResult;
    const err = exec?.exceptionError;
    const keep = !err || err.error === EVMError.errorMessages.REVERT;
    return {
      gas: Number(this.gasUsed),
      failed: err !== undefined,
      returnValue: bytesToHex(keep ? (exec?.returnValue ?? EMPTY) : EMPTY),
      structLogs: this.logs,
    };
  }
}

function quantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}

function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = [];
  for (let i = 0; i < memory.length; i += 32) {
    const chunk = memory.subarray(i, i + 32);
    if (chunk.length === 32) words.push(bytesToHex(chunk));
    else {
      const word = new Uint8Array(32);
      word.set(chunk);
      words.push(bytesToHex(word));
    }
  }
  return words;
}
