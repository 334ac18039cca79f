import { EVMError, type EVMResult, type Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import { borrowedCodeAddress } from '../../execution/evm/frames.js';
import { type FailedFrame, gethErrorText, type PrecompileContext } from '../../execution/evmErrors.js';
import { decodeRevertReason } from '../../execution/revert.js';
import type { FrameType } from '../frameOpcodes.js';
import { addressKey, type RunStateView, type StillbornFrame, type Tracer, type TxEnd, type TxStart, wordToAddress } from './tracer.js';

/**
 * geth's `callTracer` (ethereum/go-ethereum `eth/tracers/native/call.go`): the transaction's call
 * tree, one frame per message and per SELFDESTRUCT. The top frame's `gas` is the transaction's gas
 * limit and its `gasUsed` the receipt's; inner frames show the gas handed to them (with the value
 * stipend) and what they consumed. A failed frame has geth's `error` text; a reverted one keeps its
 * output, and its `revertReason` when the data is `Error(string)` or `Panic(uint256)`; a failed
 * creation has no `to`. With `withLog`, each frame lists the logs it emitted itself, with their
 * block-wide `index` and their `position` among the frame's sub-calls; logs of failed frames (and
 * of everything under them) are dropped, as they never reached a receipt. `onlyTopCall` keeps the
 * top frame only.
 */

interface CallLog {
  address: Uint8Array;
  topics: bigint[];
  data: Uint8Array;
  index: number;
  position: number;
}

interface CallFrame {
  type: FrameType | 'SELFDESTRUCT';
  from: Uint8Array;
  to: Uint8Array | undefined;
  value: bigint | undefined;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  calls: CallFrame[];
  logs: CallLog[];
  /** Logs of this frame and its successful descendants still alive (for the log indexes). */
  aliveLogs: number;
  /** The message that opened the frame (none for a SELFDESTRUCT). */
  message?: Message;
}

const LOGS = [0xa0, 0xa1, 0xa2, 0xa3, 0xa4];
const SELFDESTRUCT = 0xff;
const EMPTY = new Uint8Array(0);

export class CallTracer implements Tracer {
  readonly opcodes: number[];
  private readonly stack: CallFrame[] = [];
  private top: CallFrame | undefined;
  private tx: TxStart | undefined;
  private logCount = 0;

  constructor(private readonly options: { onlyTopCall: boolean; withLog: boolean }) {
    this.opcodes = options.withLog ? [...LOGS, SELFDESTRUCT] : [SELFDESTRUCT];
  }

  async startTx(tx: TxStart): Promise<void> {
    this.tx = tx;
    this.logCount = tx.logIndexBase;
  }

  enter(message: Message, kind: FrameType): void {
    const parent = this.stack[this.stack.length - 1];
    const create = kind === 'CREATE' || kind === 'CREATE2';
    const frame: CallFrame = {
      type: kind,
      from: (message.delegatecall ? message.to?.bytes : message.caller.bytes) ?? EMPTY,
      to: create ? message.to?.bytes : (borrowedCodeAddress(message) ?? message.to)?.bytes,
      value: kind === 'STATICCALL' ? undefined : message.value,
      gas: parent ? message.gasLimit : (this.tx?.gasLimit ?? message.gasLimit),
      gasUsed: 0n,
      input: message.data.slice(),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      aliveLogs: 0,
      message,
    };
    if (!parent) {
      this.top = frame;
      frame.to = create ? this.tx?.created : this.tx?.to;
      frame.from = this.tx?.from ?? frame.from;
    }
    this.stack.push(frame);
  }

  exit(result: EVMResult): void {
    const frame = this.stack.pop();
    if (!frame) return;
    const exec = result.execResult;
    frame.gasUsed = exec.executionGasUsed;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = result.createdAddress?.bytes ?? frame.to;
    const output = exec.returnValue ?? EMPTY;
    const err = exec.exceptionError;
    // ethereumjs keeps Frontier's failed code deposit as a success, as geth does (it clears the error).
    if (!err || err.error === EVMError.errorMessages.CODESTORE_OUT_OF_GAS) {
      frame.output = output;
    } else {
      frame.error =
        err.error === EVMError.errorMessages.REVERT
          ? 'execution reverted'
          : gethErrorText(err, (exec as { runState?: FailedFrame }).runState, precompileContext(frame.message));
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
      if (err.error === EVMError.errorMessages.REVERT && output.length > 0) {
        frame.output = output;
        if (output.length >= 4) frame.revertReason = decodeRevertReason(output);
      }
    }
    const parent = this.stack[this.stack.length - 1];
    if (frame.error === undefined) {
      if (parent) parent.aliveLogs += frame.aliveLogs;
    } else {
      this.logCount -= frame.aliveLogs;
    }
    if (parent && !this.options.onlyTopCall) parent.calls.push(frame);
  }

  /** A call that failed before it started (insufficient balance, call depth): a frame with the error and no gas used. */
  stillborn(f: StillbornFrame): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame || this.options.onlyTopCall) return;
    frame.calls.push({
      type: f.type,
      from: f.from,
      to: f.to,
      value: f.value,
      gas: f.gas,
      gasUsed: 0n,
      input: f.input,
      output: undefined,
      error: f.error,
      revertReason: undefined,
      calls: [],
      logs: [],
      aliveLogs: 0,
    });
  }

  opcode(code: number, runState: RunStateView): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return;
    if (code === SELFDESTRUCT) {
      if (this.options.onlyTopCall || runState.stack.length < 1) return;
      const [beneficiary] = runState.stack.peek(1);
      frame.calls.push({
        type: 'SELFDESTRUCT',
        from: runState.interpreter.getAddress().bytes,
        to: wordToAddress(beneficiary),
        value: runState.interpreter.getSelfBalance(),
        gas: 0n,
        gasUsed: 0n,
        input: EMPTY,
        output: undefined,
        error: undefined,
        revertReason: undefined,
        calls: [],
        logs: [],
        aliveLogs: 0,
      });
      return;
    }
    // LOG0..LOG4: the handler fails on its own in a static frame or on a short stack.
    const topics = code - 0xa0;
    if (runState.interpreter.isStatic() || runState.stack.length < topics + 2) return;
    const words = runState.stack.peek(topics + 2);
    const offset = Number(words[0]);
    const length = Number(words[1]);
    const index = this.logCount++;
    frame.aliveLogs++;
    if (this.options.onlyTopCall && this.stack.length > 1) return;
    frame.logs.push({
      address: runState.interpreter.getAddress().bytes,
      topics: words.slice(2),
      data: length === 0 ? EMPTY : runState.memory.read(offset, length).slice(),
      index,
      position: frame.calls.length,
    });
  }

  async endTx(end: TxEnd): Promise<void> {
    if (this.top) this.top.gasUsed = end.gasUsed;
  }

  result(): unknown {
    if (!this.top) throw new Error('the call tracer saw no top-level call');
    return render(this.top, false, this.options.withLog);
  }
}

