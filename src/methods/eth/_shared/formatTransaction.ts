import type { Block } from '@ethereumjs/block';
import type { AccessListBytes } from '@ethereumjs/tx';
import { isAccessList2930Tx, isBlob4844Tx, isEOACode7702Tx, isFeeMarket1559Tx, isLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt } from '@ethereumjs/util';
import { LruCache } from '../../../chain/lru.js';
import { bigIntToQuantity, bytesToData, dataToBytes } from '../../../codec/hex.js';

/** An access-list entry on the wire. */
export interface RpcAccessListEntry {
  address: string;
  storageKeys: string[];
}

/** An EIP-7702 authorization on the wire (geth `types.SetCodeAuthorization` JSON). */
export interface RpcAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  yParity: string;
  r: string;
  s: string;
}

/**
 * A transaction on the wire (geth `ethapi.RPCTransaction`); optional keys depend on the type. A
 * pending one (in a pool, in no block yet) has null block fields.
 */
export interface RpcTransaction {
  blockHash: string | null;
  blockNumber: string | null;
  blockTimestamp: string | null;
  from: string;
  gas: string;
  gasPrice: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  hash: string;
  input: string;
  nonce: string;
  to: string | null;
  transactionIndex: string | null;
  value: string;
  type: string;
  accessList?: RpcAccessListEntry[];
  chainId?: string;
  blobVersionedHashes?: string[];
  authorizationList?: RpcAuthorization[];
  v: string;
  r: string;
  s: string;
  yParity?: string;
}

/** Where a transaction was mined. `baseFeePerGas` is the block's (absent before London). */
export interface TxPosition {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  baseFeePerGas: bigint | undefined;
  index: number;
}

/**
 * Recovered senders by transaction hash. Recovery (secp256k1 public-key recovery plus keccak) costs
 * far more than the rest of rendering a transaction, and the same transactions are asked for again
 * and again (a block with full transactions, then its receipts, then its logs' clients).
 * 16,384 entries × ~150 bytes stays a few MB.
 */
const SENDER_CACHE_ENTRIES = 16_384;
const senderCache = new LruCache<string, Uint8Array>(SENDER_CACHE_ENTRIES);

/** The sender of a signed transaction, from a small LRU cache keyed by transaction hash. */
export function senderOf(tx: TypedTransaction): Uint8Array {
  const key = bytesToData(tx.hash());
  const hit = senderCache.get(key);
  if (hit) return hit;
  const sender = tx.getSenderAddress().bytes;
  senderCache.set(key, sender);
  return sender;
}

/** How many senders the cache holds (for tests). */
export function senderCacheSize(): number {
  return senderCache.size;
}

function gasTipCap(tx: TypedTransaction): bigint {
  return isLegacyTx(tx) || isAccessList2930Tx(tx) ? tx.gasPrice : tx.maxPriorityFeePerGas;
}

function gasFeeCap(tx: TypedTransaction): bigint {
  return isLegacyTx(tx) || isAccessList2930Tx(tx) ? tx.gasPrice : tx.maxFeePerGas;
}

/**
 * The price per gas the sender paid in a block with this base fee: `min(tipCap + baseFee, feeCap)`
 * (EIP-1559), or the gas price where there is no base fee. geth `effectiveGasPrice`.
 */
export function effectiveGasPrice(tx: TypedTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (baseFeePerGas === undefined) return gasFeeCap(tx);
  const byTip = gasTipCap(tx) + baseFeePerGas;
  const cap = gasFeeCap(tx);
  return byTip < cap ? byTip : cap;
}

/**
 * The miner's share per gas: `min(tipCap, feeCap - baseFee)`, or the tip cap without a base fee
 * (geth `Transaction.EffectiveGasTip`). Used by the fee oracles.
 */
export function effectiveGasTip(tx: TypedTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (baseFeePerGas === undefined) return gasTipCap(tx);
  const tip = gasTipCap(tx);
  const room = gasFeeCap(tx) - baseFeePerGas;
  return tip < room ? tip : room;
}

function formatAccessList(list: AccessListBytes): RpcAccessListEntry[] {
  return list.map(([address, keys]) => ({ address: bytesToData(address), storageKeys: keys.map(bytesToData) }));
}

/**
 * The EIP-155 chain id a legacy signature commits to, or undefined for an unprotected one
 * (v = 27/28). geth `deriveChainId`.
 */
