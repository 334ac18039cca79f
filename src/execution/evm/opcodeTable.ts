import type { EVM } from '@ethereumjs/evm';
import { unsupported } from './upstream.js';

/** The parts of an entry of @ethereumjs/evm's opcode table that opcode hooks touch. */
export interface OpcodeEntry {
  opcodeInfo: { code: number; name: string; isAsync: boolean; dynamicGas?: boolean };
  opHandler: (runState: never, common: unknown) => unknown;
  /** The dynamic gas handler (opcodes with `opcodeInfo.dynamicGas`), run before the gas is charged. */
  gasHandler?: (runState: never, gas: bigint, common: unknown) => Promise<bigint> | bigint;
}

/**
 * The EVM's opcode table (`_opcodeMap`, indexed by opcode), whose handlers `opcodeHooks.ts` wraps.
 * It is rebuilt when the EVM changes hardfork, so it is read again before each run.
 */
export function opcodeTable(evm: EVM): OpcodeEntry[] {
  const table = (evm as unknown as { _opcodeMap?: unknown })._opcodeMap;
  if (!Array.isArray(table)) throw unsupported('@ethereumjs/evm', 'EVM._opcodeMap', 'the opcode table to hook');
  return table as OpcodeEntry[];
}