/** geth's JSON of a frame (`gen_callframe_json.go`), dropping the logs of failed frames. */
function render(f: CallFrame, parentFailed: boolean, withLog: boolean): Record<string, unknown> {
  const failed = parentFailed || f.error !== undefined;
  const out: Record<string, unknown> = {
    type: f.type,
    from: bytesToHex(f.from),
    gas: quantity(f.gas),
    gasUsed: quantity(f.gasUsed),
  };
  if (f.to !== undefined) out.to = bytesToHex(f.to);
  out.input = bytesToHex(f.input);
  if (f.output !== undefined && f.output.length > 0) out.output = bytesToHex(f.output);
  if (f.error !== undefined) out.error = f.error;
  if (f.revertReason !== undefined) out.revertReason = f.revertReason;
  if (f.calls.length > 0) out.calls = f.calls.map((c) => render(c, failed, withLog));
  if (withLog && !failed && f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map((t) => `0x${t.toString(16).padStart(64, '0')}`),
      data: bytesToHex(l.data),
      index: quantity(l.index),
      position: quantity(l.position),
    }));
  }
  if (f.value !== undefined) out.value = quantity(f.value);
  return out;
}

function quantity(value: bigint | number): string {
  return `0x${value.toString(16)}`;
}

function precompileContext(message: Message | undefined): PrecompileContext {
  if (!message?.isCompiled) return undefined;
  const to = message.to?.bytes;
  if (!to) return undefined;
  let address = 0;
  for (const b of to) address = address * 256 + b;
  return { address, input: message.data };
}

/**
 * geth's `4byteTracer` (`eth/tracers/native/4byte.go`): how often each function selector was
 * called, keyed `0x<selector>-<argument bytes>`, for CALL-family frames (the transaction's own
 * call included) with at least 4 bytes of input to a non-precompile.
 */
export class FourByteTracer implements Tracer {
  private readonly ids: Record<string, number> = {};
  private precompiles: ReadonlySet<string> = new Set();

  async startTx(tx: TxStart): Promise<void> {
    this.precompiles = tx.precompiles;
  }

  enter(message: Message, kind: FrameType): void {
    if (kind === 'CREATE' || kind === 'CREATE2' || message.data.length < 4) return;
    const to = (borrowedCodeAddress(message) ?? message.to)?.bytes;
    if (!to || this.precompiles.has(addressKey(to))) return;
    const key = `${bytesToHex(message.data.subarray(0, 4))}-${message.data.length - 4}`;
    this.ids[key] = (this.ids[key] ?? 0) + 1;
  }

  stillborn(f: StillbornFrame): void {
    if (f.type === 'CREATE' || f.type === 'CREATE2' || f.input.length < 4 || !f.to || this.precompiles.has(addressKey(f.to))) return;
    const key = `${bytesToHex(f.input.subarray(0, 4))}-${f.input.length - 4}`;
    this.ids[key] = (this.ids[key] ?? 0) + 1;
  }

  async endTx(): Promise<void> {}

  result(): unknown {
    return this.ids;
  }
}
