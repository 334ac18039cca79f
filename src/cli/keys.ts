import { type CommandSpec, commandHelp, type FlagSpec, parseCommand, UsageError } from './options.js';

/**
 * `tracenode keys usage`: today's calls (UTC) per key id and method, from a running node's
 * counters (`GET /metrics/usage`, on the main port or on `server.metricsPort`). Keys are shown by
 * their non-secret id.
 */

const URL_FLAG: FlagSpec = {
  name: 'url',
  env: 'TRACENODE_METRICS_URL',
  arg: 'URL',
  help: 'where the node serves /metrics (the main listener, or the metrics port)',
  default: 'http://127.0.0.1:8545',
};
const SPEC: CommandSpec = { settings: [], flags: [URL_FLAG] };
export const KEYS_HELP = commandHelp(
  'tracenode keys usage [--url http://127.0.0.1:8545]',
  "Prints today's calls (UTC) per API key id and method, from a running node.",
  SPEC,
);

/** The usage report as the node serves it. */
export interface UsageReport {
  day: string;
  keys: Record<string, Record<string, number>>;
}

/** The report as a table: one row per key and method, largest first, and a total per key. */
export function renderUsage(report: UsageReport): string {
  const rows: Array<[string, string, string]> = [];
  for (const [id, methods] of Object.entries(report.keys).sort(([a], [b]) => a.localeCompare(b))) {
    const entries = Object.entries(methods).sort(([ma, a], [mb, b]) => b - a || ma.localeCompare(mb));
    for (const [method, calls] of entries) rows.push([id, method, String(calls)]);
    rows.push([id, '(all)', String(entries.reduce((sum, [, n]) => sum + n, 0))]);
  }
  const header: [string, string, string] = ['key id', 'method', 'calls'];
  const width = [0, 1, 2].map((i) => Math.max(header[i].length, ...rows.map((r) => r[i].length)));
  const line = (r: [string, string, string]) => `${r[0].padEnd(width[0])}  ${r[1].padEnd(width[1])}  ${r[2].padStart(width[2])}`;
  const body = rows.length === 0 ? ['(no calls yet today)'] : rows.map(line);
  return `${[`calls on ${report.day} (UTC)`, line(header), ...body].join('\n')}\n`;
}

export async function runKeys(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(KEYS_HELP);
    return 0;
  }
  if (sub !== 'usage') throw new UsageError(sub === undefined ? 'missing subcommand: usage' : `unknown subcommand "${sub}" (want usage)`);
  const parsed = parseCommand(rest, SPEC);
  if (parsed.help) {
    process.stdout.write(KEYS_HELP);
    return 0;
  }
  const base = (parsed.values.url ?? URL_FLAG.default!).replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/metrics/usage`);
  } catch (err) {
    throw new Error(`cannot reach ${base}/metrics/usage: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
  }
  if (!res.ok) throw new Error(`${base}/metrics/usage answered HTTP ${res.status}`);
  process.stdout.write(renderUsage((await res.json()) as UsageReport));
  return 0;
}
