import { defineMethod } from '../../rpc/method.js';
import { NotHeldError } from '../../starknet/errors.js';
import { STARKNET_READ } from '../raises.js';
import type { StarknetContext } from './context.js';

/**
 * `starknet_chainId`: the chain id, a felt (`0x534e5f4d41494e` for SN_MAIN): the one the followed
 * upstream announced, recorded when the datadir first followed it, or given to `import-starknet
 * --chain-id`. A datadir that has neither does not know its chain: -32000 saying so.
 */
export const chainId = defineMethod({
  name: 'starknet_chainId',
  raises: STARKNET_READ,
  params: [],
  handler: async (ctx: StarknetContext): Promise<string> => {
    const id = await ctx.store.chainId();
    if (id === undefined) throw new NotHeldError('the chain id is not known: this datadir was imported without --chain-id and has never followed an upstream');
    return id;
  },
});
