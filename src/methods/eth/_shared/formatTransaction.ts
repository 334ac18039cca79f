import type { Block } from '@ethereumjs/block';
import type { AccessListBytes } from '@ethereumjs/tx';
import { isAccessList2930Tx, isBlob4844Tx, isEOACode7702Tx, isFeeMarket1559Tx, isLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt } from '@ethereumjs/util';
import { LruCache } from '../../../chain/lru.js';
import type { DepositTransaction } from '../../../chain/op/opBlock.js';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { bigIntToQuantity, bytesToData, dataToBytes } from '../../../codec/hex.js';
import { type BlockTransaction, isDepositTransaction } from './deposits.js';

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
  /** OP-stack deposits (type 0x7E) only: where it came from, the wei minted (when not 0), whether a system deposit (when true). */
  sourceHash?: string;
  mint?: string;
  isSystemTx?: boolean;
  /** A deposit whose receipt has a version (from Canyon). */
  depositReceiptVersion?: string;
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

/** The sender of a signed transaction, from a small LRU cache keyed by transaction hash; a deposit's `from`. */
export function senderOf(tx: BlockTransaction): Uint8Array {
  if (isDepositTransaction(tx)) return tx.deposit.from;
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
 * (EIP-1559), or the gas price where there is no base fee. geth `effectiveGasPrice`. A deposit
 * pays none on L2: 0 (op-geth `DepositTx.effectiveGasPrice`).
 */
export function effectiveGasPrice(tx: BlockTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (isDepositTransaction(tx)) return 0n;
  if (baseFeePerGas === undefined) return gasFeeCap(tx);
  const byTip = gasTipCap(tx) + baseFeePerGas;
  const cap = gasFeeCap(tx);
  return byTip < cap ? byTip : cap;
}

/**
 * The miner's share per gas: `min(tipCap, feeCap - baseFee)`, or the tip cap without a base fee
 * (geth `Transaction.EffectiveGasTip`); 0 for a deposit (op-geth's). Used by the fee oracles.
 */
export function effectiveGasTip(tx: BlockTransaction, baseFeePerGas: bigint | undefined): bigint {
  if (isDepositTransaction(tx)) return 0n;
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

/**
 * Renders an OP-stack deposit as op-geth's `newRPCTransaction` does: no signature (v, r, s 0), no
 * gas price (0), no chain id, access list or fee caps; `sourceHash`; `mint` unless it is 0 (op-geth
 * holds a zero mint as nil, omitted); `isSystemTx` only when true. A deposit has no nonce of its
 * own: `nonce` is its receipt's `depositNonce` (from Regolith), else 0, and `depositReceiptVersion`
 * comes with it when the receipt has one (from Canyon), op-geth's nesting.
 */
export function formatDepositTransaction(tx: DepositTransaction, at: TxPosition, receipt: StoredReceipt | undefined): RpcTransaction {
  const d = tx.deposit;
  const out: RpcTransaction = {
    blockHash: bytesToData(at.blockHash),
    blockNumber: bigIntToQuantity(at.blockNumber),
    blockTimestamp: bigIntToQuantity(at.blockTimestamp),
    from: bytesToData(d.from),
    gas: bigIntToQuantity(d.gasLimit),
    gasPrice: '0x0',
    hash: bytesToData(tx.hash()),
    input: bytesToData(d.data),
    nonce: bigIntToQuantity(receipt?.depositNonce ?? 0n),
    to: d.to === undefined ? null : bytesToData(d.to),
    transactionIndex: bigIntToQuantity(at.index),
    value: bigIntToQuantity(d.value),
    type: bigIntToQuantity(tx.type),
    v: '0x0',
    r: '0x0',
    s: '0x0',
    sourceHash: bytesToData(d.sourceHash),
  };
  if (d.mint !== 0n) out.mint = bigIntToQuantity(d.mint);
  if (d.isSystemTx) out.isSystemTx = true;
  if (receipt?.depositNonce !== undefined && receipt.depositReceiptVersion !== undefined)
    out.depositReceiptVersion = bigIntToQuantity(receipt.depositReceiptVersion);
  return out;
}

/**
 * Renders transaction `index` of a block, or null when the block has no such transaction. A
 * deposit's rendering reads its stored receipt: `receipts` are the block's own, given when it has
 * deposits (`receiptsForDeposits`, deposits.ts); without them a deposit's nonce is 0, as op-geth's when
 * it finds no receipt.
 */
export function formatBlockTransaction(block: Block, index: number, receipts?: readonly StoredReceipt[]): RpcTransaction | null {
  const tx: BlockTransaction | undefined = block.transactions[index];
  if (!tx) return null;
  const header = block.header;
  const at: TxPosition = {
    blockHash: block.hash(),
    blockNumber: header.number,
    blockTimestamp: header.timestamp,
    baseFeePerGas: header.baseFeePerGas,
    index,
  };
  return isDepositTransaction(tx) ? formatDepositTransaction(tx, at, receipts?.[index]) : formatTransaction(tx, at);
}
