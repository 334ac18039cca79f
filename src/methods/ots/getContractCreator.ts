import { bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import { latestCreation } from '../../tracing/addressHistory.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from '../eth/_shared/resolveBlock.js';
import { REPLAY } from '../raises.js';
import { historyHead } from './_shared/history.js';

/** ots_getContractCreator's answer: the creating transaction and the address that created the contract. */
export interface OtsContractCreator {
  hash: string;
  creator: string;
}

/**
 * `ots_getContractCreator(address)`: the transaction that created the contract now at `address`
 * (its latest creation, for one created again after a self-destruct) and the account that
 * created it directly: the sender for a deploying transaction, the factory for CREATE/CREATE2
 * (erigon `otterscan_contract_creator.go`). `null` when the address holds no code at the head.
 */
export const otsGetContractCreator = defineMethod({
  name: 'ots_getContractCreator',
  raises: REPLAY,
  params: [Address],
  handler: async (ctx: EthContext, [address], req): Promise<OtsContractCreator | null> => {
    const head = await historyHead(ctx, req);
    const header = await resolveBlock(ctx, { kind: 'tag', tag: 'latest' }, req);
    if ((await ctx.state.code(header.stateRoot, address)).length === 0) return null;
    const creation = await latestCreation(ctx.chain.level, address, head);
    if (!creation) return null;
    const hash = await ctx.chain.store.canonicalHash(creation.block);
    const txHash = hash && (await ctx.chain.store.txHashes(hash))?.[creation.txIndex];
    if (!txHash) throw new Error(`database corrupt: address history names transaction ${creation.txIndex} of block ${creation.block}`);
    return { hash: bytesToData(txHash), creator: bytesToData(creation.creator) };
  },
});
