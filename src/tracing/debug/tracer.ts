import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { Address, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import type { FrameType } from '../frameOpcodes.js';

/**
 * geth's debug tracers (ethereum/go-ethereum `eth/tracers`): what a request asks for, and the
 * interface each tracer implements over @ethereumjs/evm's hooks. A tracer's result is geth's JSON
 * shape, built where the EVM runs (an EVM worker): that is where its size is bounded
 * (`tracing.debugMaxResultBytes`), and it crosses the thread boundary as plain JSON values.
 */

/** The struct logger's options (geth `logger.Config`). */
export interface StructLoggerOptions {
  disableStack: boolean;
  disableStorage: boolean;
  enableMemory: boolean;
  enableReturnData: boolean;
  /** geth's `limit`: stop logging once the entries' JSON exceeds this many bytes (0: no limit). */
  limit: number;
}

/** A tracer and its configuration, decoded from a request's trace config. */
export type TracerSpec =
  | ({ name: 'structLogger' } & StructLoggerOptions)
  | { name: 'callTracer'; onlyTopCall: boolean; withLog: boolean }
  | { name: 'prestateTracer'; diffMode: boolean; disableCode: boolean; disableStorage: boolean; includeEmpty: boolean }
  | { name: '4byteTracer' };

/** How one trace job runs: the tracer, the deadline of each traced transaction, the size bound. */
export interface DebugTraceOptions {
  tracer: TracerSpec;
  /** geth's `timeout`: a traced transaction running longer fails with `execution timeout`. */
  timeoutMs: number;
  /** The bound on one answer's JSON (`tracing.debugMaxResultBytes`). */
  maxResultBytes: number;
}

/** What a tracer learns when a transaction (or a traced call) starts. */
export interface TxStart {
  from: Uint8Array;
  /** The recipient, undefined for a creation. */
  to: Uint8Array | undefined;
  /** The address a creation deploys to. */
  created: Uint8Array | undefined;
  gasLimit: bigint;
  value: bigint;
  input: Uint8Array;
  coinbase: Uint8Array;
  /** EIP-7702 authorities (recovered), in list order. */
  authorities: Uint8Array[];
  /** Logs of the block before this transaction (the first log's `index`). */
  logIndexBase: number;
  /** EIP-6780 (Cancun) and EIP-7702 (Prague) rules. */
  cancun: boolean;
  prague: boolean;
  /** Addresses of the active precompiles, as unprefixed lower-case hex. */
  precompiles: ReadonlySet<string>;
}

/** How a transaction ended. */
export interface TxEnd {
  /** Gas used as the receipt shows it (after refunds). */
  gasUsed: bigint;
  /** The top frame's result. */
  result: EVMResult | undefined;
}

/** Account fields a tracer reads. */
export interface AccountView {
  /** The account is in the state (geth's `Exist`); a missing one reads as zeros and empty code. */
  exists: boolean;
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** The code hash; zero for a missing account, as geth's `GetCodeHash` answers. */
  codeHash: Uint8Array;
}

/** The state a tracer reads: now (mid-transaction), or before it (prestate lookups at the start). */
export interface StateView {
  account(address: Uint8Array): Promise<AccountView>;
  /** A storage slot as 32 bytes. */
  storage(address: Uint8Array, key: Uint8Array): Promise<Uint8Array>;
}

/** The parts of @ethereumjs/evm's run state the opcode hooks read (all public there). */
export interface RunStateView {
  stack: { peek(n?: number): bigint[]; length: number };
  memory: { read(offset: number, length: number): Uint8Array };
  interpreter: { getAddress(): Address; getSelfBalance(): bigint; isStatic(): boolean; getCallValue(): bigint };
  env: { depth: number };
  messageGasLimit?: bigint;
  returnBytes: Uint8Array;
}

/**
 * A frame that failed before it started: geth opens and closes it (its tracers see it), while
 * @ethereumjs/evm returns before making a message (insufficient balance, call depth).
 */
export interface StillbornFrame {
  type: FrameType;
  from: Uint8Array;
  /** The callee (the code address for CALLCODE/DELEGATECALL); undefined for a creation. */
  to: Uint8Array | undefined;
  value: bigint | undefined;
  gas: bigint;
  input: Uint8Array;
  error: string;
}

/** What the harness hands a tracer for each event. */
export interface Tracer {
  /** Opcodes whose handlers call {@link Tracer.opcode} before they run (after gas is charged). */
  readonly opcodes?: readonly number[];
  /** Whether the tracer needs every step (@ethereumjs/evm's `step` event; ~8× slower). */
  readonly steps?: boolean;
  startTx(tx: TxStart, before: StateView): Promise<void>;
  step?(step: InterpreterStep, now: StateView): Promise<void>;
  opcode?(code: number, runState: RunStateView, now: StateView): Promise<void> | void;
  enter?(message: Message, kind: FrameType): void;
  exit?(result: EVMResult): void;
  stillborn?(frame: StillbornFrame): void;
  endTx(end: TxEnd, after: StateView): Promise<void>;
  /** geth's JSON answer of the transaction. */
  result(): unknown;
  /** JSON bytes produced so far (struct logs), for the size bound; others are small. */
  size?(): number;
}

/** A 20-byte address from a stack word. */
export function wordToAddress(word: bigint): Uint8Array {
  return setLengthLeft(bigIntBytes(word & ((1n << 160n) - 1n)), 20);
}

/** A 32-byte big-endian word. */
export function word32(value: bigint): Uint8Array {
  return setLengthLeft(bigIntBytes(value), 32);
}

function bigIntBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Unprefixed lower-case hex of an address (map keys). */
export function addressKey(address: Uint8Array): string {
  return bytesToHex(address).slice(2);
}

/** A {@link StateView} over an @ethereumjs state manager. */
export function stateView(sm: {
  getAccount(a: Address): Promise<{ balance: bigint; nonce: bigint; codeHash: Uint8Array } | undefined>;
  getCode(a: Address): Promise<Uint8Array>;
  getStorage(a: Address, k: Uint8Array): Promise<Uint8Array>;
}): StateView {
  return {
    async account(address) {
      const a = new Address(address);
      const account = await sm.getAccount(a);
      if (!account) return { exists: false, balance: 0n, nonce: 0n, code: new Uint8Array(0), codeHash: new Uint8Array(32) };
      const code = await sm.getCode(a);
      return { exists: true, balance: account.balance, nonce: account.nonce, code, codeHash: account.codeHash };
    },
    async storage(address, key) {
      return setLengthLeft(await sm.getStorage(new Address(address), key), 32);
    },
  };
}
