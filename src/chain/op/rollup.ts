import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { ecrecover } from '../../codec/ecrecover.js';
import { keccak256 } from '../../codec/keccak.js';
import { withMergedModuleParams } from '../commonParams.js';
import { genesisForkConfig } from '../forkSchedule.js';
import type { GethGenesis } from '../genesis.js';

/**
 * An OP-stack chain's execution rules: which upgrade is active at a block's time, the EIP-1559
 * parameters, and the Ethereum fork each upgrade runs the EVM at (OP specification, "superchain
 * upgrades"). Upgrades activate by L2 block time; an upgrade active implies every earlier one is
 * (a rollup config may leave an early one out when it was active from genesis, as OP Sepolia's
 * does for Regolith).
 */

/** The upgrades after Bedrock, in order. */
export const OP_UPGRADES = ['regolith', 'canyon', 'delta', 'ecotone', 'fjord', 'granite', 'holocene', 'isthmus', 'jovian'] as const;
export type OpUpgrade = 'bedrock' | (typeof OP_UPGRADES)[number];

export interface OpRollup {
  chainId: bigint;
  /** Activation time (seconds) of each scheduled upgrade. */
  times: Partial<Record<(typeof OP_UPGRADES)[number], bigint>>;
  eip1559: {
    elasticity: bigint;
    /** Before Canyon. */
    denominator: bigint;
    /** From Canyon (and Holocene's default when a block's extra data gives zeros). */
    denominatorCanyon: bigint;
  };
  /**
   * An upgrade the chain's genesis schedules that tracenode does not know (one after Jovian): its
   * name and time. Blocks from that time are refused rather than run by older rules.
   */
  unknownUpgrade?: { name: string; time: bigint };
}

/** The Ethereum forks an op-geth genesis `config` may schedule by time beside the OP upgrades. */
const ETHEREUM_TIME_FORKS = new Set(['shanghai', 'cancun', 'prague', 'osaka', 'verkle', 'amsterdam', 'bpo1', 'bpo2', 'bpo3', 'bpo4', 'bpo5']);

/** The earliest `<name>Time` of `config` that is neither an OP upgrade nor an Ethereum fork. */
function unknownUpgradeOf(config: Record<string, unknown>): { name: string; time: bigint } | undefined {
  let earliest: { name: string; time: bigint } | undefined;
  for (const [key, value] of Object.entries(config)) {
    const name = /^([a-z][A-Za-z0-9]*)Time$/.exec(key)?.[1];
    if (name === undefined || typeof value !== 'number' || ETHEREUM_TIME_FORKS.has(name) || (OP_UPGRADES as readonly string[]).includes(name)) continue;
    if (earliest === undefined || BigInt(value) < earliest.time) earliest = { name, time: BigInt(value) };
  }
  return earliest;
}

/** Whether `upgrade` is active at `time`: its own time has come, or a later upgrade's has. */
export function isActive(rollup: OpRollup, upgrade: OpUpgrade, time: bigint): boolean {
  if (upgrade === 'bedrock') return true;
  for (let i = OP_UPGRADES.indexOf(upgrade); i < OP_UPGRADES.length; i++) {
    const at = rollup.times[OP_UPGRADES[i]];
    if (at !== undefined && time >= at) return true;
  }
  return false;
}

/** The latest upgrade active at `time`. */
export function upgradeAt(rollup: OpRollup, time: bigint): OpUpgrade {
  for (let i = OP_UPGRADES.length - 1; i >= 0; i--) if (isActive(rollup, OP_UPGRADES[i], time)) return OP_UPGRADES[i];
  return 'bedrock';
}

/**
 * The Ethereum fork whose EVM and transaction rules an upgrade runs: Bedrock and Regolith are
 * London after the merge, Canyon and Delta Shanghai, Ecotone to Holocene Cancun (without blob
 * transactions), Isthmus and Jovian Prague.
 */
