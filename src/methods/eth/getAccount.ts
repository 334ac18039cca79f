import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { Address } from '../../codec/schemas.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_getAccount(address, block)`: the account's trie entry at a block, `{codeHash, storageRoot,
 * balance, nonce}`; an absent account is the empty one (empty code hash, empty trie root, zeros), as
 * anvil answers and alloy's `get_account` expects (it decodes no `null`; geth has no such method).
 * The block may be omitted (`latest`), as for the other state methods.
 * https://github.com/ethereum/execution-apis (eth_getAccount, proposed)
 */
export const getAccount = defineMethod({
  name: 'eth_getAccount',
  raises: STATE,
  params: [Address, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [address, block], req) => {
    const header = await resolveBlock(ctx, block, req);
    const account = await ctx.state.account(header.stateRoot, address);
    return {
      codeHash: bytesToData(account?.codeHash ?? KECCAK256_NULL),
      storageRoot: bytesToData(account?.storageRoot ?? KECCAK256_RLP),
      balance: bigIntToQuantity(account?.balance ?? 0n),
      nonce: bigIntToQuantity(account?.nonce ?? 0n),
    };
  },
});
