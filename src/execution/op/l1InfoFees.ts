import type { Block } from '@ethereumjs/block';
import { isDeposit } from '../../chain/op/depositTx.js';
import { decodeL1Info, type L1FeeParams, type L1Info } from '../../chain/op/l1Info.js';
import { DepositTransaction } from '../../chain/op/opBlock.js';
import { isActive, type OpRollup } from '../../chain/op/rollup.js';
import type { StoredReceipt } from '../../chain/receipts.js';
import { daFootprint, L1_BLOCK_ADDRESS, l1Cost, l1FeeRulesFor } from './l1Cost.js';
import { feeUpgradeAt } from './opBlockRun.js';

/**
 * A block's receipts' L1 fields from its L1-info deposit, as op-geth and op-reth derive them for a
 * receipt (op-geth `DeriveFields` reads the block's first transaction's calldata): for a block that
 * tracenode did not execute — the first block of an archive that starts at block N, whose
 * receipts come from the upstream and whose roots hold no L1 fields. The attributes are those the
 * deposit writes into L1Block before any other transaction, so they are the ones execution reads
 * (the real blocks' test holds the two equal). Undefined when the block does not open with an
 * L1-info deposit of a known format (anvil's blocks have none).
 */
export function l1FieldsFromInfo(rollup: OpRollup, block: Block): Array<Pick<StoredReceipt, 'l1Fee' | 'operatorFee' | 'daFootprint'> | undefined> | undefined {
  const first = block.transactions[0] as unknown;
  if (!(first instanceof DepositTransaction) || first.to?.toString() !== L1_BLOCK_ADDRESS) return undefined;
  const info = decodeL1Info(first.data);
  if (info === undefined) return undefined;
  const time = block.header.timestamp;
  const upgrade = feeUpgradeAt(rollup, time);
  const params = paramsOf(info);
  const rules = l1FeeRulesFor(upgrade, params);
  const isthmus = isActive(rollup, 'isthmus', time);
  const jovian = isActive(rollup, 'jovian', time);
  return block.transactions.map((tx) => {
    const raw = tx.serialize();
    if (isDeposit(raw)) return undefined;
    const cost = l1Cost(raw, rules, params);
    if (cost === undefined) return undefined;
    return {
      l1Fee: { rules, fee: cost.fee, gasUsed: cost.gasUsed, ...params },
      ...(isthmus ? { operatorFee: { scalar: info.operatorFeeScalar ?? 0n, constant: info.operatorFeeConstant ?? 0n } } : {}),
      ...(jovian ? { daFootprint: { gasUsed: daFootprint(raw, info.daFootprintGasScalar ?? 0n), scalar: info.daFootprintGasScalar ?? 0n } } : {}),
    };
  });
}

/** The fee's parameters from the attributes (what a format lacks is 0, as in L1Block before the upgrade). */
function paramsOf(info: L1Info): L1FeeParams {
  return {
    l1BaseFee: info.l1BaseFee,
    overhead: info.overhead ?? 0n,
    scalar: info.scalar ?? 0n,
    l1BlobBaseFee: info.l1BlobBaseFee ?? 0n,
    baseFeeScalar: info.baseFeeScalar ?? 0n,
    blobBaseFeeScalar: info.blobBaseFeeScalar ?? 0n,
  };
}
