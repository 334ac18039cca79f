import { type Block, type BlockHeader, createBlockFromRPC, createBlockHeaderFromRPC, type JSONRPCBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { orderedTrieRoot } from '../codec/orderedTrieRoot.js';
import { DomainError } from '../errors/domainError.js';

/**
 * Rebuilding a block from its JSON-RPC form, for following an upstream node (issue 16).
 *
 * tracenode imports blocks as RLP. geth and reth hand out that RLP with `debug_getRawBlock`; anvil
 * has no such method, so the block must be rebuilt from `eth_getBlockByNumber(n, true)` (and, for
 * a PoW block with uncles, `eth_getUncleByBlockHashAndIndex`). The rebuild covers every header
 * field from Frontier to Osaka — the PoW seal (`mixHash`, `nonce`, `difficulty`), `baseFeePerGas`
 * (London), `withdrawalsRoot` (Shanghai), `blobGasUsed`, `excessBlobGas`, `parentBeaconBlockRoot`
 * (Cancun), `requestsHash` (Prague) — and the whole body: every transaction type (legacy with and
 * without EIP-155, 2930, 1559, 4844 as it sits in a block, without blobs, and 7702 with its
 * authorization list), the uncle headers and the withdrawals.
 *
 * The field names are geth's `RPCMarshalBlock` / `RPCMarshalHeader` (internal/ethapi/api.go) and
 * `newRPCTransaction` (`input`, `gas`, `v`/`yParity`, `authorizationList` items as
 * `types.SetCodeAuthorization`: chainId, address, nonce, yParity, r, s), which reth (alloy's
 * `rpc-types-eth`) and anvil follow; tracenode renders the same shape (src/methods/eth/_shared/
 * formatBlock.ts, formatTransaction.ts).
 *
 * The block is built by @ethereumjs/block's `createBlockFromRPC`, which takes geth's JSON as it
 * is, with these gaps that this module closes:
 * - it checks nothing: a wrong field gives a wrong block silently. Here the rebuilt header's hash
 *   must equal the upstream's `hash`, and because that hash covers the header only, the body must
 *   match the header's commitments too: the transactions trie root (`transactionsRoot`), the uncle
 *   list hash (`sha3Uncles`, each uncle's hash also equal to the block's `uncles` entry) and the
 *   withdrawals trie root (`withdrawalsRoot`). A missing, extra or altered transaction is caught
 *   there, and by each transaction's own `hash` where the JSON gives one. (The tries are computed
 *   here, synchronously; @ethereumjs/block only has async ones.) One exception: an empty
 *   transaction list may have the root keccak256("") as well as the empty trie's root, as
 *   Hardhat's empty blocks do (its genesis and the blocks `hardhat_mine` reserves); the importer
 *   accepts such a block under lenient header checks only (`import/validate.ts`).
 * - a typed transaction that carries only `yParity` (execution-apis makes `v` optional for them)
 *   is built unsigned, with another hash: `v` is set from `yParity` (and the two must agree);
 *   likewise an authorization that names its parity `v` instead of `yParity`.
 * - a header field missing from the JSON is filled with the fork's default (e.g. `baseFeePerGas`
 *   with the initial base fee); the hash check refuses such a block and the error names the
 *   missing fields. `difficulty` as a decimal string is parsed with `parseInt` (wrong above
 *   2^53): it is converted exactly here. A header `nonce` given as a quantity ("0x0") is padded
 *   to its 8 bytes.
 * - transactions given as hashes (`eth_getBlockByNumber(n, false)`) become garbage transactions,
 *   and a non-object input a TypeError: the input's shape is checked first, and every failure is
 *   a {@link BlockFromRpcError}.
 * - a legacy transaction's `chainId` is ignored by ethereumjs (the chain id comes from `v`); when
 *   the JSON gives one for an EIP-155 signature it must agree with the chain id that `v` commits
 *   to (for v = 27/28 it commits to none, and a printed `chainId` is ignored).
 * Fields the rebuild does not read (`size`, `totalDifficulty`, `from`, a 1559 transaction's
 * effective `gasPrice`, ...) are ignored.
 */

/** A block (or uncle, or transaction) of the upstream that cannot be rebuilt to its own hash. */
export class BlockFromRpcError extends DomainError {
  override readonly name = 'BlockFromRpcError';
  /** The block's number, when the input had a readable one. */
  readonly blockNumber: bigint | undefined;
  /** The hash the upstream gave, when the failure is a hash mismatch. */
  readonly upstreamHash: string | undefined;
  /** The hash of what was rebuilt, when the failure is a hash mismatch. */
  readonly rebuiltHash: string | undefined;

  constructor(message: string, details: { blockNumber?: bigint; upstreamHash?: string; rebuiltHash?: string } = {}, options?: ErrorOptions) {
    super(message, options);
    this.blockNumber = details.blockNumber;
    this.upstreamHash = details.upstreamHash;
    this.rebuiltHash = details.rebuiltHash;
  }
}

export type Json = Record<string, unknown>;

export const HASH = /^0x[0-9a-fA-F]{64}$/;
export const QUANTITY = /^0x[0-9a-fA-F]+$/;
const DECIMAL = /^[0-9]+$/;

/** The header fields that forks add, in header order (geth `RPCMarshalHeader` names). */
const FORK_FIELDS = ['baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash'] as const;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && QUANTITY.test(value) ? BigInt(value) : undefined;
}

