import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData32 } from '../../codec/hex.js';
import { Address, RawString } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';
import { storageKeyOrThrow } from './_shared/storageKey.js';

/**
 * `eth_getStorageAt(address, position, block?)`: the 32-byte value of a storage slot at a block;
 * zero for an unset slot or a missing account. The position is read as geth reads it (a quantity
 * or up to 32 bytes of data); the block is resolved first, as geth does, so an unknown block wins
 * over a bad key. https://ethereum.github.io/execution-apis/api-documentation/
 */
export const getStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  raises: STATE,
  params: [Address, RawString, BlockNumberOrHash],
  required: 2,
  handler: async (ctx: EthContext, [address, position, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    const { slot } = storageKeyOrThrow(position);
    return bytesToData32(await ctx.state.storage(header.stateRoot, address, slot));
  },
});
