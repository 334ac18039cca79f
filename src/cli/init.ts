import { readFileSync } from 'node:fs';
import { initDatadir } from '../import/init.js';
import { DATADIR, type FlagSpec, helpText, parseFlags, required } from './options.js';

const GENESIS: FlagSpec = { name: 'genesis', env: 'TRACENODE_GENESIS', arg: 'FILE', help: 'geth-format genesis.json' };
const FLAGS = [DATADIR, GENESIS];
export const INIT_HELP = helpText(
  'tracenode init --datadir DIR --genesis genesis.json',
  'Writes the genesis block and state of a geth-format genesis into DIR (like `geth init`).',
  FLAGS,
);

/** `tracenode init`. */
export async function runInit(argv: string[]): Promise<number> {
  const { values, help } = parseFlags(argv, FLAGS);
  if (help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const datadir = required(values, DATADIR);
  const genesisPath = required(values, GENESIS);
  let text: string;
  try {
    text = readFileSync(genesisPath, 'utf8');
  } catch (err) {
    throw new Error(`cannot read genesis ${genesisPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const result = await initDatadir(datadir, text);
  process.stdout.write(
    result.alreadyInitialised
      ? `init: ${datadir} already holds this genesis ${result.hash}\n`
      : `init: genesis ${result.hash} (stateRoot ${result.stateRoot}) written to ${datadir}\n`,
  );
  return 0;
}