/**
 * Rebuilds a block from `eth_getBlockByNumber(n, true)` JSON (`json`) and the JSON of its uncles
 * (`eth_getUncleByBlockHashAndIndex(hash, i)` for each entry of `json.uncles`, in order), with
 * `common` the chain's configuration (its hardfork is set from the block's number and timestamp;
 * `common` itself is not changed). Returns the block only if its hash is the upstream's `hash`
 * and its body matches the header's roots; throws {@link BlockFromRpcError} otherwise, and for
 * any input that is not such JSON.
 */
export function blockFromRpc(json: unknown, uncleHeaders: unknown[], common: Common): Block {
  if (!isObject(json)) throw new BlockFromRpcError(`block JSON must be an object, got ${describe(json)}`);
  const blockNumber = quantity(json.number);
  if (blockNumber === undefined) throw new BlockFromRpcError(`block JSON has no number (a hex quantity), got ${describe(json.number)}`);
  const at = `block ${blockNumber}`;
  const upstreamHash = json.hash;
  if (typeof upstreamHash !== 'string' || !HASH.test(upstreamHash)) {
    throw new BlockFromRpcError(`${at}: JSON has no hash (32 bytes of hex), got ${describe(upstreamHash)}`, { blockNumber });
  }
  const fail = (message: string, hashes: { upstreamHash?: string; rebuiltHash?: string } = {}, cause?: unknown): BlockFromRpcError =>
    new BlockFromRpcError(`${at} (${upstreamHash}): ${message}`, { blockNumber, ...hashes }, cause === undefined ? undefined : { cause });

  const txs = json.transactions;
  if (!Array.isArray(txs)) throw fail(`JSON has no transactions array, got ${describe(txs)}`);
  const uncleHashes = json.uncles;
  if (!Array.isArray(uncleHashes) || !uncleHashes.every((h) => typeof h === 'string' && HASH.test(h))) {
    throw fail(`JSON has no uncles array of hashes, got ${describe(uncleHashes)}`);
  }
  if (!Array.isArray(uncleHeaders)) throw fail(`uncle headers must be an array, got ${describe(uncleHeaders)}`);
  if (uncleHeaders.length !== uncleHashes.length) {
    throw fail(`the block names ${uncleHashes.length} uncle(s) but ${uncleHeaders.length} uncle header(s) were given`);
  }
  if (json.withdrawals !== undefined && json.withdrawals !== null && !(Array.isArray(json.withdrawals) && json.withdrawals.every(isObject))) {
    throw fail(`withdrawals must be an array of objects, got ${describe(json.withdrawals)}`);
  }

  const transactions = txs.map((tx, index) => normalizeTransaction(tx, index, upstreamHash, fail));
  const uncles = uncleHeaders.map((uncle, index) => {
    if (!isObject(uncle)) throw fail(`uncle ${index} must be an object, got ${describe(uncle)}`);
    return normalizeHeader(uncle, `uncle ${index}`, fail);
  });
  const params: Json = { ...normalizeHeader(json, 'header', fail), transactions };
  if (json.withdrawals === null) delete params.withdrawals;

  let block: Block;
  try {
    block = createBlockFromRPC(params as unknown as JSONRPCBlock, uncles, { common, setHardfork: true });
  } catch (err) {
    throw fail(`cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}`, {}, err);
  }

  try {
    verify(block, json, upstreamHash, uncleHashes as string[], txs as Json[], fail);
  } catch (err) {
    if (err instanceof BlockFromRpcError) throw err;
    // e.g. a transaction with a zero r or s, which ethereumjs builds unsigned and cannot hash.
    throw fail(`cannot be checked: ${err instanceof Error ? err.message : String(err)}`, {}, err);
  }
  return block;
}

