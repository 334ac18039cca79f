import { RLP } from '@ethereumjs/rlp';
import { bytesToData, dataToBytes } from '../codec/hex.js';

/**
 * Where a signed transaction's `to` sits in its RLP list, by EIP-2718 type: legacy
 * `[nonce, gasPrice, gas, to, …]`, 2930 `[chainId, nonce, gasPrice, gas, to, …]`, 1559, 4844 and
 * 7702 `[chainId, nonce, tip, feeCap, gas, to, …]`.
 */
const TO_INDEX: Readonly<Record<number, number>> = { 1: 4, 2: 5, 3: 5, 4: 5 };

/**
 * The target of a signed transaction (`eth_sendRawTransaction`'s parameter), for the contract
 * allowlist: its `to` as lower-case hex, `null` for a contract creation, or `undefined` when the
 * value is not a transaction's encoding (the method then answers it). Only the envelope is read:
 * no signature is checked here.
 */
export function signedTransactionTarget(value: unknown): string | null | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const bytes = dataToBytes(value);
    if (bytes.length === 0) return undefined;
    const typed = bytes[0] <= 0x7f;
    const index = typed ? TO_INDEX[bytes[0]] : 3;
    if (index === undefined) return undefined;
    const fields = RLP.decode(typed ? bytes.subarray(1) : bytes);
    if (!Array.isArray(fields)) return undefined;
    const to = fields[index];
    if (!(to instanceof Uint8Array)) return undefined;
    if (to.length === 0) return null;
    return to.length === 20 ? bytesToData(to) : undefined;
  } catch {
    return undefined;
  }
}
