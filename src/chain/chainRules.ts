import { type ChainConfig, Common, Holesky, Hoodi, Mainnet, Sepolia } from '@ethereumjs/common';
import { ecrecover } from '../codec/ecrecover.js';
import { keccak256 } from '../codec/keccak.js';
import { withMergedModuleParams } from './commonParams.js';
import { type GethGenesis, loadKzg } from './genesis.js';

/**
 * The rules of the public networks @ethereumjs/common knows, for an archive that starts at block N
 * of one of them (`chain/archiveStart.ts`): such a datadir has no genesis file, so its Common is the
 * built-in chain of its chain id (META.builtinChain names it), with every fork it schedules. What
 * else reads a genesis `config` (eth_config, net_version, the EIP-6110 deposit contract) reads the
 * config {@link gethConfigOf} writes for it.
 */

/** The built-in chains by name, as META.builtinChain stores them. */
const BUILTIN_CHAINS: Readonly<Record<string, ChainConfig>> = { mainnet: Mainnet, sepolia: Sepolia, holesky: Holesky, hoodi: Hoodi };

/** The built-in chain of a chain id (1 mainnet, 11155111 sepolia, 17000 holesky, 560048 hoodi), or undefined. */
export function builtinChainOf(chainId: bigint): string | undefined {
  return Object.entries(BUILTIN_CHAINS).find(([, c]) => BigInt(c.chainId) === chainId)?.[0];
}

/** The Common of a built-in chain, with the KZG setup its blob transactions need, its hardfork set for block 0. */
export async function createBuiltinCommon(name: string): Promise<Common> {
  const chain = BUILTIN_CHAINS[name];
  if (chain === undefined) throw new Error(`database corrupt: unknown built-in chain ${JSON.stringify(name)}`);
  const common = withMergedModuleParams(new Common({ chain, customCrypto: { kzg: (await loadKzg()) as never, keccak256, ecrecover } }));
  common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
  return common;
}

/** geth genesis keys of the forks scheduled by block or time (geth `params.ChainConfig` names). */
const GETH_FORK_KEYS: Readonly<Record<string, readonly string[]>> = {
  homestead: ['homesteadBlock'],
  dao: ['daoForkBlock'],
  tangerineWhistle: ['eip150Block'],
  spuriousDragon: ['eip155Block', 'eip158Block'],
  byzantium: ['byzantiumBlock'],
  constantinople: ['constantinopleBlock'],
  petersburg: ['petersburgBlock'],
  istanbul: ['istanbulBlock'],
  muirGlacier: ['muirGlacierBlock'],
  berlin: ['berlinBlock'],
  london: ['londonBlock'],
  arrowGlacier: ['arrowGlacierBlock'],
  grayGlacier: ['grayGlacierBlock'],
  mergeNetsplitBlock: ['mergeNetsplitBlock'],
};

/**
 * EIP-7840 blob parameters of each fork, the same on the four networks (EIP-7691 for Prague,
 * EIP-7892's BPO1 and BPO2 of Fusaka): @ethereumjs/common keeps them in the libraries' parameter
 * tables, not in the chain.
 */
const BLOB_SCHEDULE: Readonly<Record<string, { target: number; max: number; baseFeeUpdateFraction: number }>> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
  bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
};

/**
 * A geth genesis `config` for a built-in chain's Common: its chain id, deposit contract, the block
 * of each fork scheduled by block, the time of each scheduled by time (`shanghaiTime`, …,
 * `bpo2Time`) and the blob parameters of each fork from Cancun on (EIP-7840 `blobSchedule`).
 */
export function gethConfigOf(common: Common): GethGenesis['config'] {
  const config: GethGenesis['config'] = { chainId: Number(common.chainId()) };
  const deposit = BUILTIN_CHAINS[common.chainName()]?.depositContractAddress;
  if (deposit !== undefined) config.depositContractAddress = deposit.toLowerCase();
  const blobSchedule: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> = {};
  for (const hf of common.hardforks()) {
    if (hf.block !== null && hf.block !== undefined) for (const key of GETH_FORK_KEYS[hf.name] ?? []) config[key] = Number(hf.block);
    if (hf.timestamp === undefined || hf.timestamp === null) continue;
    config[`${hf.name}Time`] = Number(hf.timestamp);
    const blobs = BLOB_SCHEDULE[hf.name];
    if (blobs !== undefined) blobSchedule[hf.name] = { ...blobs };
  }
  if (Object.keys(blobSchedule).length > 0) config.blobSchedule = blobSchedule;
  return config;
}