/**
 * The header of a block's JSON (`eth_getBlockByNumber(n, false)`: its body is not needed),
 * rebuilt with `common`, at the fork its number and timestamp fall in (`setHardfork`, default) or
 * at `common`'s own (an OP chain's upgrades do not follow Ethereum's schedule); returned only if
 * it hashes to the upstream's hash.
 */
export function headerFromRpc(json: unknown, common: Common, { setHardfork = true }: { setHardfork?: boolean } = {}): BlockHeader {
  if (!isObject(json) || typeof json.hash !== 'string' || !HASH.test(json.hash))
    throw new BlockFromRpcError(`block JSON with a hash expected, got ${describe(json)}`);
  const upstreamHash = json.hash;
  const fail: Fail = (message, hashes = {}) =>
    new BlockFromRpcError(`block ${describe(json.number)} (${upstreamHash}): ${message}`, { blockNumber: quantity(json.number) ?? 0n, ...hashes });
  let header: BlockHeader;
  try {
    header = createBlockHeaderFromRPC(normalizeHeader(json, 'header', fail) as unknown as JSONRPCBlock, { common, setHardfork });
  } catch (err) {
    throw fail(`cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}`);
  }
  const rebuiltHash = bytesToHex(header.hash());
  if (rebuiltHash !== upstreamHash.toLowerCase()) throw fail(`rebuilt header hash ${rebuiltHash} is not the upstream's`, { upstreamHash, rebuiltHash });
  return header;
}

/** Builds the error of one block's JSON, naming the block. */
export type Fail = (message: string, hashes?: { upstreamHash?: string; rebuiltHash?: string }, cause?: unknown) => BlockFromRpcError;

/** The rebuilt block's hash is the upstream's, and its body matches the header's commitments. */
function verify(block: Block, json: Json, upstreamHash: string, uncleHashes: string[], txs: Json[], fail: Fail): void {
  const rebuiltHash = bytesToHex(block.hash());
  if (rebuiltHash !== upstreamHash.toLowerCase()) {
    const missing = FORK_FIELDS.filter((field) => block.header[field] !== undefined && (json[field] === undefined || json[field] === null));
    const hint = missing.length > 0 ? ` (the JSON lacks ${missing.join(', ')}, filled with the fork's defaults)` : '';
    throw fail(`rebuilt header hash ${rebuiltHash} is not the upstream's ${upstreamHash}${hint}`, { upstreamHash, rebuiltHash });
  }

  block.uncleHeaders.forEach((uncle, index) => {
    const rebuilt = bytesToHex(uncle.hash());
    const named = uncleHashes[index].toLowerCase();
    if (rebuilt !== named) throw fail(`rebuilt uncle ${index} has hash ${rebuilt}, the block names ${named}`, { upstreamHash: named, rebuiltHash: rebuilt });
  });
  checkRoot('sha3Uncles', block.header.uncleHash, keccak256(RLP.encode(block.uncleHeaders.map((u) => u.raw()))), fail);

  block.transactions.forEach((tx, index) => {
    const named = txs[index].hash;
    if (typeof named !== 'string') return;
    const rebuilt = bytesToHex(tx.hash());
    if (rebuilt !== named.toLowerCase()) {
      throw fail(`rebuilt transaction ${index} has hash ${rebuilt}, the upstream's is ${named}`, { upstreamHash: named, rebuiltHash: rebuilt });
    }
  });
  // Hardhat gives an empty block (its genesis, and the blocks hardhat_mine reserves) the root
  // keccak256("") instead of the empty trie's: it commits to no transaction either way, and the
  // importer decides whether the chain may have it (a `transactionsRoot` deviation).
  const emptyHardhatRoot = block.transactions.length === 0 && equalsBytes(block.header.transactionsTrie, KECCAK256_NULL);
  if (!emptyHardhatRoot) {
    const txRoot = orderedTrieRoot(block.transactions.map((tx) => tx.serialize()));
    checkRoot('transactionsRoot', block.header.transactionsTrie, txRoot, fail, ` of its ${block.transactions.length} transaction(s)`);
  }

  if (block.header.withdrawalsRoot !== undefined) {
    const withdrawals = block.withdrawals ?? [];
    const root = orderedTrieRoot(withdrawals.map((w) => RLP.encode(w.raw())));
    checkRoot('withdrawalsRoot', block.header.withdrawalsRoot, root, fail, ` of its ${withdrawals.length} withdrawal(s)`);
  }
}

