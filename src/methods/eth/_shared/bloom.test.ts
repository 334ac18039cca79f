import { describe, expect, it } from 'vitest';
import type { StoredLog } from '../../../chain/receipts.js';
import { bytesToData, dataToBytes } from '../../../codec/hex.js';
import { bloomBits, bloomMayContain, logsBloom } from './bloom.js';

// The receipt of execution-apis `eth_getTransactionReceipt/get-access-list.io`: one log and the
// logsBloom geth reported for it.
const ADDRESS = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df';
const TOPICS = ['0x00000000000000000000000000000000000000000000000000000000656d6974', '0x95104e47e1982aba633477f377b1511396c3fe83600224bcb0c78949be705b33'];
const GETH_BLOOM =
  '0x00000000000000000000000000000000000000000000000000800000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000000000200000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000009000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000';
const LOG: StoredLog = [dataToBytes(ADDRESS), TOPICS.map(dataToBytes), dataToBytes(`0x${'0'.repeat(62)}0f`)];

describe('logsBloom', () => {
  it('matches the bloom geth computed for a receipt', () => {
    expect(bytesToData(logsBloom([LOG]))).toBe(GETH_BLOOM);
  });
  it('is all zero for no logs', () => {
    expect(logsBloom([])).toEqual(new Uint8Array(256));
  });
});

describe('bloomMayContain', () => {
  const bloom = dataToBytes(GETH_BLOOM);
  it('finds every value that went in', () => {
    expect(bloomMayContain(bloom, bloomBits(dataToBytes(ADDRESS)))).toBe(true);
    for (const t of TOPICS) expect(bloomMayContain(bloom, bloomBits(dataToBytes(t)))).toBe(true);
  });
  it('rules out a value that did not', () => {
    expect(bloomMayContain(bloom, bloomBits(dataToBytes(`0x${'00'.repeat(19)}aa`)))).toBe(false);
  });
});