export function ethereumForkOf(upgrade: OpUpgrade): Hardfork {
  switch (upgrade) {
    case 'bedrock':
    case 'regolith':
      return Hardfork.Paris;
    case 'canyon':
    case 'delta':
      return Hardfork.Shanghai;
    case 'ecotone':
    case 'fjord':
    case 'granite':
    case 'holocene':
      return Hardfork.Cancun;
    case 'isthmus':
    case 'jovian':
      return Hardfork.Prague;
  }
}

/** Field names of a rollup config as op-node and kona write it (JSON, snake case). */
interface RollupConfigJson {
  l2_chain_id: number | string;
  /** Numbers, or hex strings as kona wrote them before July 2025. */
  chain_op_config?: { eip1559Elasticity: number | string; eip1559Denominator: number | string; eip1559DenominatorCanyon: number | string };
  [key: string]: unknown;
}

/** The rules of a chain from its rollup config (op-node's `rollup.json`, as kona's fixtures carry it). */
export function rollupFromConfig(json: RollupConfigJson): OpRollup {
  const times: OpRollup['times'] = {};
  for (const upgrade of OP_UPGRADES) {
    const at = json[`${upgrade}_time`];
    if (typeof at === 'number' || typeof at === 'string') times[upgrade] = BigInt(at);
  }
  // op-node's defaults (OP Mainnet's and OP Sepolia's values) when the config leaves them out.
  const op = json.chain_op_config ?? { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 };
  return {
    chainId: BigInt(json.l2_chain_id),
    times,
    eip1559: { elasticity: BigInt(op.eip1559Elasticity), denominator: BigInt(op.eip1559Denominator), denominatorCanyon: BigInt(op.eip1559DenominatorCanyon) },
  };
}

/**
 * The rules of a chain from its op-geth genesis file: the upgrade times of its `config`
 * (`regolithTime` … `jovianTime`, op-geth's `params.ChainConfig` names) and its `optimism` section
 * (`eip1559Elasticity`, `eip1559Denominator`, `eip1559DenominatorCanyon`; without the last, the
 * denominator stays the same from Canyon, as op-geth's `BaseFeeChangeDenominator` has it).
 */
export function rollupFromGethGenesis(genesis: unknown): OpRollup {
  const config = (genesis as { config?: Record<string, unknown> } | null)?.config;
  if (typeof config !== 'object' || config === null) throw new TypeError('an op-geth genesis has a config object');
  const optimism = config.optimism as Record<string, unknown> | undefined;
  if (typeof optimism !== 'object' || optimism === null) throw new TypeError('an OP-stack genesis has a config.optimism section');
  const integer = (value: unknown, what: string): bigint => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError(`genesis ${what} is not a non-negative integer`);
    return BigInt(value);
  };
  const times: OpRollup['times'] = {};
  for (const upgrade of OP_UPGRADES) {
    const at = config[`${upgrade}Time`];
    if (at !== undefined && at !== null) times[upgrade] = integer(at, `config.${upgrade}Time`);
  }
  const denominator = integer(optimism.eip1559Denominator, 'config.optimism.eip1559Denominator');
  const canyon = optimism.eip1559DenominatorCanyon;
  const unknownUpgrade = unknownUpgradeOf(config);
  return {
    ...(unknownUpgrade ? { unknownUpgrade } : {}),
    chainId: integer(config.chainId, 'config.chainId'),
    times,
    eip1559: {
      elasticity: integer(optimism.eip1559Elasticity, 'config.optimism.eip1559Elasticity'),
      denominator,
      denominatorCanyon: canyon === undefined || canyon === null ? denominator : integer(canyon, 'config.optimism.eip1559DenominatorCanyon'),
    },
  };
}

/**
 * A Common for `rollup`'s blocks of `upgrade`: mainnet's parameters at the Ethereum fork the
 * upgrade runs ({@link ethereumForkOf}), under the chain's id (EIP-155 signatures, CHAINID).
 */
