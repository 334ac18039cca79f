/**
 * The opcodes that open a call frame, one table for every tracer: the debug tracers' harness
 * (`debug/harness.ts`) learns from it which frame type a message gets, and the Parity recorder
 * (`recorder.ts`) which frame kind ({@link ./callTree.ts} `FrameKind`, the same names lower-cased).
 */

/** geth's frame types (callTracer's `type`): the mnemonic of the opcode that opened a frame. */
export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

/** The frame-opening opcodes and their types. */
export const FRAME_OPCODES: ReadonlyMap<number, FrameType> = new Map([
  [0xf0, 'CREATE'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf4, 'DELEGATECALL'],
  [0xf5, 'CREATE2'],
  [0xfa, 'STATICCALL'],
]);
