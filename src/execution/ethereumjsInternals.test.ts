import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { describe, expect, it } from 'vitest';
import { fastEipLookup, opcodeTable, pointEvmAt } from './ethereumjsInternals.js';

/** EIPs of several forks, and one no fork has. */
const PROBES = [1, 606, 1559, 2929, 3529, 3651, 3860, 4844, 7623, 7702, 7825, 9999];

describe('@ethereumjs internals', () => {
  it('fastEipLookup answers as isActivatedEIP did, and follows a hardfork change', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'london' });
    const before = PROBES.map((eip) => common.isActivatedEIP(eip));
    fastEipLookup(common);
    expect(PROBES.map((eip) => common.isActivatedEIP(eip))).toEqual(before);
    expect(common.isActivatedEIP(1559)).toBe(true);
    expect(common.isActivatedEIP(4844)).toBe(false);
    common.setHardfork('cancun');
    expect(common.isActivatedEIP(4844)).toBe(true);
  });

  it('error: fastEipLookup refuses a Common without _activatedEIPsCache instead of turning every EIP off', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'cancun' });
    Reflect.deleteProperty(common, '_activatedEIPsCache');
    expect(() => fastEipLookup(common)).toThrow(/Common\._activatedEIPsCache/);
  });

  it('error: fastEipLookup refuses a _activatedEIPsCache that is no longer what isActivatedEIP reads', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'cancun' });
    // As if a release kept the field but moved the method to another one: EIP-1 missing here.
    (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache = [];
    common.isActivatedEIP = () => true;
    expect(() => fastEipLookup(common)).toThrow(/Common\._activatedEIPsCache/);
  });

  it('opcodeTable: the EVM opcode table, one entry per opcode', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const table = opcodeTable(evm);
    expect(table[0x56].opcodeInfo.name).toBe('JUMP');
  });

  it('error: opcodeTable refuses an EVM without _opcodeMap', () => {
    expect(() => opcodeTable({} as EVM)).toThrow(/EVM\._opcodeMap/);
  });

  it('pointEvmAt moves the EVM and its journal to the new state', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const sm = new SimpleStateManager();
    pointEvmAt(evm, sm);
    expect(evm.stateManager).toBe(sm);
    expect((evm.journal as unknown as { stateManager: unknown }).stateManager).toBe(sm);
  });

  it('error: pointEvmAt refuses a journal without stateManager', () => {
    expect(() => pointEvmAt({ journal: {} } as EVM, new SimpleStateManager())).toThrow(/Journal\.stateManager/);
  });
});