export function opCommon(rollup: OpRollup, upgrade: OpUpgrade): Common {
  const chain = { ...Mainnet, name: `op-${rollup.chainId}`, chainId: Number(rollup.chainId) };
  return withMergedModuleParams(new Common({ chain, hardfork: ethereumForkOf(upgrade), customCrypto: { keccak256, ecrecover } }));
}

/** An upgrade a chain can run from genesis (`opGenesisConfigUpTo`). */
export type OpGenesisUpgrade = (typeof OP_UPGRADES)[number];

/** OP Mainnet's EIP-1559 parameters, which op-node and op-geth default to (and anvil's OP mode uses). */
export const OP_MAINNET_EIP1559 = { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 } as const;

/**
 * The fields an op-geth genesis `config` carries for a chain that runs every upgrade up to
 * `upgrade` from genesis (as `anvil --network optimism --hardfork <upgrade>` does): each
 * upgrade's time 0 and the `optimism` section with OP Mainnet's EIP-1559 parameters.
 */
export function opGenesisConfigUpTo(upgrade: OpGenesisUpgrade): Record<string, unknown> {
  const fields: Record<string, unknown> = { bedrockBlock: 0 };
  for (const u of OP_UPGRADES.slice(0, OP_UPGRADES.indexOf(upgrade) + 1)) fields[`${u}Time`] = 0;
  fields.optimism = { ...OP_MAINNET_EIP1559 };
  return fields;
}

/**
 * An op-geth genesis `config` for `rollup`'s chain (as its genesis file would give it, without the
 * allocation): every Ethereum fork through the merge from genesis, Shanghai at Canyon, Cancun at
 * Ecotone, Prague at Isthmus (op-geth requires these to coincide), each upgrade's time and the
 * `optimism` section with the chain's EIP-1559 parameters. What an archive from block N of a
 * known OP chain reads its blocks by (its blocks before Bedrock are not OP-stack blocks).
 */
export function opGethConfig(rollup: OpRollup): GethGenesis['config'] {
  const config = genesisForkConfig(Number(rollup.chainId), 'merge');
  const ethereum: Array<[string, (typeof OP_UPGRADES)[number], 'cancun' | 'prague' | undefined]> = [
    ['shanghaiTime', 'canyon', undefined],
    ['cancunTime', 'ecotone', 'cancun'],
    ['pragueTime', 'isthmus', 'prague'],
  ];
  const blobSchedule: Record<string, unknown> = {};
  for (const [key, upgrade, blobs] of ethereum) {
    const at = rollup.times[upgrade];
    if (at === undefined) continue;
    config[key] = Number(at);
    if (blobs) blobSchedule[blobs] = { ...ETHEREUM_BLOBS[blobs] };
  }
  if (Object.keys(blobSchedule).length > 0) config.blobSchedule = blobSchedule;
  config.bedrockBlock = 0;
  for (const upgrade of OP_UPGRADES) {
    const at = rollup.times[upgrade];
    if (at !== undefined) config[`${upgrade}Time`] = Number(at);
  }
  config.optimism = {
    eip1559Elasticity: Number(rollup.eip1559.elasticity),
    eip1559Denominator: Number(rollup.eip1559.denominator),
    eip1559DenominatorCanyon: Number(rollup.eip1559.denominatorCanyon),
  };
  return config;
}

/** Ethereum's EIP-7840 blob parameters of Cancun and Prague (OP chains carry no blobs; the Common wants them). */
const ETHEREUM_BLOBS = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
} as const;

/**
 * A genesis of `rollup`'s chain that gives only its rules ({@link opGethConfig}), for an archive
 * from block N of a known OP chain: the header fields a genesis file must have are zeros and the
 * allocation is empty, as nothing of block 0 is read by such an archive (block N is checked by its
 * hash, its state fetched with proofs).
 */
export function opRulesGenesis(rollup: OpRollup): GethGenesis {
  return { config: opGethConfig(rollup), nonce: '0x0', timestamp: '0x0', extraData: '0x', gasLimit: '0x0', difficulty: '0x0', alloc: {} };
}
