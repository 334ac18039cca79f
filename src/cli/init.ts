import { readFileSync } from 'node:fs';
import { initDatadir } from '../import/init.js';
import { type CommandSpec, commandHelp, type FlagSpec, parseCommand, required, requiredDatadir } from './options.js';

/** The genesis file: an argument of `init`, not a setting. */
const GENESIS: FlagSpec = { name: 'genesis', env: 'TRACENODE_GENESIS', arg: 'FILE', help: 'geth-format genesis.json' };
/** The datadir, the chain store's caches and the genesis state trie's node cache. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'caches', 'import.trieNodeCacheEntries'], flags: [GENESIS] };
export const INIT_HELP = commandHelp(
  'tracenode init --datadir DIR --genesis genesis.json',
  'Writes the genesis block and state of a geth-format genesis into DIR (like `geth init`).',
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
  const genesisPath = required(values, GENESIS);
  let text: string;
  try {
    text = readFileSync(genesisPath, 'utf8');
  } catch (err) {
    throw new Error(`cannot read genesis ${genesisPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const result = await initDatadir(datadir, text, config);
  process.stdout.write(
    result.alreadyInitialised
      ? `init: ${datadir} already holds this genesis ${result.hash}\n`
      : `init: genesis ${result.hash} (stateRoot ${result.stateRoot}) written to ${datadir}\n`,
  );
  return 0;
}
