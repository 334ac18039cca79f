import type { EVM } from '@ethereumjs/evm';
import { hookOpcodes, type OpcodeHooks } from './evm/opcodeHooks.js';
import type { EvmFlavour } from './evmPool.js';

/**
 * What eth_estimateGas needs to know of a run to skip most of its search (`estimate.ts`,
 * `sameRunAbove`): whether the run's path could have depended on its gas limit. It could through
 * an inner message (a CALL, CREATE or precompile call gets a share of the gas left, EIP-150's
 * 63/64) or the GAS opcode. The estimate's EVMs (their own flavour in the pool) count both: an
 * `beforeMessage` listener (one call a message) and a hook on GAS (one call a GAS).
 */
export interface EstimateProbe {
  /** Messages below the top one since the last reset. */
  innerMessages: number;
  /** GAS opcodes executed since the last reset. */
  gasReads: number;
  hooks: OpcodeHooks;
}

const GAS_OPCODE: ReadonlyMap<number, string> = new Map([[0x5a, 'GAS']]);
const probes = new WeakMap<EVM, EstimateProbe>();

/** The pool flavour of the estimate's EVMs. */
export const ESTIMATE_EVMS: EvmFlavour = {
  key: 'estimate',
  setup(evm) {
    const probe: EstimateProbe = { innerMessages: 0, gasReads: 0, hooks: undefined as unknown as OpcodeHooks };
    probe.hooks = hookOpcodes(evm, GAS_OPCODE, () => {
      probe.gasReads++;
    });
    evm.events.on('beforeMessage', (message: { depth: number }) => {
      if (message.depth > 0) probe.innerMessages++;
    });
    probes.set(evm, probe);
  },
};

/** The probe of an estimate EVM, its counts reset and its hook in place for a new run. */
export function resetProbe(evm: EVM): EstimateProbe {
  const probe = probes.get(evm);
  if (probe === undefined) throw new Error('not an EVM of the estimate flavour');
  probe.hooks.ensure();
  probe.innerMessages = 0;
  probe.gasReads = 0;
  return probe;
}
