import { defineMethod } from '../../rpc/method.js';
import { STARKNET_READ } from '../raises.js';
import type { StarknetContext } from './context.js';

/** SYNC_STATUS on the wire. */
export interface RpcSyncStatus {
  starting_block_hash: string;
  starting_block_num: number;
  current_block_hash: string;
  current_block_num: number;
  highest_block_hash: string;
  highest_block_num: number;
}

/**
 * `starknet_syncing`: `false` when the network follows no upstream or holds the upstream's head;
 * while it catches up, SYNC_STATUS: the head it started following from, its head, and the
 * upstream's head as last asked.
 */
export const syncing = defineMethod({
  name: 'starknet_syncing',
  raises: STARKNET_READ,
  params: [],
  handler: async (ctx: StarknetContext): Promise<false | RpcSyncStatus> => {
    const progress = await ctx.upstream?.syncing();
    if (progress === undefined) return false;
    return {
      starting_block_hash: progress.starting.hash,
      starting_block_num: progress.starting.number,
      current_block_hash: progress.current.hash,
      current_block_num: progress.current.number,
      highest_block_hash: progress.highest.hash,
      highest_block_num: progress.highest.number,
    };
  },
});
