import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { VM } from '@ethereumjs/vm';
import { borrowedCodeAddress } from '../execution/evm/frames.js';
import { hookOpcodes } from '../execution/evm/opcodeHooks.js';
import type { CallFrame, FrameError, FrameKind, SelfdestructNode, TxCallTree } from './callTree.js';
import { FRAME_OPCODES } from './frameOpcodes.js';

/**
 * Records a {@link TxCallTree} for every transaction a VM executes, from EVM hooks:
 *
 * - VM `beforeTx` / `afterTx` bracket a transaction, so the block-level system calls
 *   (EIP-4788 beacon root, EIP-2935 block hashes, EIP-7002/7251 requests), which also run EVM
 *   messages, are not recorded: no client traces them.
 * - EVM `beforeMessage` / `afterMessage` open and close frames. The root message's gas limit is
 *   already the transaction gas minus intrinsic gas, and its `executionGasUsed` excludes intrinsic
 *   gas and refunds, which is exactly what OpenEthereum reports for the root frame.
 * - The opcodes that open frames (CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL) and
 *   SELFDESTRUCT are wrapped in place in the EVM's opcode table, so the recorder learns which
 *   opcode opened the next message, and the beneficiary and balance of a self-destruct. The EVM's
 *   `step` event would give the same facts, but subscribing to it makes every opcode build an event
 *   object with a stack and memory copy: ~8× slower execution, measured on @ethereumjs/evm 10.1.3.
 *
 * Failed frames keep their children (OpenEthereum traces reverted sub-calls too). A SELFDESTRUCT
 * becomes the last child of the frame that executed it, if that frame did not fail.
 */
export interface TraceRecorder {
  /** The trees of the transactions executed since the last call, in order; clears them. */
  take(): TxCallTree[];
  /** Drops anything recorded (a block whose execution failed). */
  reset(): void;
}

// The frame kind each frame-opening opcode opens: its mnemonic, lower-cased.
const FRAME_KINDS: ReadonlyMap<number, FrameKind> = new Map([...FRAME_OPCODES].map(([code, type]) => [code, type.toLowerCase() as FrameKind]));
const SELFDESTRUCT = 0xff;
// The opcodes whose handlers are wrapped, by mnemonic.
const OPCODE_NAMES: ReadonlyMap<number, string> = new Map<number, string>([...FRAME_OPCODES, [SELFDESTRUCT, 'SELFDESTRUCT']]);

/** The parts of the interpreter's run state the SELFDESTRUCT wrapper reads (all public there). */
interface RunStateView {
  stack: { peek(n?: number): bigint[] };
  interpreter: { getAddress(): { bytes: Uint8Array }; getSelfBalance(): bigint };
}

interface OpenFrame {
  frame: CallFrame;
  message: Message;
  selfdestruct?: SelfdestructNode;
}

const EMPTY = new Uint8Array(0);

/**
 * Records the frames of one run at a time on a bare EVM: `begin()` before the run, `end()` after
 * it gives the root frame (undefined when no message ran). Messages outside begin/end (system
 * calls) are ignored. Attach once per EVM; the listeners stay for the EVM's lifetime, so EVMs that
 * carry one are kept apart from the plain ones (the `step`-free hooks cost little, but some).
 */
export interface FrameRecorder {
  begin(): void;
  end(): CallFrame | undefined;
}

/** Attaches a {@link FrameRecorder} to an EVM. */
export function attachFrameRecorder(evm: EVM): FrameRecorder {
  let stack: OpenFrame[] | undefined;
  let root: CallFrame | undefined;
  // The frame kind of the opcode now executing, consumed by the message it opens.
  let pendingKind: FrameKind | undefined;

  const onOpcode = (code: number, runState: RunStateView): void => {
    if (code === SELFDESTRUCT) {
      const top = stack?.[stack.length - 1];
      if (!top) return;
      const [beneficiary] = runState.stack.peek(1);
      top.selfdestruct = {
        kind: 'selfdestruct',
        address: runState.interpreter.getAddress().bytes,
        beneficiary: bigIntToAddress(beneficiary),
        balance: runState.interpreter.getSelfBalance(),
      };
      return;
    }
    pendingKind = FRAME_KINDS.get(code);
  };

  // Wraps the handlers of the frame-opening opcodes and SELFDESTRUCT (the EVM rebuilds its table
  // on a hardfork change, so the hooks are re-ensured before each run).
  const hooks = hookOpcodes<RunStateView>(evm, OPCODE_NAMES, onOpcode, () => {
    pendingKind = undefined;
  });

  evm.events.on('beforeMessage', (message: Message) => {
    if (!stack) return;
    const parent = stack[stack.length - 1];
    const kind: FrameKind = parent === undefined ? (message.to ? 'call' : 'create') : (pendingKind ?? inferKind(message, parent.message));
    pendingKind = undefined;
    const isCreate = kind === 'create' || kind === 'create2';
    const frame: CallFrame = {
      kind,
      // DELEGATECALL keeps msg.sender as the message's caller; the trace names the delegating contract.
      from: (message.delegatecall ? message.to?.bytes : message.caller.bytes) ?? EMPTY,
      to: isCreate ? undefined : (borrowedCodeAddress(message) ?? message.to)?.bytes,
      value: kind === 'staticcall' ? 0n : message.value,
      gas: message.gasLimit,
      // A copy: CALL passes a view of the caller's memory, which later opcodes may overwrite.
      input: message.data.slice(),
      output: EMPTY,
      gasUsed: 0n,
      error: undefined,
      precompile: false,
      children: [],
    };
    if (parent) parent.frame.children.push(frame);
    else root ??= frame;
    stack.push({ frame, message });
  });

  evm.events.on('afterMessage', (result: EVMResult) => {
    const top = stack?.pop();
    if (!top) return;
    const { frame, message } = top;
    const exec = result.execResult;
    frame.precompile = message.isCompiled === true;
    frame.gasUsed = exec.executionGasUsed;
    frame.output = exec.returnValue ?? EMPTY;
    frame.error = frameError(exec.exceptionError, frame.precompile);
    if (frame.kind === 'create' || frame.kind === 'create2') {
      frame.to = (result.createdAddress ?? message.to)?.bytes;
    }
    if (top.selfdestruct && frame.error === undefined) frame.children.push(top.selfdestruct);
  });

  return {
    begin() {
      hooks.ensure();
      stack = [];
      root = undefined;
      pendingKind = undefined;
    },
    end() {
      const out = root;
      stack = undefined;
      root = undefined;
      return out;
    },
  };
}

