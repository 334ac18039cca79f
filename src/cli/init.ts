import { readFileSync } from 'node:fs';
import { OP_UPGRADES, type OpGenesisUpgrade } from '../chain/op/rollup.js';
import type { Config } from '../config/settings.js';
import { readNodeGenesis } from '../follow/nodeGenesis.js';
import { shownUpstreamUrl, Upstream } from '../follow/upstream.js';
import { type InitResult, initDatadir, initDatadirFromNode } from '../import/init.js';
import { CHECKPOINT_HASH, initArchiveFrom } from './archiveFrom.js';
import { type CommandSpec, commandHelp, type FlagSpec, parseCommand, requiredDatadir, UsageError } from './options.js';

/** The genesis file: an argument of `init`, not a setting. */
const GENESIS: FlagSpec = { name: 'genesis', env: 'TRACENODE_GENESIS', arg: 'FILE', help: 'geth-format genesis.json' };
/** A development node to take the genesis from, instead of a file: an argument too. */
const FROM_NODE: FlagSpec = {
  name: 'from-node',
  env: 'TRACENODE_FROM_NODE',
  arg: 'URL',
  help: "a running development node (anvil, Hardhat) whose genesis to take: its block 0, chain id, forks and its accounts' state at block 0",
};
/** With `--from-node`: the block the archive starts at, instead of the node's genesis. */
const AT: FlagSpec = {
  name: 'at',
  env: 'TRACENODE_AT',
  arg: 'BLOCK',
  help: 'with --from-node: an archive from this block of the node (latest, safe, finalized or a number), no state up front; --genesis then gives only the rules',
};
/**
 * The datadir, the chain store's caches and the genesis state trie's node cache; with
 * `--from-node`, the header checks (anvil's block 0 is taken only under lenient ones) and the
 * upstream request deadline.
 */
const OP_UPGRADE: FlagSpec = {
  name: 'op-upgrade',
  env: 'TRACENODE_OP_UPGRADE',
  arg: 'UPGRADE',
  help: `with --from-node (and --at): the node is an OP-stack chain running every upgrade up to this one from genesis (anvil --network optimism [--hardfork UPGRADE]; anvil's default is isthmus): ${OP_UPGRADES.join(', ')}`,
};
const SPEC: CommandSpec = {
  settings: ['server.datadir', 'caches', 'import.trieNodeCacheEntries', 'import.headerChecks', 'follow.requestTimeoutMs'],
  flags: [GENESIS, FROM_NODE, AT, CHECKPOINT_HASH, OP_UPGRADE],
};
export const INIT_HELP = commandHelp(
  'tracenode init --datadir DIR (--genesis genesis.json | --from-node URL [--at BLOCK [--checkpoint-hash HASH] [--genesis genesis.json]])',
  'Writes the genesis block and state of a geth-format genesis into DIR (like `geth init`), or\n' +
    'those of a running development node that has no genesis file (anvil, Hardhat): its own block 0,\n' +
    'and the state of the accounts it lists, checked against the root of the state it holds. With\n' +
    '--at, DIR becomes an archive from that block of the node instead: the block, no state (it is\n' +
    "fetched from the node as it is read). Then 'serve --follow' or 'follow' that node (docs/following.md).",
  SPEC,
);

/** `tracenode init`. */
export async function runInit(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const { config, values } = parsed;
  const datadir = requiredDatadir(config);
  const genesisPath = values[GENESIS.name];
  const nodeUrl = values[FROM_NODE.name];
  const at = values[AT.name];
  if (at === undefined && values[CHECKPOINT_HASH.name] !== undefined) throw new UsageError('--checkpoint-hash pins the block of --at');
  const opUpgrade = values[OP_UPGRADE.name];
  if (opUpgrade !== undefined) {
    if (nodeUrl === undefined) throw new UsageError('--op-upgrade goes with --from-node URL (an OP-stack genesis file carries its own upgrades)');
    if (!(OP_UPGRADES as readonly string[]).includes(opUpgrade)) throw new UsageError(`--op-upgrade: ${opUpgrade} is not one of ${OP_UPGRADES.join(', ')}`);
  }
  const op = opUpgrade as OpGenesisUpgrade | undefined;
  if (at !== undefined) {
    if (nodeUrl === undefined || !/^(https?|wss?):\/\//i.test(nodeUrl)) throw new UsageError('--at takes the node to start from as --from-node URL');
    const genesisText = genesisPath === undefined ? undefined : readGenesis(genesisPath);
    const say = (line: string) => process.stdout.write(`init: ${line}\n`);
    await initArchiveFrom(datadir, nodeUrl, { at, checkpointHash: values[CHECKPOINT_HASH.name], genesisText, ...(op ? { opUpgrade: op } : {}) }, config, say);
    return 0;
  }
  if ((genesisPath === undefined) === (nodeUrl === undefined)) {
    throw new UsageError('give either --genesis FILE or --from-node URL (or TRACENODE_GENESIS / TRACENODE_FROM_NODE)');
  }
  if (nodeUrl !== undefined) return initFromNode(datadir, nodeUrl, config, op);
  report(await initDatadir(datadir, readGenesis(genesisPath!), config), datadir, 'this genesis');
  return 0;
}

function readGenesis(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read genesis ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function initFromNode(
  datadir: string,
  url: string,
  config: Pick<Config, 'caches' | 'import' | 'follow'>,
  opUpgrade: OpGenesisUpgrade | undefined,
): Promise<number> {
  if (!/^(https?|wss?):\/\//i.test(url)) throw new UsageError('--from-node takes an http(s):// or ws(s):// URL of the node');
  const upstream = new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs });
  try {
    // An OP-stack node says nothing of its upgrades over JSON-RPC (anvil's eth_config names Prague): the flag does.
    const node = await readNodeGenesis(upstream, opUpgrade);
    const { info } = node;
    const result = await initDatadirFromNode(datadir, node, config);
    process.stdout.write(
      `init: the node at ${shownUpstreamUrl(url)}: chain id ${node.common.chainId()}, fork ${info.fork} from block 0 (${info.forkSource})${opUpgrade ? `, an OP-stack chain at ${opUpgrade} from block 0` : ''}, ${info.accounts} accounts at block 0\n`,
    );
    if (result.genesisStateRoot !== undefined && !result.alreadyInitialised) {
      process.stdout.write(
        `init: block 0's header names the empty trie's state root ${result.stateRoot} (anvil, foundry issue 7366); its state is kept under ${result.genesisStateRoot}, the root of the state the node holds (its account proofs), and block 1's state root will verify it\n`,
      );
    }
    report(result, datadir, "the node's genesis");
    return 0;
  } finally {
    upstream.close();
  }
}

function report(result: InitResult, datadir: string, what: string): void {
  process.stdout.write(
    result.alreadyInitialised
      ? `init: ${datadir} already holds ${what} ${result.hash}\n`
      : `init: genesis ${result.hash} (stateRoot ${result.stateRoot}) written to ${datadir}\n`,
  );
}
