import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { signedTransactionTarget } from './signedTarget.js';

const account = privateKeyToAccount(`0x${'42'.repeat(32)}`);
const TO = '0x00000000000000000000000000000000000c0ffe';
const common = { chainId: 1, nonce: 3, gas: 21_000n, value: 1n } as const;

describe('signedTransactionTarget', () => {
  it('reads `to` from every envelope: legacy, EIP-2930, EIP-1559', async () => {
    const raws = [
      await account.signTransaction({ ...common, type: 'legacy', to: TO, gasPrice: 1n }),
      await account.signTransaction({ ...common, type: 'eip2930', to: TO, gasPrice: 1n, accessList: [] }),
      await account.signTransaction({ ...common, type: 'eip1559', to: TO, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
    ];
    expect(raws.map(signedTransactionTarget)).toEqual([TO, TO, TO]);
  });

  it('a contract creation has no target (null)', async () => {
    const raw = await account.signTransaction({ ...common, type: 'eip1559', data: '0x6000', maxFeePerGas: 2n, maxPriorityFeePerGas: 1n });
    expect(signedTransactionTarget(raw)).toBeNull();
  });

  it('bytes that are no transaction: undefined (the method answers them)', () => {
    expect([signedTransactionTarget('0x'), signedTransactionTarget('0xzz'), signedTransactionTarget('0x05c0'), signedTransactionTarget(7)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
