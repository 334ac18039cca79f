import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_getAccount(address, block)`: the account's trie entry at a block, `{codeHash, storageRoot,
 * balance, nonce}`, or `null` when the account does not exist, as reth answers it (`EthApi::get_account`;
 * geth has no such method). The block may be omitted (`latest`), as for the other state methods.
 * https://github.com/ethereum/execution-apis (eth_getAccount, proposed)
 */
export const getAccount = defineMethod({
  name: 'eth_getAccount',
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    const account = await ctx.state.account(header.stateRoot, address);
    if (account === undefined) return null;
    return {
      codeHash: bytesToData(account.codeHash),
      storageRoot: bytesToData(account.storageRoot),
      balance: bigIntToQuantity(account.balance),
      nonce: bigIntToQuantity(account.nonce),
    };
  },
});
