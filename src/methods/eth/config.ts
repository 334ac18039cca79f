import { crc32 } from 'node:zlib';
import { bigIntToQuantity } from '../../codec/hex.js';
import { ServerError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { NONE } from '../raises.js';

/**
 * `eth_config` (EIP-7910): the fork the node runs at its head (`current`), the next scheduled one
 * (`next`) and the last scheduled one (`last`, null when nothing is scheduled), each with its
 * activation time, blob schedule, chain id, EIP-2124 fork id, precompiles and system contracts, as
 * geth's `BlockChainAPI.Config` builds them from the genesis config the datadir was initialised
 * with. Only timestamp-scheduled forks (Shanghai on) have an entry; before them `current` is null.
 * https://eips.ethereum.org/EIPS/eip-7910
 */

/** geth's timestamp forks in order (`params/forks`), as their genesis-config names. */
const TIME_FORKS = ['shanghai', 'cancun', 'prague', 'osaka', 'bpo1', 'bpo2', 'bpo3', 'bpo4', 'bpo5', 'amsterdam'] as const;
type TimeFork = (typeof TIME_FORKS)[number];
const FORK_RANK: Record<TimeFork, number> = Object.fromEntries(TIME_FORKS.map((f, i) => [f, i])) as Record<TimeFork, number>;

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
/** geth's precompile names (`core/vm/contracts.go` Name()) and the fork each arrives with. */
const PRECOMPILES: Array<[string, number, TimeFork | undefined]> = [
  ['ECREC', 1, undefined],
  ['SHA256', 2, undefined],
  ['RIPEMD160', 3, undefined],
  ['ID', 4, undefined],
  ['MODEXP', 5, undefined],
  ['BN254_ADD', 6, undefined],
  ['BN254_MUL', 7, undefined],
  ['BN254_PAIRING', 8, undefined],
  ['BLAKE2F', 9, undefined],
  ['KZG_POINT_EVALUATION', 0x0a, 'cancun'],
  ['BLS12_G1ADD', 0x0b, 'prague'],
  ['BLS12_G1MSM', 0x0c, 'prague'],
  ['BLS12_G2ADD', 0x0d, 'prague'],
  ['BLS12_G2MSM', 0x0e, 'prague'],
  ['BLS12_PAIRING_CHECK', 0x0f, 'prague'],
  ['BLS12_MAP_FP_TO_G1', 0x10, 'prague'],
  ['BLS12_MAP_FP2_TO_G2', 0x11, 'prague'],
  ['P256VERIFY', 0x100, 'osaka'],
];

type GenesisConfig = Record<string, unknown>;

const num = (v: unknown): bigint | undefined =>
  typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : typeof v === 'string' && v !== '' ? BigInt(v) : undefined;

function timeOf(config: GenesisConfig, fork: TimeFork | undefined): bigint | undefined {
  return fork === undefined ? undefined : num(config[`${fork}Time`]);
}

/** geth's `LatestFork(t)`: the last timestamp fork active at `t` (undefined before Shanghai). */
function latestFork(config: GenesisConfig, t: bigint): TimeFork | undefined {
  let latest: TimeFork | undefined;
  for (const f of TIME_FORKS) {
    const at = timeOf(config, f);
    if (at !== undefined && at <= t) latest = f;
  }
  return latest;
}

/** EIP-2124 fork id at time `t` with every block fork passed: CRC32 of the genesis hash and each fork point. */
function forkId(config: GenesisConfig, genesisHash: Uint8Array, genesisTime: bigint, t: bigint): string {
  const blocks = new Set<bigint>();
  const times = new Set<bigint>();
  for (const [key, value] of Object.entries(config)) {
    const n = num(value);
    if (n === undefined) continue;
    if (key.endsWith('Block') && n > 0n) blocks.add(n);
    else if (key.endsWith('Time') && n > genesisTime && n <= t) times.add(n);
  }
  let crc = crc32(genesisHash);
  for (const n of [...[...blocks].sort((a, b) => (a < b ? -1 : 1)), ...[...times].sort((a, b) => (a < b ? -1 : 1))]) {
    const be = Buffer.alloc(8);
    be.writeBigUInt64BE(n);
    crc = crc32(be, crc);
  }
  return `0x${crc.toString(16).padStart(8, '0')}`;
}

export const config = defineMethod({
  name: 'eth_config',
  raises: NONE,
  params: [],
  handler: async (ctx: EthContext) => {
    const store = ctx.chain.store;
    const [genesis, head] = await Promise.all([store.headerByNumber(0n), store.headHeader()]);
    if (!genesis || !head) throw new ServerError('unable to load genesis: header not found');
    const cfg = ctx.chain.genesis.config as GenesisConfig;
    const chainId = bigIntToQuantity(ctx.chain.common.chainId());
    const blobSchedule = (cfg.blobSchedule ?? {}) as Record<string, { target?: number; max?: number; baseFeeUpdateFraction?: number }>;
    const assemble = (fork: TimeFork | undefined) => {
      const t = timeOf(cfg, fork);
      if (fork === undefined || t === undefined) return null;
      const rank = FORK_RANK[fork];
      const precompiles: Record<string, string> = {};
      for (const [name, at, since] of PRECOMPILES) if (since === undefined || FORK_RANK[since] <= rank) precompiles[name] = address(at);
      const systemContracts: Record<string, string> = {};
      if (rank >= FORK_RANK.cancun) systemContracts.BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
      if (rank >= FORK_RANK.prague) {
        systemContracts.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = '0x0000bbddc7ce488642fb579f8b00f3a590007251';
        systemContracts.DEPOSIT_CONTRACT_ADDRESS = String(cfg.depositContractAddress ?? '0x00000000219ab540356cbb839cbe05303d7705fa').toLowerCase();
        systemContracts.HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935';
        systemContracts.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = '0x00000961ef480eb55e80d19ad83579a64c007002';
      }
      // geth's BlobConfig(LatestFork(t)): the schedule entry of that fork, null before Cancun
      const blob = rank >= FORK_RANK.cancun ? blobSchedule[fork] : undefined;
      return {
        activationTime: Number(genesis.timestamp >= t ? 0n : t),
        blobSchedule: blob ? { target: blob.target, max: blob.max, baseFeeUpdateFraction: blob.baseFeeUpdateFraction } : null,
        chainId,
        forkId: forkId(cfg, genesis.hash(), genesis.timestamp, t),
        precompiles,
        systemContracts,
      };
    };
    const current = latestFork(cfg, head.timestamp);
    const nextFork = current === undefined ? TIME_FORKS[0] : TIME_FORKS[FORK_RANK[current] + 1];
    const next = assemble(nextFork);
    const last = next === null ? null : assemble(latestFork(cfg, (1n << 64n) - 1n));
    return { current: assemble(current), next, last };
  },
});
