import { openChain } from '../chain/open.js';
import { Follower } from '../follow/follower.js';
import { Upstream } from '../follow/upstream.js';
import { type CommandSpec, commandHelp, parseCommand, requiredDatadir, UsageError } from './options.js';

/** The datadir, the upstream and the follow settings, the caches and the importer's. */
const SPEC: CommandSpec = { settings: ['server.datadir', 'server.follow', 'follow', 'caches', 'import'] };
export const FOLLOW_HELP = commandHelp(
  'tracenode follow --datadir DIR --follow URL',
  'Catches a datadir up with an upstream node (geth, reth, anvil) without serving it: every block\n' +
    "from the local head to the upstream's head is fetched, executed and verified as `import` does\n" +
    'it (a reorganisation of the upstream is followed), with progress lines, then it exits. For a\n' +
    'live node, use `serve --follow URL`. Resumable: run it again to continue.',
  SPEC,
);

/** `tracenode follow`. */
export async function runFollow(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPEC);
  if (parsed.help) {
    process.stdout.write(FOLLOW_HELP);
    return 0;
  }
  const { config } = parsed;
  const url = config.server.follow;
  if (url === undefined || !/^(https?|wss?):\/\//i.test(url)) throw new UsageError('missing --follow URL (an http(s):// or ws(s):// URL of the upstream node)');
  const chain = await openChain(requiredDatadir(config), config.caches);
  const log = {
    info: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    warn: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    error: (o: object, m: string) => process.stderr.write(`follow: ${m} ${JSON.stringify(o)}\n`),
    debug: () => undefined,
  };
  const follower = new Follower(chain, new Upstream(url, { requestTimeoutMs: config.follow.requestTimeoutMs }), {
    settings: config.follow,
    importSettings: config.import,
    log,
    progress: process.stderr,
  });
  const stop = () => void follower.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await follower.runOnce();
    const head = await chain.store.head();
    process.stdout.write(`follow: head is block ${head?.number} (upstream head ${follower.status().upstreamHead})\n`);
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await follower.stop();
    await chain.close();
  }
}
