import type { BlockHeader } from '@ethereumjs/block';
import type { CallRequest } from '../../../execution/callArgs.js';
import { ServerError } from '../../../rpc/errors.js';
import type { EthContext, EthRequest } from '../../context.js';
import { headOf } from './head.js';

/**
 * geth's `TransactionArgs.setFeeDefaults` (ethereum/go-ethereum `internal/ethapi/transaction_args.go`)
 * for a request run at `header`, as eth_createAccessList does before it runs: the fee fields the
 * caller left out get the oracle's suggested tip and twice the block's base fee (a blob fee cap:
 * twice the block's blob base fee), with geth's -32000 texts for contradictory fields.
 */
export async function withFeeDefaults(ctx: EthContext, header: BlockHeader, request: CallRequest, req?: EthRequest): Promise<CallRequest> {
  const r = { ...request };
  if (r.maxFeePerBlobGas === 0n) throw new ServerError('maxFeePerBlobGas, if specified, must be non-zero');
  if (header.common.isActivatedEIP(4844) && r.blobVersionedHashes !== undefined && r.maxFeePerBlobGas === undefined) {
    r.maxFeePerBlobGas = header.getBlobGasPrice() * 2n;
  }
  if (r.gasPrice !== undefined && (r.maxFeePerGas !== undefined || r.maxPriorityFeePerGas !== undefined)) {
    throw new ServerError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  if (r.gasPrice !== undefined && r.authorizationList !== undefined) throw new ServerError('both gasPrice and authorizationList specified');
  const checkCaps = () => {
    if (r.maxFeePerGas! < r.maxPriorityFeePerGas!)
      throw new ServerError(`maxFeePerGas (${hex(r.maxFeePerGas!)}) < maxPriorityFeePerGas (${hex(r.maxPriorityFeePerGas!)})`);
  };
  if (r.gasPrice === undefined && r.maxFeePerGas !== undefined && r.maxPriorityFeePerGas !== undefined) {
    if (r.maxFeePerGas === 0n) throw new ServerError('maxFeePerGas must be non-zero');
    checkCaps();
    return r;
  }
  const london = header.common.isActivatedEIP(1559);
  if (r.gasPrice !== undefined) {
    if (r.gasPrice === 0n && london) throw new ServerError('gasPrice must be non-zero after london fork');
    return r;
  }
  if (london) {
    r.maxPriorityFeePerGas ??= await ctx.gasOracle.suggestTipCap(await headOf(ctx, req));
    r.maxFeePerGas ??= r.maxPriorityFeePerGas + (header.baseFeePerGas ?? 0n) * 2n;
    checkCaps();
  } else {
    if (r.maxFeePerGas !== undefined || r.maxPriorityFeePerGas !== undefined) {
      throw new ServerError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
    }
    r.gasPrice = await ctx.gasOracle.suggestTipCap(await headOf(ctx, req));
  }
  return r;
}

function hex(v: bigint): string {
  return `0x${v.toString(16)}`;
}
