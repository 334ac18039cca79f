import { paramsBlock } from '@ethereumjs/block';
import { Common, type ParamsDict } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';

/**
 * The parameter sets @ethereumjs's block header, transaction, EVM and VM constructors merge into
 * their Common, in the order a plain `createVM` merges them: its EVM is built first, then the VM
 * merges its own set over the EVM's. The order matters where two sets give one EIP's parameter
 * different values: EIP-2935's `historyServeWindow` is 8192 in @ethereumjs/evm 10.1.3 (read only
 * by Verkle's BLOCKHASH) and 8191 in @ethereumjs/vm, whose value the EIP sets and the block's
 * system write uses. Merged the other way round, every Prague block above 8192 wrote its parent's
 * hash to the wrong slot and got a wrong state root.
 */
const MODULE_PARAMS: readonly ParamsDict[] = [paramsBlock, paramsTx, paramsEVM, paramsVM];

/**
 * Makes the parameter merges of @ethereumjs's constructors free for `common` and its copies.
 *
 * Every BlockHeader, transaction, VM and EVM @ethereumjs 10.1.3 builds copies its Common and
 * calls `updateParams` with its module's parameter set, which deep-copies each EIP's parameters
 * through JSON and rebuilds the parameter cache: ~130 µs a header here, paid for every header a
 * simulated block, a decoded block or a call builds, and for every decoded transaction. The sets
 * are module constants, the same objects each time. So they are merged here once, before the
 * cache is built, and `common` gets an own `updateParams` — which `copy()` (a shallow
 * Object.assign) hands to every copy — that skips a set already merged: a copy shares the merged
 * parameters and the cache built from them, and a copy whose hardfork then changes rebuilds its
 * cache from them as before. Any other set is merged by Common's own method. Read in
 * @ethereumjs/common 10.1.3 `common.ts` (`copy`, `updateParams`, `_buildParamsCache`); throws if
 * `updateParams` is no longer a method of Common's prototype.
 */
export function withMergedModuleParams(common: Common): Common {
  const merge = Common.prototype.updateParams as ((this: Common, params: ParamsDict) => void) | undefined;
  if (typeof merge !== 'function') throw new Error('@ethereumjs/common no longer has Common.prototype.updateParams: update chain/commonParams.ts');
  for (const params of MODULE_PARAMS) merge.call(common, params);
  const merged = new Set<ParamsDict>(MODULE_PARAMS);
  common.updateParams = function (this: Common, params: ParamsDict) {
    if (!merged.has(params)) merge.call(this, params);
  };
  return common;
}
