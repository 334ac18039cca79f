import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { REPLAY } from '../raises.js';
import { revertData, txCallTree } from './_shared/txTree.js';

/**
 * `ots_getTransactionError(hash)`: the revert data of a reverted transaction, `0x` for any other
 * (success, out of gas, an invalid opcode), as erigon's `ExecutionResult.Revert()`. Unknown hash:
 * `transaction 0x… not found` (-32000). Replays the block once (cached).
 */
export const otsGetTransactionError = defineMethod({
  name: 'ots_getTransactionError',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [Hash],
  handler: async (ctx: EthContext, [hash], req): Promise<string> => revertData((await txCallTree(ctx, hash, req)).root),
});
