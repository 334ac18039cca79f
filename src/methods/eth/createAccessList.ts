import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bigIntToQuantity, bytesToData } from '../../codec/hex.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { EVM_RUN } from '../raises.js';
import { CallObject, StateOverrideSet } from './_shared/callArgs.js';
import { withFeeDefaults } from './_shared/feeDefaults.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/**
 * `eth_createAccessList(callObject, block?, stateOverrides?)`: the EIP-2930 access list of a call
 * at `block` (default `latest`), found as geth finds it (ethereum/go-ethereum `internal/ethapi/api.go`
 * CreateAccessList): fee defaults as for a transaction, then runs with the list found so far until
 * it stops growing (`execution/accessList.ts`). Answers `{accessList, gasUsed}` of the last run,
 * with `error` (`execution reverted`, `out of gas`, …) when that run failed; a message that cannot
 * run at all (funds, nonce-free checks, intrinsic gas) is -32000 `failed to apply transaction:
 * <hash> err: <reason>`.
 * https://ethereum.github.io/execution-apis/api-documentation/ (eth_createAccessList)
 */
export const createAccessList = defineMethod({
  name: 'eth_createAccessList',
  raises: EVM_RUN,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [CallObject, BlockNumberOrHash, StateOverrideSet],
  required: 1,
  handler: async (ctx: EthContext, [request, block, state], req) => {
    const header = await resolveBlock(ctx, block, req);
    const filled = await withFeeDefaults(ctx, header, request, req);
    const result = await ctx.execution.createAccessList(header, filled, { state }, evmRequest(req));
    return {
      accessList: result.accessList.map((e) => ({ address: bytesToData(e.address), storageKeys: e.storageKeys.map(bytesToData) })),
      gasUsed: bigIntToQuantity(result.gasUsed),
      ...(result.error === undefined ? {} : { error: result.error }),
    };
  },
});
