import { describe, expect, it } from 'vitest';
import { isHeavyMethod } from './limits.js';

describe('isHeavyMethod', () => {
  it('counts every method that runs the EVM or scans blocks, and nothing else', () => {
    for (const m of ['eth_call', 'eth_estimateGas', 'eth_getLogs', 'eth_createAccessList', 'eth_simulateV1', 'trace_call', 'trace_filter']) {
      expect(isHeavyMethod(m), m).toBe(true);
    }
    for (const m of ['eth_getBalance', 'eth_getStorageValues', 'eth_blockNumber', 'debug_getRawBlock']) expect(isHeavyMethod(m), m).toBe(false);
  });
});
