import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { BatchOp, Level } from '../db/database.js';
import { decodeNumber, encodeNumber, PREFIX, prefixed } from '../db/keys.js';
import type { CallFrame, TraceNode, TxCallTree } from './callTree.js';

/**
 * The address history behind Otterscan's `ots_searchTransactions*`, `ots_getContractCreator` and
 * `ots_getTransactionBySenderAndNonce`: erigon's idea (its `TracesFromIdx`/`TracesToIdx`, every
 * call frame's `from` and `to` per transaction, written as blocks execute), kept in LevelDB keys
 * whose order is the order a page is read in, so that a page costs one seek and a short scan
 * wherever it lies in an address's history.
 *
 * Key schema (tables next to those of `db/keys.ts`; every key holds its block number, so the
 * entries of one height can be found and removed when that height is written again):
 *
 * | prefix | key                                                       | value                     |
 * |--------|-----------------------------------------------------------|---------------------------|
 * | `a`    | address (20) ++ 0x00 ++ block (8) ++ tx index (4)         | empty: the address takes part in that transaction |
 * | `a`    | address (20) ++ 0x01 ++ block (8)                         | empty: it takes part in the block itself (beneficiary, uncle beneficiary, withdrawal) |
 * | `o`    | sender (20) ++ nonce (8) ++ block (8) ++ tx index (4)     | empty: the transaction that sender sent with that nonce |
 * | `c`    | contract (20) ++ block (8) ++ tx index (4)                | creator (20): a creation that stuck (its frame and every frame above it succeeded) |
 * | `l`    | block (8)                                                 | the entries written for that height (see {@link encodeList}) |
 * | `m` + `historyIndexHead` | —                                      | block number (8): blocks up to it are all indexed (absent: the archive's first block) |
 *
 * What makes an address take part in a transaction (erigon's call tracer: `OnEnter` of every
 * frame, including the transaction's own): the sender and the recipient or created contract; every
 * CALL, CALLCODE, DELEGATECALL, STATICCALL frame's caller and callee (the code address for
 * DELEGATECALL/CALLCODE), precompiles included; every CREATE/CREATE2's creator and new address,
 * failed ones included; every SELFDESTRUCT's contract and beneficiary; reverted frames included. A
 * log's emitter is always the context of a frame, which is that frame's `from` (DELEGATECALL,
 * CALLCODE) or `to`, so it is in the set already. Block level, as erigon adds them at the block's
 * end (its "final transaction"): the beneficiary and the uncles' beneficiaries, and, which erigon
 * does not, withdrawal recipients. Block-level entries are in their own key range (byte 0x01), so
 * a search for an address's transactions never reads them (erigon iterates past them).
 *
 * Reorganisations: the importer writes a block's entries in its canonical operations, after
 * deleting the entries the height's list (`l`) names, so that a block replacing another at that
 * height takes its entries with it (the dropped block's go in the same batch). Heights a shorter
 * branch no longer reaches keep their entries until a block is written there again; readers ignore
 * everything above the head they answer at.
 */

/** Key prefixes of the history's tables. */
export const HISTORY_PREFIX = PREFIX.addressHistory;
export const NONCE_PREFIX = PREFIX.senderNonce;
export const CREATOR_PREFIX = PREFIX.contractCreator;
export const LIST_PREFIX = PREFIX.historyList;

/** The transaction index of a block-level entry in a height's list. */
const BLOCK_LEVEL = 0xffffffff;
const TX_RANGE = 0x00;
const BLOCK_RANGE = 0x01;

const HEAD_KEY = prefixed(PREFIX.meta, new TextEncoder().encode('historyIndexHead'));

/** Where one transaction sits. */
export interface TxRef {
  block: bigint;
  txIndex: number;
}

function u32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function readU32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
}

/** `a ++ address ++ 0x00 ++ block ++ txIndex`, or for a block-level entry `a ++ address ++ 0x01 ++ block`. */
export function historyKey(address: Uint8Array, block: bigint, txIndex: number): Uint8Array {
  const blockLevel = txIndex === BLOCK_LEVEL;
  const key = new Uint8Array(blockLevel ? 30 : 34);
  key[0] = HISTORY_PREFIX;
  key.set(address, 1);
  key[21] = blockLevel ? BLOCK_RANGE : TX_RANGE;
  key.set(encodeNumber(block), 22);
  if (!blockLevel) key.set(u32(txIndex), 30);
  return key;
}

/** `o ++ sender ++ nonce ++ block ++ txIndex`. */
export function nonceKey(sender: Uint8Array, nonce: bigint, block: bigint, txIndex: number): Uint8Array {
  const key = new Uint8Array(41);
  key[0] = NONCE_PREFIX;
  key.set(sender, 1);
  key.set(encodeNumber(nonce), 21);
  key.set(encodeNumber(block), 29);
  key.set(u32(txIndex), 37);
  return key;
}

