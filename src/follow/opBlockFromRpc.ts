import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createTxFromRPC } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { DEPOSIT_TX_TYPE, encodeDepositTx } from '../chain/op/depositTx.js';
import { type OpRollup, opCommon, upgradeAt } from '../chain/op/rollup.js';
import { keccak256 } from '../codec/keccak.js';
import { orderedTrieRoot } from '../codec/orderedTrieRoot.js';
import { BlockFromRpcError, checkRoot, type Fail, HASH, headerFromRpc, type Json, normalizeTransaction, QUANTITY, quantity } from './blockFromRpc.js';

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
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Rebuilds the block of `rollup`'s chain, at the upgrade its timestamp falls in. */
export async function opBlockFromRpc(json: unknown, rollup: OpRollup): Promise<OpRpcBlock> {
  const time = typeof json === 'object' && json !== null ? quantity((json as Json).timestamp) : undefined;
  if (time === undefined) throw new BlockFromRpcError('block JSON with a timestamp (a hex quantity) expected');
  // The upgrade's Common as it is: OP chains do not follow Ethereum's fork blocks and times.
  const common = opCommon(rollup, upgradeAt(rollup, time));
  const header = headerFromRpc(json, common, { setHardfork: false });
  const block = json as Json;
  const hash = block.hash as string;
  const fail: Fail = (message, hashes = {}, cause) =>
    new BlockFromRpcError(
      `block ${header.number} (${hash}): ${message}`,
      { blockNumber: header.number, ...hashes },
      cause === undefined ? undefined : { cause },
    );
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
  checkRoot('transactionsRoot', header.transactionsTrie, orderedTrieRoot(transactions), fail, ` of its ${transactions.length} transaction(s)`);
  return { header, transactions };
}

function isDepositJson(tx: unknown): tx is Json {
  return typeof tx === 'object' && tx !== null && quantity((tx as Json).type) === BigInt(DEPOSIT_TX_TYPE);
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
