/**
 * The neutral call tree a transaction's execution produces: what the EVM did, frame by frame,
 * with no wire format in it. The recorder ({@link ./recorder.ts}) builds it from EVM hooks;
 * renderers (Parity: {@link ./parity.ts}) turn it into JSON. Keeping the two apart lets one
 * recording serve several output styles, as paradigmxyz/revm-inspectors does with its call arena.
 *
 * Everything is in domain types: addresses and data are `Uint8Array`, amounts are `bigint`.
 */

/** How a frame was opened: the opcode (or the transaction itself for the root frame). */
export type FrameKind = 'call' | 'callcode' | 'delegatecall' | 'staticcall' | 'create' | 'create2';

/**
 * Why a frame failed, independent of any client's wording. The Parity renderer maps these to
 * OpenEthereum's texts (`Reverted`, `Out of gas`, …).
 */
export type FrameError =
  | 'reverted'
  | 'outOfGas'
  | 'badInstruction'
  | 'badJumpDestination'
  | 'stackUnderflow'
  | 'stackOverflow'
  | 'staticStateChange'
  | 'outOfBounds'
  | 'precompileFailed'
  | 'createCollision'
  | 'codeSizeLimit'
  | 'initcodeSizeLimit'
  | 'invalidCode'
  | 'insufficientBalance'
  | 'internal';

/** A message frame: one CALL-family call or one contract creation (or the transaction's root). */
export interface CallFrame {
  kind: FrameKind;
  /**
   * The account whose context opened the frame (the transaction sender for the root). For a
   * DELEGATECALL this is the delegating contract, not the preserved `msg.sender`.
   */
  from: Uint8Array;
  /**
   * The callee: for calls, the code address (the library for DELEGATECALL/CALLCODE); for
   * creations, the new contract's address (also when the creation failed, if it was computed).
   */
  to: Uint8Array | undefined;
  /** Wei transferred; for DELEGATECALL the parent's (apparent) value, as OpenEthereum reports it. */
  value: bigint;
  /** Gas handed to the frame: tx gas − intrinsic gas for the root, incl. the 2300 stipend for value calls. */
  gas: bigint;
  /** Call data, or the init code of a creation. */
  input: Uint8Array;
  /** Return data, the deployed runtime code of a creation, or the revert data. */
  output: Uint8Array;
  /** Gas the frame consumed, excluding intrinsic gas and before refunds. */
  gasUsed: bigint;
  /** Set when the frame failed; `undefined` on success. */
  error: FrameError | undefined;
  /** The callee is a precompiled contract. */
  precompile: boolean;
  /** Sub-frames and self-destructs, in execution order. */
  children: TraceNode[];
}

/** A SELFDESTRUCT executed by the frame that holds it as a child. */
export interface SelfdestructNode {
  kind: 'selfdestruct';
  /** The contract that self-destructed (the executing context address). */
  address: Uint8Array;
  /** Where its balance went. */
  beneficiary: Uint8Array;
  /** The balance it held when SELFDESTRUCT ran. */
  balance: bigint;
}

/** A child in a call tree. */
export type TraceNode = CallFrame | SelfdestructNode;

/** The call tree of one transaction. */
export interface TxCallTree {
  txHash: Uint8Array;
  /** Position of the transaction in its block. */
  txIndex: number;
  root: CallFrame;
}
