import { parseArgs } from 'node:util';

/** A command-line flag: its name, the environment variable that may set it, and its help text. */
export interface FlagSpec {
  name: string;
  env: string;
  help: string;
  default?: string;
  /** The value placeholder shown in help (`DIR`, `FILE`…). */
  arg: string;
}

/** A usage error: wrong flags or missing values. Printed with the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Flag specs shared by commands. */
export const DATADIR: FlagSpec = { name: 'datadir', env: 'TRACENODE_DATADIR', arg: 'DIR', help: 'data directory (LevelDB database of one network)' };

/**
 * Parses a command's flags. Precedence: command line, then `TRACENODE_*` environment variable,
 * then the default. Unknown flags are a {@link UsageError}.
 */
export function parseFlags(argv: string[], flags: readonly FlagSpec[], env: NodeJS.ProcessEnv = process.env) {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(flags.map((f) => [f.name, { type: 'string' as const }])),
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values: Record<string, string | undefined> = {};
  for (const f of flags) {
    const v = parsed.values[f.name];
    values[f.name] = typeof v === 'string' ? v : env[f.env] !== undefined && env[f.env] !== '' ? env[f.env] : f.default;
  }
  return { values, positionals: parsed.positionals, help: parsed.values.help === true };
}

/** The help text of a command. */
export function helpText(usage: string, summary: string, flags: readonly FlagSpec[]): string {
  const rows = flags.map((f) => {
    const left = `  --${f.name} ${f.arg}`;
    const def = f.default !== undefined ? ` (default: ${f.default})` : '';
    return `${left.padEnd(28)}${f.help}${def}\n${' '.repeat(28)}env: ${f.env}`;
  });
  return `Usage: ${usage}\n\n${summary}\n\nOptions:\n${rows.join('\n')}\n  --help, -h                show this help\n`;
}

/** Returns the value of a required flag or throws a {@link UsageError} naming it. */
export function required(values: Record<string, string | undefined>, flag: FlagSpec): string {
  const v = values[flag.name];
  if (v === undefined) throw new UsageError(`missing --${flag.name} (or ${flag.env})`);
  return v;
}
