import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { bytesToData } from '../../../codec/hex.js';
import { effectiveGasPrice, effectiveGasTip, formatTransaction, senderCacheSize, senderOf } from './formatTransaction.js';

const KEY = hexToBytes(`0x${'45'.repeat(32)}`);
const SENDER = bytesToData(createAddressFromPrivateKey(KEY).bytes);
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
const at = { blockHash: new Uint8Array(32), blockNumber: 5n, blockTimestamp: 60n, index: 2 };

describe('formatTransaction', () => {
  it('legacy, EIP-155 protected: chainId from v, no yParity/accessList', () => {
    const tx = createLegacyTx({ nonce: 1, gasPrice: 10, gasLimit: 21000, to: `0x${'11'.repeat(20)}`, value: 1 }, { common }).sign(KEY);
    const out = formatTransaction(tx, { ...at, baseFeePerGas: 7n });
    expect(out.from).toBe(SENDER);
    expect(out.chainId).toBe('0x1');
    expect(out.v === '0x25' || out.v === '0x26').toBe(true);
    expect(out.gasPrice).toBe('0xa');
    expect(out).not.toHaveProperty('yParity');
    expect(out).not.toHaveProperty('accessList');
    expect(out).toMatchObject({ blockNumber: '0x5', blockTimestamp: '0x3c', transactionIndex: '0x2', type: '0x0', nonce: '0x1' });
  });
  it('legacy, unprotected (v = 27/28): no chainId', () => {
    const frontier = new Common({ chain: Mainnet, hardfork: Hardfork.Homestead });
    const tx = createLegacyTx({ gasPrice: 1, gasLimit: 53000 }, { common: frontier }).sign(KEY);
    const out = formatTransaction(tx, { ...at, baseFeePerGas: undefined });
    expect(out).not.toHaveProperty('chainId');
    expect(out.to).toBeNull();
  });
  it('EIP-1559: gasPrice is the effective price in the block; v = yParity', () => {
    const tx = createFeeMarket1559Tx({ maxFeePerGas: 100, maxPriorityFeePerGas: 3, gasLimit: 21000, chainId: 1 }, { common }).sign(KEY);
    const out = formatTransaction(tx, { ...at, baseFeePerGas: 50n });
    expect(out).toMatchObject({ gasPrice: '0x35', maxFeePerGas: '0x64', maxPriorityFeePerGas: '0x3', chainId: '0x1', accessList: [], type: '0x2' });
    expect(out.v).toBe(out.yParity);
    expect(formatTransaction(tx, { ...at, baseFeePerGas: 99n }).gasPrice).toBe('0x64');
  });
});

describe('effective gas price and tip', () => {
  const tx = createFeeMarket1559Tx({ maxFeePerGas: 100, maxPriorityFeePerGas: 3, gasLimit: 21000 }, { common }).sign(KEY);
  it('price = min(tip + baseFee, feeCap); tip = min(tipCap, feeCap - baseFee)', () => {
    expect(effectiveGasPrice(tx, 10n)).toBe(13n);
    expect(effectiveGasPrice(tx, 98n)).toBe(100n);
    expect(effectiveGasTip(tx, 10n)).toBe(3n);
    expect(effectiveGasTip(tx, 98n)).toBe(2n);
    expect(effectiveGasTip(tx, undefined)).toBe(3n);
  });
});

describe('senderOf', () => {
  it('recovers once per transaction hash', () => {
    const tx = createLegacyTx({ nonce: 77, gasPrice: 1, gasLimit: 21000 }, { common }).sign(KEY);
    const before = senderCacheSize();
    expect(bytesToData(senderOf(tx))).toBe(SENDER);
    expect(bytesToData(senderOf(tx))).toBe(SENDER);
    expect(senderCacheSize()).toBe(before + 1);
  });
});
