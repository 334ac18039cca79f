import type { EVM } from '@ethereumjs/evm';
import { type OpcodeEntry, opcodeTable } from './opcodeTable.js';

/**
 * Runs a hook before chosen opcodes of an @ethereumjs/evm instance, by wrapping their handlers in
 * place in the EVM's opcode table. The EVM's `step` event would give the same moment, but any
 * `step` listener makes every opcode build an event object with stack and memory copies (~8×
 * slower, measured on @ethereumjs/evm 10.1.3); a wrapped handler costs one function call.
 *
 * The table is private to @ethereumjs/evm (read through `opcodeTable.ts`, which refuses
 * an EVM without it rather than leave it silently unhooked) and rebuilt when the EVM changes
 * hardfork, so the returned `ensure()` must be called before each run: it wraps entries not yet
 * wrapped and is cheap when nothing changed.
 */
export interface OpcodeHooks {
  ensure(): void;
}

/**
 * Hooks `before(code, runState)` (and `after(code)`, also when the handler throws) around each
 * opcode in `names` (code → mnemonic). Opcodes not active in the EVM's fork share the INVALID
 * entry and are left alone.
 */
export function hookOpcodes<RunState>(
  evm: EVM,
  names: ReadonlyMap<number, string>,
  before: (code: number, runState: RunState) => void,
  after?: (code: number) => void,
): OpcodeHooks {
  const wrappers = new WeakSet<object>();
  const ensure = (): void => {
    const table = opcodeTable(evm);
    for (const [code, name] of names) {
      const entry = table[code];
      if (!entry || entry.opcodeInfo.code !== code || entry.opcodeInfo.name !== name) continue;
      if (wrappers.has(entry.opHandler)) continue;
      const original = entry.opHandler as (runState: RunState, common: unknown) => unknown;
      const wrapped = entry.opcodeInfo.isAsync
        ? async (runState: RunState, common: unknown) => {
            before(code, runState);
            try {
              return await original(runState, common);
            } finally {
              after?.(code);
            }
          }
        : (runState: RunState, common: unknown) => {
            before(code, runState);
            try {
              return original(runState, common);
            } finally {
              after?.(code);
            }
          };
      wrappers.add(wrapped);
      entry.opHandler = wrapped as OpcodeEntry['opHandler'];
    }
  };
  ensure();
  return { ensure };
}