/** `c ++ contract ++ block ++ txIndex`. */
export function creatorKey(contract: Uint8Array, block: bigint, txIndex: number): Uint8Array {
  const key = new Uint8Array(33);
  key[0] = CREATOR_PREFIX;
  key.set(contract, 1);
  key.set(encodeNumber(block), 21);
  key.set(u32(txIndex), 29);
  return key;
}

function listKey(block: bigint): Uint8Array {
  return prefixed(LIST_PREFIX, encodeNumber(block));
}

/** The entries of one block, before they become keys. */
export interface BlockHistory {
  /** Per transaction, the addresses taking part (deduplicated). */
  txs: Array<{
    txIndex: number;
    addresses: Uint8Array[];
    sender: Uint8Array;
    /** None for an OP-stack deposit, which carries no nonce. */
    nonce: bigint | undefined;
    creations: Array<{ contract: Uint8Array; creator: Uint8Array }>;
  }>;
  /** Beneficiaries and withdrawal recipients. */
  blockLevel: Uint8Array[];
}

/** Adds every address of a frame and its subtree to `into` (by hex, first seen kept). */
function collectAddresses(node: TraceNode, into: Map<string, Uint8Array>): void {
  const add = (a: Uint8Array | undefined): void => {
    if (a && a.length === 20) {
      const k = bytesToHex(a);
      if (!into.has(k)) into.set(k, a);
    }
  };
  if (node.kind === 'selfdestruct') {
    add(node.address);
    add(node.beneficiary);
    return;
  }
  add(node.from);
  add(node.to);
  for (const child of node.children) collectAddresses(child, into);
}

/** The creations of a tree that stuck: a CREATE/CREATE2 frame that succeeded under frames that all succeeded. */
function collectCreations(frame: CallFrame, out: Array<{ contract: Uint8Array; creator: Uint8Array }>): void {
  if (frame.error !== undefined) return;
  if ((frame.kind === 'create' || frame.kind === 'create2') && frame.to) out.push({ contract: frame.to, creator: frame.from });
  for (const child of frame.children) if (child.kind !== 'selfdestruct') collectCreations(child, out);
}

/** What a block adds to the history, from its transactions' call trees (in block order). */
export function blockHistory(block: Block, txs: readonly TxCallTree[]): BlockHistory {
  const out: BlockHistory = { txs: [], blockLevel: [] };
  for (const tree of txs) {
    const tx = block.transactions[tree.txIndex];
    if (!tx) throw new Error(`address history: block ${block.header.number} has no transaction ${tree.txIndex}`);
    const addresses = new Map<string, Uint8Array>();
    collectAddresses(tree.root, addresses);
    const creations: Array<{ contract: Uint8Array; creator: Uint8Array }> = [];
    collectCreations(tree.root, creations);
    out.txs.push({ txIndex: tree.txIndex, addresses: [...addresses.values()], sender: tree.root.from, nonce: (tx as { nonce?: bigint }).nonce, creations });
  }
  const level = new Map<string, Uint8Array>();
  const addLevel = (a: Uint8Array) => level.set(bytesToHex(a), a);
  addLevel(block.header.coinbase.bytes);
  for (const uncle of block.uncleHeaders) addLevel(uncle.coinbase.bytes);
  for (const w of block.withdrawals ?? []) addLevel(w.address.bytes);
  out.blockLevel = [...level.values()];
  return out;
}

/**
 * A height's list: the keys written for it, each as one byte of length then the key, so that
 * writing the height again can delete exactly them.
 */
export function encodeList(keys: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const k of keys) size += 1 + k.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const k of keys) {
    out[at++] = k.length;
    out.set(k, at);
    at += k.length;
  }
  return out;
}

/** Inverse of {@link encodeList}. */
export function decodeList(bytes: Uint8Array): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = bytes[at++];
    if (at + n > bytes.length) throw new Error('database corrupt: address history list ends early');
    keys.push(bytes.subarray(at, at + n));
    at += n;
  }
  return keys;
}

const EMPTY = new Uint8Array(0);

/**
 * The operations that make `history` the entries of height `number`: first the deletion of what
 * the height held before (`previous`, its list: a block it replaces, or the same block indexed
 * again), then the new entries and the new list. Deletions come first so that an entry both
 * lists hold survives.
 */
