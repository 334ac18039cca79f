import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { bytesToData, dataToBytes, HexError } from '../../../codec/hex.js';
import { ServerError } from '../../../rpc/errors.js';
import type { EthContext } from '../../context.js';
import { forwardToUpstream } from './upstreamPool.js';

/** A transaction the followed node holds and this node has in no block, with its signed bytes. */
export interface PoolTransaction {
  tx: TypedTransaction;
  raw: Uint8Array;
}

/**
 * A transaction this node has in no block, as the followed node holds it: in its pool, or in a
 * block not followed yet (either way pending from this node's view). Asked for as signed bytes
 * (`eth_getRawTransactionByHash`, which geth, reth and anvil answer from their pools too) and
 * accepted only if those bytes hash to `hash` and decode as a transaction of this chain's latest
 * fork, so the answer is what the hash commits to, whatever the upstream says. Undefined when
 * nothing is followed or the upstream knows no such transaction.
 */
export async function poolTransaction(ctx: EthContext, hash: Uint8Array): Promise<PoolTransaction | undefined> {
  if (ctx.pool === undefined) return undefined;
  const answer = await forwardToUpstream(ctx.pool, 'eth_getRawTransactionByHash', [bytesToData(hash)]);
  if (answer === null) return undefined;
  let raw: Uint8Array;
  try {
    if (typeof answer !== 'string') throw new HexError('not a string');
    raw = dataToBytes(answer);
  } catch {
    throw new ServerError('the followed node answered eth_getRawTransactionByHash with something that is not hex data');
  }
  const head = await ctx.chain.store.headHeader();
  const common = ctx.chain.common.copy();
  if (head) common.setHardforkBy({ blockNumber: head.number, timestamp: head.timestamp });
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common });
  } catch (err) {
    throw new ServerError(
      `the followed node answered a transaction this chain cannot decode: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    );
  }
  if (!equalsBytes(tx.hash(), hash)) throw new ServerError(`the followed node answered transaction ${bytesToHex(tx.hash())} for ${bytesToHex(hash)}`);
  return { tx, raw };
}
