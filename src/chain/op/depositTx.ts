import { RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, bytesToBigInt, concatBytes } from '@ethereumjs/util';
import { DomainError } from '../../errors/domainError.js';

/** The EIP-2718 type of a deposit. */
export const DEPOSIT_TX_TYPE = 0x7e;

/**
 * An OP-stack deposit transaction (EIP-2718 type 0x7E, the OP specification's "deposits"): a
 * message L1 forces into the L2 chain, or one the protocol itself adds (the L1 attributes at the
 * start of every block, the upgrade transactions). It carries no signature and no nonce: `from`
 * is given, `mint` wei are credited to it before it runs, and its gas is paid on L1.
 *
 * Encoding: `0x7E ‖ RLP([sourceHash, from, to, mint, value, gas, isSystemTx, data])`, `to` empty
 * for a contract creation, `isSystemTx` an RLP boolean (0x80 false, 0x01 true); its hash is the
 * keccak-256 of that encoding, as for any typed transaction.
 */
export interface DepositTx {
  /** Where it came from: the L1 deposit or the L1 block and the upgrade it is for (32 bytes). */
  sourceHash: Uint8Array;
  from: Uint8Array;
  /** Undefined: a contract creation. */
  to: Uint8Array | undefined;
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  /** Before Regolith: a system transaction uses no block gas. From Regolith such a deposit fails. */
  isSystemTx: boolean;
  data: Uint8Array;
}

/** Bytes that are not a deposit transaction. */
export class DepositDecodeError extends DomainError {
  override readonly name = 'DepositDecodeError';
}

const FIELDS = ['sourceHash', 'from', 'to', 'mint', 'value', 'gas', 'isSystemTx', 'data'] as const;

/** Whether `raw` (a transaction's EIP-2718 bytes) is a deposit. */
export function isDeposit(raw: Uint8Array): boolean {
  return raw.length > 0 && raw[0] === DEPOSIT_TX_TYPE;
}

function quantity(bytes: Uint8Array, field: string): bigint {
  if (bytes.length > 0 && bytes[0] === 0) throw new DepositDecodeError(`deposit ${field}: leading zero byte`);
  if (bytes.length > 32) throw new DepositDecodeError(`deposit ${field}: more than 32 bytes`);
  return bytesToBigInt(bytes);
}

function fixed(bytes: Uint8Array, length: number, field: string): Uint8Array {
  if (bytes.length !== length) throw new DepositDecodeError(`deposit ${field}: ${bytes.length} bytes, not ${length}`);
  return bytes;
}

/** The deposit `raw` encodes (its EIP-2718 bytes, type byte first). Throws {@link DepositDecodeError}. */
export function decodeDepositTx(raw: Uint8Array): DepositTx {
  if (!isDeposit(raw)) throw new DepositDecodeError(`not a deposit: type 0x${(raw[0] ?? 0).toString(16)}`);
  let decoded: unknown;
  try {
    decoded = RLP.decode(raw.subarray(1));
  } catch (e) {
    throw new DepositDecodeError(`deposit: bad RLP (${(e as Error).message})`);
  }
  if (!Array.isArray(decoded) || decoded.length !== FIELDS.length || decoded.some((f) => !(f instanceof Uint8Array))) {
    throw new DepositDecodeError(`deposit: not a list of ${FIELDS.length} byte strings`);
  }
  const [sourceHash, from, to, mint, value, gas, isSystemTx, data] = decoded as Uint8Array[];
  if (isSystemTx.length > 1 || (isSystemTx.length === 1 && isSystemTx[0] !== 1)) throw new DepositDecodeError('deposit isSystemTx: not a boolean');
  return {
    sourceHash: fixed(sourceHash, 32, 'sourceHash'),
    from: fixed(from, 20, 'from'),
    to: to.length === 0 ? undefined : fixed(to, 20, 'to'),
    mint: quantity(mint, 'mint'),
    value: quantity(value, 'value'),
    gasLimit: quantity(gas, 'gas'),
    isSystemTx: isSystemTx.length === 1,
    data,
  };
}

/** The EIP-2718 bytes of `tx`. */
export function encodeDepositTx(tx: DepositTx): Uint8Array {
  const n = bigIntToUnpaddedBytes;
  const fields = [
    tx.sourceHash,
    tx.from,
    tx.to ?? new Uint8Array(),
    n(tx.mint),
    n(tx.value),
    n(tx.gasLimit),
    tx.isSystemTx ? Uint8Array.of(1) : new Uint8Array(),
    tx.data,
  ];
  return concatBytes(Uint8Array.of(DEPOSIT_TX_TYPE), RLP.encode(fields));
}
