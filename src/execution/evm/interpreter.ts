import type { OpcodeEntry } from './opcodeTable.js';
import { checkFingerprint, unsupported } from './upstream.js';

/** @ethereumjs/evm's jump analysis of one code (Interpreter._getValidJumpDestinations). */
export interface JumpAnalysis {
  /** 1 at each valid JUMPDEST. */
  jumps: Uint8Array;
  /** The value each PUSH pushes, by the offset of its first immediate byte. */
  pushes: Record<number, bigint>;
  /** The opcode table entry of each byte (of the EVM that analysed it). */
  opcodesCached: OpcodeEntry[];
}

/**
 * Answers a jump analysis for `code` on an EVM whose opcode table is `table`: from a cache, or by
 * calling `analyze` (the interpreter's own analysis).
 */
export type JumpAnalyzer = (code: Uint8Array, table: OpcodeEntry[], analyze: () => JumpAnalysis) => JumpAnalysis;

/** What the fast paths use of an @ethereumjs/evm Interpreter instance. */
export interface InterpreterInstance {
  _result: { selfdestruct?: unknown; createdAddresses?: unknown; returnValue?: Uint8Array; logs?: unknown };
  _env: object;
  _getValidJumpDestinations: (code: Uint8Array) => JumpAnalysis;
  run(
    code: unknown,
    opts: unknown,
  ): Promise<{ runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: { error: string } }>;
}
export type InterpreterClass = new (...args: unknown[]) => InterpreterInstance;

let interpreterClass: Promise<InterpreterClass> | undefined;

/**
 * @ethereumjs/evm's Interpreter class, which the package does not export: loaded from the module
 * beside the package's entry point (the same module instance the EVM uses).
 */
export function loadInterpreter(): Promise<InterpreterClass> {
  interpreterClass ??= (async () => {
    const entry = import.meta.resolve('@ethereumjs/evm');
    const mod = (await import(new URL('./interpreter.js', entry).href)) as { Interpreter?: InterpreterClass };
    const cls = mod.Interpreter;
    if (typeof cls !== 'function') throw unsupported('@ethereumjs/evm', 'Interpreter (dist/esm/interpreter.js)', 'the interpreter the call fast paths run');
    checkFingerprint('Interpreter._getValidJumpDestinations', cls.prototype._getValidJumpDestinations);
    return cls;
  })();
  return interpreterClass;
}
