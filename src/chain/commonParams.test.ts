import { createBlockHeader, paramsBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { createLegacyTx, paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { withMergedModuleParams } from './commonParams.js';

/** A plain Common with the module sets merged by Common's own method, one by one. */
function reference(hardfork: Hardfork): Common {
  const common = new Common({ chain: Mainnet, hardfork });
  for (const params of [paramsBlock, paramsTx, paramsVM, paramsEVM]) common.updateParams(params);
  return common;
}

const PROBES: Array<[string, Hardfork]> = [
  ['elasticityMultiplier', Hardfork.London],
  ['txGas', Hardfork.Chainstart],
  ['txDataNonZeroGas', Hardfork.Istanbul],
  ['maxInitCodeSize', Hardfork.Shanghai],
  ['historyStorageAddress', Hardfork.Prague],
  ['blobGasPerBlob', Hardfork.Cancun],
];

describe('withMergedModuleParams', () => {
  it('headers, transactions and copies answer each parameter as a plain Common does, across hardforks', () => {
    for (const [name, hardfork] of PROBES) {
      const shared = withMergedModuleParams(new Common({ chain: Mainnet, hardfork }));
      const want = reference(hardfork).param(name);
      expect(createBlockHeader({ number: 1n }, { common: shared }).common.param(name), name).toBe(want);
      expect(createLegacyTx({}, { common: shared }).common.param(name), name).toBe(want);
      expect(shared.copy().param(name), name).toBe(want);
    }
    expect(createBlockHeader({}, { common: new Common({ chain: Mainnet, hardfork: Hardfork.London }) }).common.param('elasticityMultiplier')).toBe(
      reference(Hardfork.London).param('elasticityMultiplier'),
    );
    // A copy that moves to another hardfork answers that hardfork's values; the original stays.
    const shared = withMergedModuleParams(new Common({ chain: Mainnet, hardfork: Hardfork.Berlin }));
    const copy = shared.copy();
    copy.setHardfork(Hardfork.Prague);
    expect(copy.param('historyStorageAddress')).toBe(reference(Hardfork.Prague).param('historyStorageAddress'));
    expect(shared.hardfork()).toBe(Hardfork.Berlin);
  });

  it('a module set is not merged again (its cache kept); any other set is merged', () => {
    const shared = withMergedModuleParams(new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }));
    const copy = shared.copy();
    const cache = (copy as unknown as { _paramsCache: object })._paramsCache;
    copy.updateParams(paramsBlock);
    expect((copy as unknown as { _paramsCache: object })._paramsCache).toBe(cache);
    copy.updateParams({ 1: { tracenodeProbe: 7 } } as never);
    expect(copy.param('tracenodeProbe')).toBe(7n);
  });
});
