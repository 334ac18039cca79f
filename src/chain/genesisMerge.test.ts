import { Hardfork } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { genesisForkConfig } from './forkSchedule.js';
import { createChainCommon, type GethGenesis } from './genesis.js';

/** A genesis with the given config (no accounts). */
function genesis(config: Record<string, unknown>): GethGenesis {
  return {
    config: { chainId: 1337, ...config },
    alloc: {},
    difficulty: '0x0',
    gasLimit: '0x1c9c380',
    nonce: '0x0',
    extraData: '0x',
    timestamp: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
  };
}

const LONDON = {
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
};

describe('the merge in a geth genesis', () => {
  it.each([
    ['terminalTotalDifficulty 0 alone', { ...LONDON, terminalTotalDifficulty: 0 }],
    ['terminalTotalDifficulty "0x0"', { ...LONDON, terminalTotalDifficulty: '0x0' }],
    ['terminalTotalDifficulty 0 with mergeNetsplitBlock 0', { ...LONDON, terminalTotalDifficulty: 0, mergeNetsplitBlock: 0 }],
    ["init --from-node's 'merge' schedule", genesisForkConfig(1337, 'merge')],
  ])('%s: merged from the genesis, as geth reads it', async (_, config) => {
    const common = await createChainCommon(genesis(config));
    common.setHardforkBy({ blockNumber: 1n, timestamp: 1n });
    expect(common.gteHardfork(Hardfork.Paris)).toBe(true);
    expect(common.hardfork()).not.toBe(Hardfork.London);
  });

  it('a chain without a terminal total difficulty stays on proof of work', async () => {
    const common = await createChainCommon(genesis(LONDON));
    common.setHardforkBy({ blockNumber: 1n, timestamp: 1n });
    expect(common.hardfork()).toBe(Hardfork.London);
  });
});
