import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import { type Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { createdAddress } from '../evm/frames.js';
import { hookOpcodes, type OpcodeHooks } from '../evm/opcodeHooks.js';

/**
 * The logs of eth_simulateV1's calls as geth's simulation tracer reports them
 * (ethereum/go-ethereum `internal/ethapi/logtracer.go`), with its `traceTransfers` option: ETH
 * moved by a call, a creation or a SELFDESTRUCT is reported as an ERC-20 style `Transfer` log of
 * the ERC-7528 pseudo-address 0xeeee…eeee (EIP-7708's transfer logs, as geth emits them).
 */

/** ERC-7528: the pseudo-address of ETH transfer logs, and the ERC-20 Transfer topic. */
const TRANSFER_LOG_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
const TRANSFER_TOPIC = hexToBytes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');

/** A log as the simulation reports it: its place in the block's count of logs (geth's tracer). */
export interface SimLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  index: number;
}

/**
 * geth's simulation log tracer (`internal/ethapi/logtracer.go`): logs in the order emitted, a
 * frame's logs dropped when it fails, ERC-7528 transfer logs (from 0xeeee…) for value moved by
 * calls, creations and SELFDESTRUCT when `traceTransfers`; numbered block-wide, dropped ones included.
 */
export class LogTracer {
  frames: SimLog[][] = [];
  count = 0;
  constructor(readonly traceTransfers: boolean) {}
  reset(): void {
    this.frames = [];
  }
  capture(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    this.frames[this.frames.length - 1]?.push({ address, topics, data, index: this.count++ });
  }
  transfer(from: Uint8Array, to: Uint8Array, value: bigint): void {
    if (this.traceTransfers)
      this.capture(TRANSFER_LOG_ADDRESS, [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)], setLengthLeft(bigIntToBytes(value), 32));
  }
  enter(message: Message, created?: Address): void {
    this.frames.push([]);
    if (message.to === undefined) {
      if (message.value > 0n && created !== undefined) this.transfer(message.caller.bytes, created.bytes, message.value);
      return;
    }
    const callcode = message.to?.equals(message.caller) === true && !message.codeAddress.equals(message.to!);
    if (!message.delegatecall && !callcode && message.value > 0n && message.to !== undefined)
      this.transfer(message.caller.bytes, message.to.bytes, message.value);
  }
  exit(depth: number, failed: boolean): void {
    if (depth === 0) {
      if (failed) this.frames[0] = [];
      return;
    }
    if (this.frames.length <= 1) return;
    const frame = this.frames.pop()!;
    if (!failed) this.frames[this.frames.length - 1]!.push(...frame);
  }
  logs(): SimLog[] {
    return this.frames[0] ?? [];
  }
}

interface TracerRunState {
  stack: { peek(n?: number): bigint[] };
  memory: { read(offset: number, size: number): Uint8Array };
  interpreter: { getAddress(): Address; getSelfBalance(): bigint };
}

const TRACED_OPCODES: ReadonlyMap<number, string> = new Map([
  [0xa0, 'LOG'],
  [0xa1, 'LOG'],
  [0xa2, 'LOG'],
  [0xa3, 'LOG'],
  [0xa4, 'LOG'],
  [0xff, 'SELFDESTRUCT'],
]);

/** Each EVM's LOG/SELFDESTRUCT hooks, installed once; they feed the tracer of the run under way. */
const tracerHooks = new WeakMap<EVM, { hooks: OpcodeHooks; tracer?: LogTracer }>();

/**
 * Makes `tracer` record what `evm` runs until the returned function detaches it: its frames
 * (message events) and its LOG and SELFDESTRUCT opcodes.
 */
export function attachTracer(evm: EVM, tracer: LogTracer): () => void {
  let entry = tracerHooks.get(evm);
  if (entry === undefined) {
    const e: { hooks: OpcodeHooks; tracer?: LogTracer } = { hooks: undefined as unknown as OpcodeHooks };
    e.hooks = hookOpcodes<TracerRunState>(evm, TRACED_OPCODES, (code, rs) => {
      const t = e.tracer;
      if (t === undefined) return;
      if (code === 0xff) {
        const balance = rs.interpreter.getSelfBalance();
        if (balance > 0n) t.transfer(rs.interpreter.getAddress().bytes, setLengthLeft(bigIntToBytes(rs.stack.peek(1)[0]! & ((1n << 160n) - 1n)), 20), balance);
        return;
      }
      const n = code - 0xa0;
      const [offset, size, ...topics] = rs.stack.peek(2 + n);
      const data = size === 0n ? new Uint8Array() : Uint8Array.from(rs.memory.read(Number(offset), Number(size)));
      t.capture(
        rs.interpreter.getAddress().bytes,
        topics.map((x) => setLengthLeft(bigIntToBytes(x), 32)),
        data,
      );
    });
    tracerHooks.set(evm, e);
    entry = e;
  }
  entry.hooks.ensure();
  entry.tracer = tracer;
  const before = async (message: Message) => {
    // a creation's address, for its transfer log (geth's OnEnter names it)
    const created = message.to === undefined && message.value > 0n && tracer.traceTransfers ? await createdAddress(evm, message) : undefined;
    tracer.enter(message, created);
  };
  const after = (result: EVMResult) => {
    // the depth of the frame that ends is the depth of the frames still open, less one
    tracer.exit(tracer.frames.length - 1, result.execResult.exceptionError !== undefined);
  };
  evm.events.on('beforeMessage', before);
  evm.events.on('afterMessage', after);
  const current = entry;
  return () => {
    evm.events.off('beforeMessage', before);
    evm.events.off('afterMessage', after);
    current.tracer = undefined;
  };
}