/** Throws `fail`'s error when a root the body gives is not the header's. */
export function checkRoot(field: string, expected: Uint8Array, actual: Uint8Array, fail: Fail, of = ''): void {
  const upstream = bytesToHex(expected);
  const rebuilt = bytesToHex(actual);
  if (upstream !== rebuilt) {
    throw fail(`the body does not match the header: ${field}${of} is ${rebuilt}, the header's is ${upstream}`, {
      upstreamHash: upstream,
      rebuiltHash: rebuilt,
    });
  }
}

/** The header fields of a block or uncle JSON, with the fix-ups createBlockHeaderFromRPC needs. */
function normalizeHeader(header: Json, what: string, fail: Fail): Json {
  const out: Json = { ...header };
  // Some clients print an absent fork field as null (alloy's Option): the same as leaving it out.
  for (const field of FORK_FIELDS) if (out[field] === null) delete out[field];
  const { difficulty, nonce } = header;
  if (typeof difficulty === 'string' && DECIMAL.test(difficulty)) out.difficulty = `0x${BigInt(difficulty).toString(16)}`;
  if (typeof nonce === 'string' && QUANTITY.test(nonce) && nonce.length < 18) out.nonce = `0x${nonce.slice(2).padStart(16, '0')}`;
  for (const field of ['parentHash', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'number']) {
    if (typeof header[field] !== 'string') throw fail(`${what} has no ${field}, got ${describe(header[field])}`);
  }
  return out;
}

/** One transaction of the JSON, with the fix-ups createTx needs. */
/**
 * A signed transaction's JSON as createTxFromRPC takes it, checked for what the clients print
 * differently (its position and block, a legacy `chainId` against its `v`, `yParity` and `v`).
 */
export function normalizeTransaction(tx: unknown, index: number, blockHash: string, fail: Fail): Json {
  if (!isObject(tx)) {
    const hint = typeof tx === 'string' ? ' (transaction hashes: ask eth_getBlockByNumber for full transactions)' : '';
    throw fail(`transaction ${index} must be an object, got ${describe(tx)}${hint}`);
  }
  const out: Json = { ...tx };
  const position = quantity(tx.transactionIndex);
  if (tx.transactionIndex !== undefined && tx.transactionIndex !== null && position !== BigInt(index)) {
    throw fail(`transaction ${index} says it is at index ${String(tx.transactionIndex)} (a transaction is missing or out of order)`);
  }
  if (typeof tx.blockHash === 'string' && tx.blockHash.toLowerCase() !== blockHash.toLowerCase()) {
    throw fail(`transaction ${index} says it is in block ${tx.blockHash}`);
  }
  const type = tx.type === undefined || tx.type === null ? 0n : quantity(tx.type);
  if (type === undefined) throw fail(`transaction ${index} has type ${describe(tx.type)}, not a hex quantity`);
  for (const field of ['r', 's']) {
    if (quantity(tx[field]) === undefined) throw fail(`transaction ${index} has no signature ${field}, got ${describe(tx[field])}`);
  }
  if (type === 0n) {
    const v = quantity(tx.v);
    if (v === undefined) throw fail(`transaction ${index} (legacy) has no v, got ${describe(tx.v)}`);
    // Unprotected (v = 27/28): some clients still print the chain's id; only a protected v commits to one.
    const signed = v >= 35n ? (v - 35n) / 2n : undefined;
    const chainId = tx.chainId === undefined || tx.chainId === null ? undefined : quantity(tx.chainId);
    if (signed !== undefined && chainId !== undefined && chainId !== signed) {
      throw fail(`transaction ${index} (legacy) has chainId ${String(tx.chainId)} but v ${String(tx.v)} commits to ${signed}`);
    }
    delete out.chainId;
    return out;
  }
  const v = quantity(tx.v);
  const yParity = quantity(tx.yParity);
  if (v === undefined && yParity === undefined) throw fail(`transaction ${index} (type ${type}) has neither yParity nor v`);
  if (v !== undefined && yParity !== undefined && v !== yParity) {
    throw fail(`transaction ${index} (type ${type}) has yParity ${String(tx.yParity)} and v ${String(tx.v)}, which disagree`);
  }
  out.v = `0x${(yParity ?? v)!.toString(16)}`;
  if (Array.isArray(tx.authorizationList)) {
    out.authorizationList = tx.authorizationList.map((auth, i) => {
      if (!isObject(auth)) throw fail(`transaction ${index}: authorization ${i} must be an object, got ${describe(auth)}`);
      const parity = auth.yParity ?? auth.v;
      if (quantity(parity) === undefined) throw fail(`transaction ${index}: authorization ${i} has no yParity, got ${describe(parity)}`);
      return { ...auth, yParity: parity };
    });
  }
  return out;
}
