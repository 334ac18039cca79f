import { type BlockHeader, createBlockHeaderFromRPC, type JSONRPCBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createTxFromRPC } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { orderedTrieRoot } from '../codec/orderedTrieRoot.js';
import { encodeDepositTx } from '../execution/op/depositTx.js';
import { DEPOSIT_TX_TYPE } from '../execution/op/l1Cost.js';
import { type OpRollup, opCommon, upgradeAt } from '../execution/op/rollup.js';
import { BlockFromRpcError, type Fail, type Json, normalizeHeader, normalizeTransaction } from './blockFromRpc.js';

/**
 * An OP-stack block as an OP node's JSON-RPC gives it (`eth_getBlockByNumber(n, true)`), rebuilt
 * as what the OP executor runs (`execution/op/opBlockRun.ts`): its header, and its transactions'
 * EIP-2718 bytes. A deposit (type 0x7E) is encoded from the fields op-geth prints for it
 * (`sourceHash`, `from`, `to`, `mint`, `value`, `gas`, `isSystemTx`, `input`) — no node has to
 * answer eth_getRawTransactionByHash for it (anvil 1.7.1 panics on a deposit's) —, any other from
 * its signed fields as on Ethereum (`blockFromRpc.ts`). Each transaction must hash to the node's
 * hash for it, the header to the block's hash, and the transactions to the header's root; anything
 * else is a {@link BlockFromRpcError}.
 */
export interface OpRpcBlock {
  header: BlockHeader;
  transactions: Uint8Array[];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]+$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Rebuilds the block of `rollup`'s chain, at the upgrade its timestamp falls in. */
export async function opBlockFromRpc(json: unknown, rollup: OpRollup): Promise<OpRpcBlock> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new BlockFromRpcError('block JSON must be an object');
  const block = json as Json;
  const hash = block.hash;
  const number = typeof block.number === 'string' && QUANTITY.test(block.number) ? BigInt(block.number) : undefined;
  const time = typeof block.timestamp === 'string' && QUANTITY.test(block.timestamp) ? BigInt(block.timestamp) : undefined;
  if (typeof hash !== 'string' || !HASH.test(hash) || number === undefined || time === undefined) {
    throw new BlockFromRpcError('block JSON must have a hash, a number and a timestamp');
  }
  const fail: Fail = (message, hashes = {}, cause) =>
    new BlockFromRpcError(`block ${number} (${hash}): ${message}`, { blockNumber: number, ...hashes }, cause === undefined ? undefined : { cause });
  // The upgrade's Common as it is: OP chains do not follow Ethereum's fork blocks and times.
  const common = opCommon(rollup, upgradeAt(rollup, time));
  let header: BlockHeader;
  try {
    header = createBlockHeaderFromRPC(normalizeHeader(block, 'header', fail) as unknown as JSONRPCBlock, { common });
  } catch (err) {
    throw fail(`cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}`, {}, err);
  }
  const rebuiltHash = bytesToHex(header.hash());
  if (rebuiltHash !== hash.toLowerCase()) throw fail(`rebuilt header hash ${rebuiltHash} is not the upstream's`, { upstreamHash: hash, rebuiltHash });
  const txs = block.transactions;
  if (!Array.isArray(txs)) throw fail('JSON has no transactions array');
  const transactions: Uint8Array[] = [];
  for (const [index, tx] of txs.entries()) {
    const raw = isDepositJson(tx) ? depositBytes(tx, index, fail) : await signedBytes(tx, index, hash, common, fail);
    const named = (tx as Json).hash;
    const rebuilt = bytesToHex(keccak256(raw));
    if (typeof named !== 'string' || rebuilt !== named.toLowerCase()) {
      throw fail(`rebuilt transaction ${index} has hash ${rebuilt}, the upstream's is ${String(named)}`, { upstreamHash: String(named), rebuiltHash: rebuilt });
    }
    transactions.push(raw);
  }
  const root = bytesToHex(orderedTrieRoot(transactions));
  const expected = bytesToHex(header.transactionsTrie);
  if (root !== expected) {
    throw fail(`the body does not match the header: transactionsRoot of its ${transactions.length} transaction(s) is ${root}, the header's is ${expected}`, {
      upstreamHash: expected,
      rebuiltHash: root,
    });
  }
  return { header, transactions };
}

function isDepositJson(tx: unknown): tx is Json {
  const type = typeof tx === 'object' && tx !== null ? (tx as Json).type : undefined;
  return typeof type === 'string' && QUANTITY.test(type) && BigInt(type) === BigInt(DEPOSIT_TX_TYPE);
}

/** A deposit's bytes from its fields; a field of the wrong shape is named. */
function depositBytes(tx: Json, index: number, fail: Fail): Uint8Array {
  const field = (name: string, pattern: RegExp, optional = false): string | undefined => {
    const value = tx[name];
    if ((value === undefined || value === null) && optional) return undefined;
    if (typeof value !== 'string' || !pattern.test(value))
      throw fail(`deposit ${index}: ${name} is not ${pattern === QUANTITY ? 'a hex quantity' : 'hex of its size'}`);
    return value;
  };
  const isSystemTx = tx.isSystemTx ?? false;
  if (typeof isSystemTx !== 'boolean') throw fail(`deposit ${index}: isSystemTx is not a boolean`);
  const to = field('to', ADDRESS, true); // a creation has none (null, or left out)
  return encodeDepositTx({
    sourceHash: hexToBytes(field('sourceHash', HASH) as `0x${string}`),
    from: hexToBytes(field('from', ADDRESS) as `0x${string}`),
    to: to === undefined ? undefined : hexToBytes(to as `0x${string}`),
    // op-geth prints mint only when it is not zero.
    mint: BigInt(field('mint', QUANTITY, true) ?? '0x0'),
    value: BigInt(field('value', QUANTITY) as string),
    gasLimit: BigInt(field('gas', QUANTITY) as string),
    isSystemTx,
    data: hexToBytes(field('input', DATA) as `0x${string}`),
  });
}

/** A signed transaction's bytes, rebuilt from its JSON as on Ethereum. */
async function signedBytes(tx: unknown, index: number, blockHash: string, common: Common, fail: Fail): Promise<Uint8Array> {
  const normalized = normalizeTransaction(tx, index, blockHash, fail);
  try {
    return (await createTxFromRPC(normalized as never, { common })).serialize();
  } catch (err) {
    throw fail(`transaction ${index} cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}`, {}, err);
  }
}
