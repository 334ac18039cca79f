import { EVMError } from '@ethereumjs/evm';

/**
 * geth's texts for EVM failures (ethereum/go-ethereum `core/vm/errors.go`, `core/vm/opcodes.go`),
 * which `eth_call` and `eth_estimateGas` return as `-32000` messages. ethereumjs reports the same
 * conditions with its own wording and without the stack depth or opcode, so the mapping reads those
 * from the failed frame's final state.
 */

/** geth's opcode names, with each opcode's stack inputs and outputs (for the stack error texts). */
const OPCODES = new Map<number, { name: string; inputs: number; outputs: number }>();

function op(code: number, name: string, inputs: number, outputs: number): void {
  OPCODES.set(code, { name, inputs, outputs });
}

// biome-ignore format: the opcode table reads as rows of related opcodes
{
  const binary = ['ADD', 'MUL', 'SUB', 'DIV', 'SDIV', 'MOD', 'SMOD'];
  op(0x00, 'STOP', 0, 0);
  for (const [i, n] of binary.entries()) op(0x01 + i, n, 2, 1);
  op(0x08, 'ADDMOD', 3, 1); op(0x09, 'MULMOD', 3, 1); op(0x0a, 'EXP', 2, 1); op(0x0b, 'SIGNEXTEND', 2, 1);
  for (const [i, n] of ['LT', 'GT', 'SLT', 'SGT', 'EQ'].entries()) op(0x10 + i, n, 2, 1);
  op(0x15, 'ISZERO', 1, 1); op(0x16, 'AND', 2, 1); op(0x17, 'OR', 2, 1); op(0x18, 'XOR', 2, 1); op(0x19, 'NOT', 1, 1);
  op(0x1a, 'BYTE', 2, 1); op(0x1b, 'SHL', 2, 1); op(0x1c, 'SHR', 2, 1); op(0x1d, 'SAR', 2, 1); op(0x1e, 'CLZ', 1, 1);
  op(0x20, 'KECCAK256', 2, 1);
  op(0x30, 'ADDRESS', 0, 1); op(0x31, 'BALANCE', 1, 1); op(0x32, 'ORIGIN', 0, 1); op(0x33, 'CALLER', 0, 1);
  op(0x34, 'CALLVALUE', 0, 1); op(0x35, 'CALLDATALOAD', 1, 1); op(0x36, 'CALLDATASIZE', 0, 1); op(0x37, 'CALLDATACOPY', 3, 0);
  op(0x38, 'CODESIZE', 0, 1); op(0x39, 'CODECOPY', 3, 0); op(0x3a, 'GASPRICE', 0, 1); op(0x3b, 'EXTCODESIZE', 1, 1);
  op(0x3c, 'EXTCODECOPY', 4, 0); op(0x3d, 'RETURNDATASIZE', 0, 1); op(0x3e, 'RETURNDATACOPY', 3, 0); op(0x3f, 'EXTCODEHASH', 1, 1);
  op(0x40, 'BLOCKHASH', 1, 1); op(0x41, 'COINBASE', 0, 1); op(0x42, 'TIMESTAMP', 0, 1); op(0x43, 'NUMBER', 0, 1);
  op(0x44, 'DIFFICULTY', 0, 1); op(0x45, 'GASLIMIT', 0, 1); op(0x46, 'CHAINID', 0, 1); op(0x47, 'SELFBALANCE', 0, 1);
  op(0x48, 'BASEFEE', 0, 1); op(0x49, 'BLOBHASH', 1, 1); op(0x4a, 'BLOBBASEFEE', 0, 1);
  op(0x50, 'POP', 1, 0); op(0x51, 'MLOAD', 1, 1); op(0x52, 'MSTORE', 2, 0); op(0x53, 'MSTORE8', 2, 0);
  op(0x54, 'SLOAD', 1, 1); op(0x55, 'SSTORE', 2, 0); op(0x56, 'JUMP', 1, 0); op(0x57, 'JUMPI', 2, 0);
  op(0x58, 'PC', 0, 1); op(0x59, 'MSIZE', 0, 1); op(0x5a, 'GAS', 0, 1); op(0x5b, 'JUMPDEST', 0, 0);
  op(0x5c, 'TLOAD', 1, 1); op(0x5d, 'TSTORE', 2, 0); op(0x5e, 'MCOPY', 3, 0); op(0x5f, 'PUSH0', 0, 1);
  for (let n = 1; n <= 32; n++) op(0x5f + n, `PUSH${n}`, 0, 1);
  for (let n = 1; n <= 16; n++) op(0x7f + n, `DUP${n}`, n, n + 1);
  for (let n = 1; n <= 16; n++) op(0x8f + n, `SWAP${n}`, n + 1, n + 1);
  for (let n = 0; n <= 4; n++) op(0xa0 + n, `LOG${n}`, n + 2, 0);
  op(0xf0, 'CREATE', 3, 1); op(0xf1, 'CALL', 7, 1); op(0xf2, 'CALLCODE', 7, 1); op(0xf3, 'RETURN', 2, 0);
  op(0xf4, 'DELEGATECALL', 6, 1); op(0xf5, 'CREATE2', 4, 1); op(0xfa, 'STATICCALL', 6, 1); op(0xfd, 'REVERT', 2, 0);
  op(0xfe, 'INVALID', 0, 0); op(0xff, 'SELFDESTRUCT', 1, 0);
}

