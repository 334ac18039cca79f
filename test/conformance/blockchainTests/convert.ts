import type { BlockchainTest, TestBlock, TestHeader } from './fixtures.js';

/**
 * A blockchain test as a user's node would be given it: a geth genesis file (the fork schedule its
 * `network` names, the genesis header's fields, the `pre` accounts) and the blocks' RLP, in the
 * test's order, each with whether the test expects it refused.
 */

/** The forks a network name may name, oldest first. */
const FORKS = [
  'Frontier',
  'Homestead',
  'EIP150',
  'EIP158',
  'Byzantium',
  'Constantinople',
  'ConstantinopleFix',
  'Istanbul',
  'Berlin',
  'London',
  'ArrowGlacier',
  'GrayGlacier',
  'Paris',
  'Shanghai',
  'Cancun',
  'Prague',
  'Osaka',
  'BPO1',
  'BPO2',
  'BPO3',
  'BPO4',
  'BPO5',
] as const;
type Fork = (typeof FORKS)[number];

/** The geth genesis `config` keys that schedule each fork (by block number, or by time from Shanghai on). */
const FORK_KEYS: Record<Fork, string[]> = {
  Frontier: [],
  Homestead: ['homesteadBlock'],
  EIP150: ['eip150Block'],
  EIP158: ['eip155Block', 'eip158Block'],
  Byzantium: ['byzantiumBlock'],
  Constantinople: ['constantinopleBlock'],
  ConstantinopleFix: ['petersburgBlock'],
  Istanbul: ['istanbulBlock'],
  Berlin: ['muirGlacierBlock', 'berlinBlock'],
  London: ['londonBlock'],
  ArrowGlacier: ['arrowGlacierBlock'],
  GrayGlacier: ['grayGlacierBlock'],
  Paris: [],
  Shanghai: ['shanghaiTime'],
  Cancun: ['cancunTime'],
  Prague: ['pragueTime'],
  Osaka: ['osakaTime'],
  BPO1: ['bpo1Time'],
  BPO2: ['bpo2Time'],
  BPO3: ['bpo3Time'],
  BPO4: ['bpo4Time'],
  BPO5: ['bpo5Time'],
};

/** EIP-7840 blob parameters of the forks before any test gave its own (the legacy tests give none). */
const DEFAULT_BLOBS: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
};

/** A network name a schedule can be made for: `Fork`, `XToYAt5`, `XToYAtTime15k`, `XToYAtDiffC0000`, `HomesteadToDaoAt5`. */
export class UnknownNetworkError extends Error {}

function fork(name: string): Fork {
  const found = FORKS.find((f) => f === name);
  if (found === undefined) throw new UnknownNetworkError(`unknown fork ${JSON.stringify(name)}`);
  return found;
}

/** The geth genesis `config` of a test's network, chain id `chainId`. */
export function networkConfig(
  network: string,
  chainId: number,
  blobSchedule?: Record<string, Record<string, string>>,
): Record<string, unknown> & { chainId: number } {
  const config: Record<string, unknown> & { chainId: number } = { chainId };
  // Every fork up to `upTo` at block 0 / time 0; the merge at genesis as geth's files write it.
  const schedule = (upTo: Fork, at: number) => {
    for (const f of FORKS.slice(0, FORKS.indexOf(upTo) + 1)) {
      for (const key of FORK_KEYS[f]) config[key] = at;
      if (f === 'Paris') config.terminalTotalDifficulty = 0;
    }
  };
  const transition = /^(\w+?)To(\w+?)At(Time15k|Diff([0-9A-F]+)|(\d+))$/.exec(network);
  if (network === 'HomesteadToDaoAt5') {
    schedule('Homestead', 0);
    config.daoForkBlock = 5;
    config.daoForkSupport = true;
  } else if (transition) {
    const [, before, after, , diff, block] = transition;
    const first = fork(before);
    const second = fork(after);
    schedule(first, 0);
    if (diff !== undefined) {
      // The merge by total difficulty: proof of work until the chain's difficulty reaches it.
      config.terminalTotalDifficulty = Number.parseInt(diff, 16);
    } else if (block !== undefined) {
      for (const f of FORKS.slice(FORKS.indexOf(first) + 1, FORKS.indexOf(second) + 1)) for (const key of FORK_KEYS[f]) config[key] = Number(block);
    } else {
      for (const f of FORKS.slice(FORKS.indexOf(first) + 1, FORKS.indexOf(second) + 1)) {
        for (const key of FORK_KEYS[f]) config[key] = 15_000;
        if (f === 'Paris') config.terminalTotalDifficulty = 0;
      }
    }
  } else {
    schedule(fork(network), 0);
  }
  const blobs: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }> = {};
  for (const name of ['cancun', 'prague', 'osaka']) if (config[`${name}Time`] !== undefined) blobs[name] = DEFAULT_BLOBS[name];
  for (const [name, params] of Object.entries(blobSchedule ?? {})) {
    blobs[name.toLowerCase()] = { target: Number(params.target), max: Number(params.max), baseFeeUpdateFraction: Number(params.baseFeeUpdateFraction) };
  }
  if (Object.keys(blobs).length > 0) config.blobSchedule = blobs;
  return config;
}

/** Storage keys and values as a geth genesis writes them: 32 bytes of hex. */
function word(hex: string): string {
  return `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
}

/** The geth genesis file (as text) of a test: its network's schedule, its genesis header's fields, its `pre` accounts. */
export function genesisText(test: BlockchainTest): string {
  const h: TestHeader = test.genesisBlockHeader;
  const chainId = test.config?.chainid === undefined ? 1 : Number(test.config.chainid);
  const alloc: Record<string, unknown> = {};
  for (const [address, account] of Object.entries(test.pre)) {
    const storage: Record<string, string> = {};
    for (const [k, v] of Object.entries(account.storage ?? {})) storage[word(k)] = word(v);
    alloc[address] = { balance: account.balance, nonce: account.nonce, code: account.code, storage };
  }
  const genesis: Record<string, unknown> = {
    config: networkConfig(test.network, chainId, test.config?.blobSchedule),
    nonce: h.nonce,
    timestamp: h.timestamp,
    extraData: h.extraData,
    gasLimit: h.gasLimit,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    coinbase: h.coinbase,
    number: h.number,
    gasUsed: h.gasUsed,
    parentHash: h.parentHash,
    alloc,
  };
  for (const key of ['baseFeePerGas', 'excessBlobGas', 'blobGasUsed'] as const) if (h[key] !== undefined) genesis[key] = h[key];
  return `${JSON.stringify(genesis, null, 2)}\n`;
}

/**
 * Whether the test expects `block` refused: an `expectException` (the legacy fills' `…ALL`, or
 * one for the test's own network), or a legacy block given without its header.
 */
export function expectsRefusal(block: TestBlock, network: string): string | undefined {
  for (const [key, value] of Object.entries(block)) {
    if (!key.startsWith('expectException')) continue;
    const forNetwork = key.slice('expectException'.length);
    if (forNetwork === '' || forNetwork === 'ALL' || forNetwork === network) return String(value);
  }
  if (block.blockHeader === undefined) return 'a block given without its header';
  return undefined;
}

/** The fork a test's network ends on (a transition's second fork), for reports by fork. */
export function finalFork(network: string): string {
  if (network === 'HomesteadToDaoAt5') return 'Homestead';
  const transition = /^(\w+?)To(\w+?)At/.exec(network);
  return transition ? transition[2] : network;
}