export function historyOps(number: bigint, history: BlockHistory, previous: Uint8Array | undefined): BatchOp[] {
  const ops: BatchOp[] = previous ? decodeList(previous).map((key) => ({ type: 'del' as const, key: key.slice() })) : [];
  const written: Uint8Array[] = [];
  const put = (key: Uint8Array, value: Uint8Array = EMPTY) => {
    ops.push({ type: 'put', key, value });
    written.push(key);
  };
  for (const tx of history.txs) {
    for (const address of tx.addresses) put(historyKey(address, number, tx.txIndex));
    if (tx.nonce !== undefined) put(nonceKey(tx.sender, tx.nonce, number, tx.txIndex));
    for (const c of tx.creations) put(creatorKey(c.contract, number, tx.txIndex), c.creator);
  }
  for (const address of history.blockLevel) put(historyKey(address, number, BLOCK_LEVEL));
  ops.push({ type: 'put', key: listKey(number), value: encodeList(written) });
  return ops;
}

/** The list a height holds now, if any. */
export function readList(level: Level, number: bigint): Promise<Uint8Array | undefined> {
  return level.get(listKey(number));
}

/**
 * The highest block up to which every block is indexed; absent, `start` (the genesis, or an
 * archive's first block, which has nothing to index).
 */
export async function readHistoryHead(level: Level, start = 0n): Promise<bigint> {
  const bytes = await level.get(HEAD_KEY);
  return bytes ? decodeNumber(bytes) : start;
}

/** The operation that records blocks up to `number` as indexed. */
export function historyHeadOp(number: bigint): BatchOp {
  return { type: 'put', key: HEAD_KEY, value: encodeNumber(number) };
}

/** A page of an address's transactions, newest first, as ots_searchTransactions* read it. */
export interface HistoryPage {
  txs: TxRef[];
  /** Whether another transaction lies beyond the page in the direction searched. */
  more: boolean;
}

/** Where and how far a page is read. */
export interface PageQuery {
  address: Uint8Array;
  /** `before`: blocks below `block` (all up to `head` when undefined); `after`: blocks above it (all from 0 when undefined). */
  direction: 'before' | 'after';
  block: bigint | undefined;
  /** The highest block that counts (the head the request answers at). */
  head: bigint;
  /**
   * Transactions wanted: once reached, the page still takes the rest of the last block's
   * transactions, as erigon does (a block's matches are never split between pages).
   */
  pageSize: number;
}

/**
 * Reads one page of an address's transactions: a single LevelDB seek to the page's edge, then the
 * page's entries and one more (to tell whether there is more). The cost depends on the page size,
 * never on where in the history the page lies.
 */
export async function historyPage(level: Level, q: PageQuery): Promise<HistoryPage> {
  const before = q.direction === 'before';
  const lo = before ? 0n : q.block === undefined ? 0n : q.block + 1n;
  const hi = before ? (q.block === undefined ? q.head : q.block - 1n) : q.head;
  const top = hi < q.head ? hi : q.head;
  if (lo > top || top < 0n) return { txs: [], more: false };
  const range = { gte: historyKey(q.address, lo, 0), lte: historyKey(q.address, top, BLOCK_LEVEL - 1) };
  const iterator = level.keys({ ...range, reverse: before });
  const txs: TxRef[] = [];
  let more = false;
  try {
    for await (const key of iterator) {
      const ref = { block: decodeNumber(key.subarray(22)), txIndex: readU32(key, 30) };
      if (txs.length >= q.pageSize && ref.block !== txs[txs.length - 1].block) {
        more = true;
        break;
      }
      txs.push(ref);
    }
  } finally {
    await iterator.close();
  }
  if (!before) txs.reverse();
  return { txs, more };
}

/** The transaction `sender` sent with `nonce`, at or below `head`. */
export async function txBySenderAndNonce(level: Level, sender: Uint8Array, nonce: bigint, head: bigint): Promise<TxRef | undefined> {
  const prefix = nonceKey(sender, nonce, 0n, 0).subarray(0, 29);
  for await (const key of level.keys({ gte: prefix, lte: nonceKey(sender, nonce, head, BLOCK_LEVEL), reverse: true, limit: 1 })) {
    return { block: decodeNumber(key.subarray(29)), txIndex: readU32(key, 37) };
  }
  return undefined;
}

/** The latest creation of `contract` at or below `head`: its transaction and creator. */
export async function latestCreation(level: Level, contract: Uint8Array, head: bigint): Promise<(TxRef & { creator: Uint8Array }) | undefined> {
  const range = { gte: creatorKey(contract, 0n, 0), lte: creatorKey(contract, head, BLOCK_LEVEL), reverse: true, limit: 1 };
  for await (const [key, value] of level.iterator(range)) {
    return { block: decodeNumber(key.subarray(21)), txIndex: readU32(key, 29), creator: new Uint8Array(value) };
  }
  return undefined;
}