function legacyChainId(v: bigint): bigint | undefined {
  if (v === 27n || v === 28n) return undefined;
  const id = v >= 35n ? (v - 35n) / 2n : 0n;
  return id === 0n ? undefined : id;
}

/**
 * Renders a mined transaction as geth does (`internal/ethapi` `newRPCTransaction`):
 * - legacy: `chainId` only when the signature is EIP-155 protected; `v` is the raw signature value;
 * - typed (2930 and later): `accessList`, `chainId`, `v` = `yParity` (0/1);
 * - 1559 and later: fee caps, and `gasPrice` = the effective price paid in the block;
 * - 4844: `maxFeePerBlobGas`, `blobVersionedHashes`; 7702: `authorizationList`.
 */
export function formatTransaction(tx: TypedTransaction, at: TxPosition): RpcTransaction {
  const v = tx.v ?? 0n;
  const out: RpcTransaction = {
    blockHash: bytesToData(at.blockHash),
    blockNumber: bigIntToQuantity(at.blockNumber),
    blockTimestamp: bigIntToQuantity(at.blockTimestamp),
    from: bytesToData(senderOf(tx)),
    gas: bigIntToQuantity(tx.gasLimit),
    gasPrice: bigIntToQuantity(effectiveGasPrice(tx, at.baseFeePerGas)),
    hash: bytesToData(tx.hash()),
    input: bytesToData(tx.data),
    nonce: bigIntToQuantity(tx.nonce),
    to: tx.to ? bytesToData(tx.to.bytes) : null,
    transactionIndex: bigIntToQuantity(at.index),
    value: bigIntToQuantity(tx.value),
    type: bigIntToQuantity(tx.type),
    v: bigIntToQuantity(v),
    r: bigIntToQuantity(tx.r ?? 0n),
    s: bigIntToQuantity(tx.s ?? 0n),
  };
  if (isLegacyTx(tx)) {
    const chainId = legacyChainId(v);
    if (chainId !== undefined) out.chainId = bigIntToQuantity(chainId);
    return out;
  }
  out.accessList = formatAccessList(tx.accessList);
  out.chainId = bigIntToQuantity(tx.chainId);
  out.yParity = bigIntToQuantity(v === 0n ? 0n : 1n);
  if (isFeeMarket1559Tx(tx) || isBlob4844Tx(tx) || isEOACode7702Tx(tx)) {
    out.maxFeePerGas = bigIntToQuantity(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = bigIntToQuantity(tx.maxPriorityFeePerGas);
  }
  if (isBlob4844Tx(tx)) {
    out.maxFeePerBlobGas = bigIntToQuantity(tx.maxFeePerBlobGas);
    out.blobVersionedHashes = tx.blobVersionedHashes.map((h) => bytesToData(dataToBytes(h)));
  }
  if (isEOACode7702Tx(tx)) {
    out.authorizationList = tx.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: bigIntToQuantity(bytesToBigInt(chainId)),
      address: bytesToData(address),
      nonce: bigIntToQuantity(bytesToBigInt(nonce)),
      yParity: bigIntToQuantity(bytesToBigInt(yParity)),
      r: bigIntToQuantity(bytesToBigInt(r)),
      s: bigIntToQuantity(bytesToBigInt(s)),
    }));
  }
  return out;
}

/**
 * Renders a transaction still in a pool, as geth's `newRPCPendingTransaction`: block hash,
 * number, timestamp and index null; `gasPrice` the fee cap (what it pays is not known before a
 * block sets the base fee).
 */
export function formatPendingTransaction(tx: TypedTransaction): RpcTransaction {
  const out = formatTransaction(tx, { blockHash: new Uint8Array(32), blockNumber: 0n, blockTimestamp: 0n, baseFeePerGas: undefined, index: 0 });
  out.blockHash = null;
  out.blockNumber = null;
  out.blockTimestamp = null;
  out.transactionIndex = null;
  return out;
}

/** Renders transaction `index` of a block, or null when the block has no such transaction. */
export function formatBlockTransaction(block: Block, index: number): RpcTransaction | null {
  const tx = block.transactions[index];
  if (!tx) return null;
  const header = block.header;
  return formatTransaction(tx, {
    blockHash: block.hash(),
    blockNumber: header.number,
    blockTimestamp: header.timestamp,
    baseFeePerGas: header.baseFeePerGas,
    index,
  });
}
