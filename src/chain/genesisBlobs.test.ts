import { describe, expect, it } from 'vitest';
import { genesisForkConfig } from './forkSchedule.js';
import { createChainCommon, type GethGenesis } from './genesis.js';

/** An Osaka genesis with the given BPO forks by time and blob schedule entries. */
function genesis(extra: Record<string, unknown>, blobs: Record<string, unknown>): GethGenesis {
  const config = genesisForkConfig(1337, 'osaka');
  return {
    config: { ...config, ...extra, blobSchedule: { ...(config.blobSchedule as object), ...blobs } },
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

const PER_BLOB = 131072n;

describe('BPO forks of a geth genesis', () => {
  it("take the genesis's blob parameters, for a fork @ethereumjs knows and one it does not", async () => {
    const common = await createChainCommon(
      genesis(
        { bpo1Time: 100, bpo2Time: 200, bpo3Time: 300 },
        {
          bpo1: { target: 4, max: 7, baseFeeUpdateFraction: 4000000 },
          bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
          bpo3: { target: '0x15', max: '0x20', baseFeeUpdateFraction: 20609697 },
        },
      ),
    );
    const at = (timestamp: bigint) => {
      const c = common.copy();
      c.setHardforkBy({ blockNumber: 1n, timestamp });
      return [c.hardfork(), c.getBlobGasSchedule()];
    };
    expect(at(150n)).toEqual(['bpo1', { targetBlobGasPerBlock: 4n * PER_BLOB, maxBlobGasPerBlock: 7n * PER_BLOB, blobGasPriceUpdateFraction: 4000000n }]);
    expect(at(350n)).toEqual(['bpo3', { targetBlobGasPerBlock: 21n * PER_BLOB, maxBlobGasPerBlock: 32n * PER_BLOB, blobGasPriceUpdateFraction: 20609697n }]);
    expect((at(50n)[1] as { maxBlobGasPerBlock: bigint }).maxBlobGasPerBlock).toBe(9n * PER_BLOB);
  });

  it('a BPO fork scheduled with no blob parameters anywhere is refused by name', async () => {
    await expect(createChainCommon(genesis({ bpo3Time: 300 }, {}))).rejects.toThrow(
      'genesis: config.bpo3Time schedules bpo3, and config.blobSchedule gives no blob parameters for it',
    );
  });
});
