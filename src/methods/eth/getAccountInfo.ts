import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_getAccountInfo(address, block?)`: `{balance, nonce, code}` of an account at a block in one
 * call (zeros and `0x` for a missing account), as anvil and reth answer it; foundry asks it when
 * it forks a node or replays a transaction (`cast run`) and falls back to three calls without it.
 * anvil requires the block; here it may be omitted (`latest`), as for the other state methods.
 * https://book.getfoundry.sh/reference/anvil/ (anvil's extra `eth_*` methods)
 */
export const getAccountInfo = defineMethod({
  name: 'eth_getAccountInfo',
  raises: STATE,
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    const [account, code] = await Promise.all([ctx.state.account(header.stateRoot, address), ctx.state.code(header.stateRoot, address)]);
    return { balance: bigIntToQuantity(account?.balance ?? 0n), nonce: bigIntToQuantity(account?.nonce ?? 0n), code: bytesToData(code) };
  },
});
