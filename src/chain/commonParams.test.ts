import { createBlockHeader, paramsBlock } from '@ethereumjs/block';
import { Common, Hardfork, Holesky, Hoodi, Mainnet, Sepolia } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { createLegacyTx, paramsTx } from '@ethereumjs/tx';
import { createVM, paramsVM } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { withMergedModuleParams } from './commonParams.js';

/** A plain Common with the module sets merged as a plain `createVM` and a header merge them. */
function reference(hardfork: Hardfork): Common {
  const common = new Common({ chain: Mainnet, hardfork });
  for (const params of [paramsBlock, paramsTx, paramsEVM, paramsVM]) common.updateParams(params);
  return common;
}

const PROBES: Array<[string, Hardfork]> = [
  ['elasticityMultiplier', Hardfork.London],
  ['txGas', Hardfork.Chainstart],
  ['txDataNonZeroGas', Hardfork.Istanbul],
  ['maxInitCodeSize', Hardfork.Shanghai],
  ['historyStorageAddress', Hardfork.Prague],
  ['historyServeWindow', Hardfork.Prague],
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

  it("every parameter of every fork of the four public networks equals a plain VM's, a plain header's and a plain transaction's", async () => {
    // The names of every parameter any module set defines, for any EIP.
    const names = new Set<string>();
    for (const set of [paramsBlock, paramsTx, paramsEVM, paramsVM]) for (const eip of Object.values(set)) for (const name of Object.keys(eip)) names.add(name);
    const read = (common: Common, name: string): string => {
      try {
        return String(common.param(name));
      } catch {
        return 'missing';
      }
    };
    let compared = 0;
    let defined = 0;
    for (const chain of [Mainnet, Sepolia, Holesky, Hoodi]) {
      for (const { name: hardfork } of chain.hardforks) {
        const ours = withMergedModuleParams(new Common({ chain, hardfork }));
        // What execution reads: a VM built over our Common, against a plain createVM's.
        const plainVM = await createVM({ common: new Common({ chain, hardfork }) });
        const ourVM = await createVM({ common: ours });
        const plainHeader = createBlockHeader({}, { common: new Common({ chain, hardfork }) }).common;
        const ourHeader = createBlockHeader({}, { common: ours }).common;
        const plainTx = createLegacyTx({}, { common: new Common({ chain, hardfork }) }).common;
        const ourTx = createLegacyTx({}, { common: ours }).common;
        for (const name of names) {
          const where = `${chain.name} ${hardfork} ${name}`;
          // Our one Common holds every module's parameters; a plain VM's holds its EVM's and its own.
          const inVM = read(plainVM.common, name);
          if (inVM !== 'missing') {
            expect(read(ourVM.common, name), where).toBe(inVM);
            expect(read(ours, name), where).toBe(inVM);
          }
          const inEVM = read(plainVM.evm.common, name);
          if (inEVM !== 'missing') expect(read(ourVM.evm.common, name), where).toBe(inEVM);
          // A header or a transaction reads its own module's parameters.
          const inHeader = read(plainHeader, name);
          if (inHeader !== 'missing') expect(read(ourHeader, name), where).toBe(inHeader);
          const inTx = read(plainTx, name);
          if (inTx !== 'missing') expect(read(ourTx, name), where).toBe(inTx);
          if ([inVM, inEVM, inHeader, inTx].some((v) => v !== 'missing')) defined++;
          compared++;
        }
      }
    }
    // 4 chains, each with all of its forks, every name: far more than a list of probes.
    expect(compared).toBeGreaterThan(4 * 15 * names.size);
    expect(defined).toBeGreaterThan(compared / 2);
    // The one value the two module sets disagree on, as EIP-2935 sets it.
    expect(withMergedModuleParams(new Common({ chain: Mainnet, hardfork: Hardfork.Prague })).param('historyServeWindow')).toBe(8191n);
  });
});
