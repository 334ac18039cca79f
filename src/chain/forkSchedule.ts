import type { GethGenesis } from './genesis.js';

/**
 * Fork schedules of chains whose forks are all active from their genesis, as development nodes
 * run them (anvil, Hardhat, geth --dev), written as a geth genesis `config`: what `init --from-node`
 * stores for a node that has no genesis file (`follow/nodeGenesis.ts` finds the fork).
 */

/** The forks `init --from-node` can schedule, oldest first: London (proof of work) and every fork since the merge. */
export const GENESIS_FORKS = ['london', 'merge', 'shanghai', 'cancun', 'prague', 'osaka'] as const;
export type GenesisFork = (typeof GENESIS_FORKS)[number];

/** EIP-7840 blob parameters of one fork. */
export interface BlobParams {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/** Each fork's geth timestamp key, and from Cancun on its EIP-7840 blob parameters (Osaka keeps Prague's). */
const FORKS: Record<GenesisFork, { time?: string; blobs?: BlobParams }> = {
  london: {},
  merge: {},
  shanghai: { time: 'shanghaiTime' },
  cancun: { time: 'cancunTime', blobs: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
  prague: { time: 'pragueTime', blobs: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 } },
  osaka: { time: 'osakaTime', blobs: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 } },
};

/** Every fork block up to London, which a genesis `config` names one by one. */
const BLOCK_FORKS = ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'muirGlacier', 'berlin', 'london'];

/**
 * A geth genesis `config` for chain `chainId` with every fork through `fork` active at block 0 /
 * time 0, as the repository's genesis files write it. `blobs` replaces the blob parameters of
 * `fork` itself (a node that says what it uses, EIP-7910 `eth_config`); `depositContractAddress`
 * is the EIP-6110 deposit contract (unset: @ethereumjs's default, mainnet's).
 */
export function genesisForkConfig(
  chainId: number,
  fork: GenesisFork,
  opts: { blobs?: BlobParams; depositContractAddress?: string } = {},
): GethGenesis['config'] {
  const active = GENESIS_FORKS.slice(0, GENESIS_FORKS.indexOf(fork) + 1);
  const config: GethGenesis['config'] = { chainId };
  for (const key of BLOCK_FORKS) config[`${key}Block`] = 0;
  config.arrowGlacierBlock = 0;
  config.grayGlacierBlock = 0;
  if (active.includes('merge')) {
    config.mergeNetsplitBlock = 0;
    config.terminalTotalDifficulty = 0;
  }
  for (const f of active) {
    const time = FORKS[f].time;
    if (time) config[time] = 0;
  }
  if (opts.depositContractAddress !== undefined) config.depositContractAddress = opts.depositContractAddress;
  const blobSchedule: Record<string, BlobParams> = {};
  for (const f of active) {
    const blobs = f === fork && opts.blobs ? opts.blobs : FORKS[f].blobs;
    if (blobs) blobSchedule[f] = { ...blobs };
  }
  if (Object.keys(blobSchedule).length > 0) config.blobSchedule = blobSchedule;
  return config;
}