/**
 * Attaches a recorder to a VM. Attach once per VM, before it runs the blocks to trace; the
 * listeners stay for the VM's lifetime (a VM is cheap: replays create one per block).
 */
export function attachRecorder(vm: VM): TraceRecorder {
  const frames = attachFrameRecorder(vm.evm as EVM);
  let trees: TxCallTree[] = [];
  let txCount = 0;
  let open: { tx: TypedTransaction; txIndex: number } | undefined;

  vm.events.on('beforeTx', (tx: TypedTransaction) => {
    open = { tx, txIndex: txCount++ };
    frames.begin();
  });

  vm.events.on('afterTx', () => {
    if (!open) return;
    const { tx, txIndex } = open;
    const root = frames.end() ?? syntheticRoot(tx);
    trees.push({ txHash: tx.hash(), txIndex, root });
    open = undefined;
  });

  return {
    take() {
      const out = trees;
      trees = [];
      txCount = 0;
      return out;
    },
    reset() {
      trees = [];
      open = undefined;
      txCount = 0;
      frames.end();
    },
  };
}

/**
 * The kind of a message when no wrapped opcode announced it (defensive: every non-root message
 * comes from one of the wrapped opcodes). STATICCALL and a CALL inside a static frame cannot be
 * told apart from the message alone.
 */
function inferKind(message: Message, parent: Message): FrameKind {
  if (!message.to) return message.salt ? 'create2' : 'create';
  if (message.delegatecall) return 'delegatecall';
  if (borrowedCodeAddress(message)) return 'callcode';
  if (message.isStatic && !parent.isStatic) return 'staticcall';
  return 'call';
}

/**
 * Maps an @ethereumjs/evm exception to a neutral error. `code store out of gas` only survives
 * in Frontier, where the creation still succeeds (with empty code), so it is not an error.
 */
export function frameError(err: unknown, precompile: boolean): FrameError | undefined {
  if (err === undefined || err === null) return undefined;
  const raw = (err as { error?: unknown }).error;
  const text = typeof raw === 'string' ? raw : '';
  if (text === 'code store out of gas') return undefined;
  // Some messages carry a suffix (`invalid JUMP at …`): match the known prefix.
  for (const [prefix, error] of EVM_ERRORS) {
    if (text === prefix || text.startsWith(`${prefix} `)) return error === 'outOfGas' || !precompile ? error : 'precompileFailed';
  }
  return precompile ? 'precompileFailed' : 'internal';
}

/** @ethereumjs/evm `EVMError` messages (errors.ts) → neutral errors. */
const EVM_ERRORS: ReadonlyArray<readonly [string, FrameError]> = [
  ['revert', 'reverted'],
  ['out of gas', 'outOfGas'],
  ['invalid opcode', 'badInstruction'],
  ['invalid JUMP', 'badJumpDestination'],
  ['stack underflow', 'stackUnderflow'],
  ['stack overflow', 'stackOverflow'],
  ['static state change', 'staticStateChange'],
  ['value out of range', 'outOfBounds'],
  ['create collision', 'createCollision'],
  ['code size to deposit exceeds maximum code size', 'codeSizeLimit'],
  ['initcode exceeds max initcode size', 'initcodeSizeLimit'],
  ['invalid bytecode deployed', 'invalidCode'],
  ['insufficient balance', 'insufficientBalance'],
];

/**
 * A root frame for a transaction that never reached the EVM's message loop (an EIP-7702
 * authorization list that ran out of gas): it consumed all its gas and failed.
 */
function syntheticRoot(tx: TypedTransaction): CallFrame {
  // An OP-stack deposit has no intrinsic gas method: all its gas is the frame's.
  const gas = tx.gasLimit - ((tx as Partial<TypedTransaction>).getIntrinsicGas?.() ?? 0n);
  return {
    kind: tx.to ? 'call' : 'create',
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes,
    value: tx.value,
    gas,
    input: tx.data,
    output: EMPTY,
    gasUsed: gas,
    error: 'outOfGas',
    precompile: false,
    children: [],
  };
}

function bigIntToAddress(value: bigint): Uint8Array {
  const out = new Uint8Array(20);
  let v = value;
  for (let i = 19; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}
