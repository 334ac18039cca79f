#!/usr/bin/env node
import { UsageError } from './cli/options.js';
import { setV8Flags } from './cli/v8Flags.js';
import { ConfigError } from './config/load.js';

interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

// Commands load lazily: `init` and `import` never pull in the server.
const COMMANDS: Record<string, () => Promise<Command>> = {
  init: async () => {
    const m = await import('./cli/init.js');
    return { run: m.runInit, help: m.INIT_HELP };
  },
  import: async () => {
    const m = await import('./cli/import.js');
    return { run: m.runImport, help: m.IMPORT_HELP };
  },
  'import-starknet': async () => {
    const m = await import('./cli/importStarknet.js');
    return { run: m.runImportStarknet, help: m.IMPORT_STARKNET_HELP };
  },
  'reindex-traces': async () => {
    const m = await import('./cli/reindexTraces.js');
    return { run: m.runReindexTraces, help: m.REINDEX_TRACES_HELP };
  },
  follow: async () => {
    const m = await import('./cli/follow.js');
    return { run: m.runFollow, help: m.FOLLOW_HELP };
  },
  snapshot: async () => {
    const m = await import('./cli/snapshot.js');
    return { run: m.runSnapshot, help: m.SNAPSHOT_HELP };
  },
  serve: async () => {
    const m = await import('./cli/serve.js');
    return { run: m.runServe, help: m.SERVE_HELP };
  },
  keys: async () => {
    const m = await import('./cli/keys.js');
    return { run: m.runKeys, help: m.KEYS_HELP };
  },
};

const MAIN_HELP = `Usage: tracenode <command> [options]

A self-hostable, Infura-compatible Ethereum JSON-RPC archive node.

Commands:
  init            write a geth-format genesis into a datadir
  import          execute and archive RLP blocks (geth export format)
  import-starknet import Starknet blocks (starknet_getBlockWithReceipts NDJSON)
  reindex-traces  build the trace_filter index and Otterscan's address history of blocks imported without them
  follow          catch a datadir up with an upstream node (geth, reth, anvil), then exit
  serve           serve the datadir over JSON-RPC (HTTP and WebSocket); --follow URL keeps it live
  snapshot        write a consistent copy of a datadir, even while it is served (for a new replica)
  keys usage      today's calls per API key id and method, from a running node

Run \`tracenode <command> --help\` for a command's options. Every setting can also come from a
config file (--config FILE, YAML or JSON) or its TRACENODE_* environment variable; flags win over
variables, variables over the file.
`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(MAIN_HELP);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`tracenode: unknown command "${name}"\n\n${MAIN_HELP}`);
    return 2;
  }
  const command = await load();
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      // The message alone: the whole help after it would scroll it away.
      process.stderr.write(`tracenode ${name}: ${err.message}\n(\`tracenode ${name} --help\` lists the options)\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      // One line per bad setting, each naming its source; the whole help would bury them.
      const lines = err.problems.map((p) => `tracenode ${name}: ${p}\n`).join('');
      process.stderr.write(`${lines}(\`tracenode ${name} --help\` lists the settings)\n`);
      return 2;
    }
    process.stderr.write(`tracenode ${name}: ${(err as Error).message}\n`);
    // A fault of tracenode's own code (not a bad block, upstream or datadir) comes with its stack.
    if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}

// A reader that went away (`tracenode … | head -1`) is no fault of the command: what is left to
// print is dropped instead of ending the process on an unhandled EPIPE with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});
// Before any command runs (`cli/v8Flags.ts` says why).
setV8Flags();
const code = await main(process.argv.slice(2));
process.exitCode = code;
// A command that failed exits now, whatever it left running (a follower's timers, EVM worker
// threads, open sockets): once stderr has the reason.
if (code !== 0) process.stderr.write('', () => process.exit(code));