/** The stack limit of the EVM. */
const STACK_LIMIT = 1024;

/** geth's `OpCode.String()`: the name, or `opcode 0x.. not defined`. */
export function opcodeName(code: number): string {
  return OPCODES.get(code)?.name ?? `opcode 0x${code.toString(16)} not defined`;
}

const SSTORE = 0x55;
/** EIP-2200's sentry: SSTORE needs more gas left than the call stipend. */
const SSTORE_SENTRY = 2300n;

/** What is left of the failed frame that the texts need (from ethereumjs' `execResult.runState`). */
export interface FailedFrame {
  opCode?: number;
  /** Gas left when the failing opcode was reached (ethereumjs traps before charging it). */
  gasLeft?: bigint;
  interpreter?: { common?: { gteHardfork(hardfork: string): boolean } };
  stack?: { length: number; peek(n: number): bigint[] };
  returnBytes?: Uint8Array;
}

/** The precompile whose failure is being described, when the top frame called one. */
export type PrecompileContext = { address: number; input: Uint8Array } | undefined;

/**
 * geth's error text for an ethereumjs EVM failure of the top frame. `REVERT` is not handled here:
 * reverts are reported with their data (see `revert.ts`).
 */
export function gethErrorText(error: EVMError, frame?: FailedFrame, precompile?: PrecompileContext): string {
  const M = EVMError.errorMessages;
  const opInfo = frame?.opCode === undefined ? undefined : OPCODES.get(frame.opCode);
  // Some ethereumjs texts carry a location suffix (`invalid JUMP at <codehash>/<address>:<pc>`).
  const kind = error.error.startsWith(`${M.INVALID_JUMP} at `) ? M.INVALID_JUMP : error.error;
  switch (kind) {
    case M.OUT_OF_GAS: {
      // ethereumjs charges gas for an out-of-bounds RETURNDATACOPY as out of gas; geth names it.
      if (frame?.opCode === 0x3e && frame.stack && frame.stack.length >= 3 && frame.returnBytes) {
        const [, offset, length] = frame.stack.peek(3);
        if (offset + length > BigInt(frame.returnBytes.length)) return 'return data out of bounds';
      }
      // EIP-2200 (Istanbul): an SSTORE with no more than the call stipend left fails before its
      // cost; geth wraps that gas function's error in its out-of-gas one.
      if (
        frame?.opCode === SSTORE &&
        frame.gasLeft !== undefined &&
        frame.gasLeft <= SSTORE_SENTRY &&
        frame.interpreter?.common?.gteHardfork('istanbul') === true
      ) {
        return 'out of gas: not enough gas for reentrancy sentry';
      }
      return 'out of gas';
    }
    case M.CODESTORE_OUT_OF_GAS:
      return 'contract creation code storage out of gas';
    case M.CODESIZE_EXCEEDS_MAXIMUM:
      return 'max code size exceeded';
    case M.STACK_UNDERFLOW:
      return `stack underflow (${frame?.stack?.length ?? 0} <=> ${opInfo?.inputs ?? 0})`;
    case M.STACK_OVERFLOW: {
      const growth = opInfo ? opInfo.outputs - opInfo.inputs : 1;
      return `stack limit reached ${frame?.stack?.length ?? STACK_LIMIT} (${STACK_LIMIT - growth})`;
    }
    case M.INVALID_JUMP:
      return 'invalid jump destination';
    case M.INVALID_OPCODE:
      return `invalid opcode: ${opcodeName(frame?.opCode ?? 0xfe)}`;
    case M.STATIC_STATE_CHANGE:
      return 'write protection';
    case M.CREATE_COLLISION:
      return 'contract address collision';
    case M.INSUFFICIENT_BALANCE:
      return 'insufficient balance for transfer';
    case M.INITCODE_SIZE_VIOLATION:
      return 'max initcode size exceeded';
    case M.INVALID_BYTECODE_RESULT:
      return 'invalid code: must not begin with 0xef';
    case M.REFUND_EXHAUSTED:
      return 'refund counter below zero';
    case M.OUT_OF_RANGE:
      // BLAKE2F (0x09) is the one precompile that reports this; geth has two texts for it.
      if (precompile?.address === 0x09) return precompile.input.length !== 213 ? 'invalid input length' : 'invalid final flag';
      return error.error;
    case M.INVALID_COMMITMENT:
      return 'mismatched versioned hash';
    case M.INVALID_PROOF:
      return 'error verifying kzg proof';
    default:
      return error.error;
  }
}
