// Owns the demo chain's transactions: @ethereumjs/tx objects (the VM executes them as they are),
// signed with the senders' fixed keys (RFC 6979, so the same bytes on every run), with nonces kept
// here; and the one EIP-4844 blob.
import type { Common } from '@ethereumjs/common';
import { Hardfork } from '@ethereumjs/common';
import { createAccessList2930Tx, createBlob4844Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { type Address, bytesToHex, hexToBytes } from 'viem';
import type { KeyedAccount } from '../lib/accounts.js';
import { GWEI, senders } from './demoParams.js';
import type { TxSpec } from './planTypes.js';

export interface TxMaker {
  /** The nonce `a`'s next transaction gets. */
  peekNonce(a: KeyedAccount): bigint;
  /** Builds and signs `from`'s next transaction for block `n`. */
  makeTx(n: number, from: KeyedAccount, spec: TxSpec): TypedTransaction;
}

/** A transaction maker for the chain whose Common at block n is `commonAt(n)`. */
export function createTxMaker(commonAt: (n: number) => Common): TxMaker {
  const nonces = new Map<Address, bigint>(senders.map((a) => [a.address, 0n]));
  const takeNonce = (a: KeyedAccount) => {
    const n = nonces.get(a.address)!;
    nonces.set(a.address, n + 1n);
    return n;
  };
  return {
    peekNonce: (a) => nonces.get(a.address)!,
    makeTx(n, from, spec) {
      const c = commonAt(n);
      const base = { nonce: takeNonce(from), gasLimit: spec.gas ?? 300_000n, to: spec.to, value: spec.value ?? 0n, data: spec.data ?? '0x' };
      const type = spec.type ?? (c.gteHardfork(Hardfork.London) ? 2 : 0);
      const key = hexToBytes(from.privateKey);
      if (type === 0) {
        let txCommon = c;
        if (spec.unprotected) {
          txCommon = c.copy();
          txCommon.setHardfork(Hardfork.Homestead); // signs without EIP-155 (v = 27/28)
        }
        return createLegacyTx({ ...base, gasPrice: spec.gasPrice ?? 2n * GWEI }, { common: txCommon }).sign(key);
      }
      if (type === 1)
        return createAccessList2930Tx({ ...base, gasPrice: spec.gasPrice ?? 2n * GWEI, accessList: spec.accessList ?? [] }, { common: c }).sign(key);
      const fees = { maxFeePerGas: spec.maxFee ?? 3n * GWEI, maxPriorityFeePerGas: spec.tip ?? 1n * GWEI, accessList: spec.accessList ?? [] };
      if (type === 2) return createFeeMarket1559Tx({ ...base, ...fees }, { common: c }).sign(key);
      return createBlob4844Tx(
        { ...base, ...fees, maxFeePerBlobGas: spec.maxFeePerBlobGas ?? 10n, blobVersionedHashes: spec.blobVersionedHashes },
        { common: c },
      ).sign(key);
    },
  };
}

/**
 * One EIP-4844 blob: 4096 field elements, each 0x00 followed by 31 data bytes (so every element is
 * below the BLS modulus), the data terminated by 0x80 as in the usual blob encoding.
 */
export function makeBlob(data: Uint8Array): `0x${string}` {
  const padded = new Uint8Array(4096 * 31);
  padded.set(data);
  padded[data.length] = 0x80;
  const blob = new Uint8Array(4096 * 32);
  for (let i = 0; i < 4096; i++) blob.set(padded.subarray(i * 31, (i + 1) * 31), i * 32 + 1);
  return bytesToHex(blob);
}
