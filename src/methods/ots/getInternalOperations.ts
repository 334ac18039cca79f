import { Hash } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { REPLAY } from '../raises.js';
import { internalOperations, type OtsInternalOperation, txCallTree } from './_shared/txTree.js';

/**
 * `ots_getInternalOperations(hash)`: the value transfers, creations and self-destructs inside a
 * transaction, below its own call (erigon `otterscan_trace_operations.go`). Unknown hash:
 * `transaction 0x… not found` (-32000). Replays the block once (cached).
 */
export const otsGetInternalOperations = defineMethod({
  name: 'ots_getInternalOperations',
  raises: REPLAY,
  cost: 'heavy', // replays the block in the EVM workers (unless its traces are cached)
  evm: true,
  params: [Hash],
  handler: async (ctx: EthContext, [hash], req): Promise<OtsInternalOperation[]> => internalOperations((await txCallTree(ctx, hash, req)).root),
});
