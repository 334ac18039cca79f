import { parseArgs } from 'node:util';
import { CONFIG_ENV, CONFIG_FLAG, loadConfig } from '../config/load.js';
import { type Config, type SettingName, settingNames } from '../config/settings.js';

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

/** What a command accepts besides its positionals. */
export interface CommandSpec {
  /**
   * The settings the command reads, whose flags it accepts: a section (`caches`) or one setting
   * (`server.datadir`). The config file and `TRACENODE_*` variables may set any setting: one
   * file serves every command.
   */
  settings: readonly string[];
  /** Flags of the command that are not settings (`--genesis`), each with its variable. */
  flags?: readonly FlagSpec[];
}

/** `--config FILE` / `TRACENODE_CONFIG`: every command takes it. */
export const CONFIG: FlagSpec = { name: CONFIG_FLAG, env: CONFIG_ENV, arg: 'FILE', help: 'configuration file, YAML or JSON (README, "Configuration")' };

/** The setting names a command spec selects, in table order. */
function selectedSettings(spec: CommandSpec): SettingName[] {
  return settingNames().filter((n) => spec.settings.includes(n.section) || spec.settings.includes(n.path));
}

/** The flag of a setting, with help from the settings table. */
function settingFlag(n: SettingName): FlagSpec {
  const d = n.setting.default;
  const arg = n.setting.arg ?? (typeof d === 'number' ? 'N' : 'VALUE');
  return { name: n.flag.slice(2), env: n.env, arg, help: n.setting.reason, default: d === undefined ? undefined : String(d) };
}

/** Every flag a command accepts, in help order: `--config`, its own flags, then its settings'. */
export function commandFlags(spec: CommandSpec): FlagSpec[] {
  return [CONFIG, ...(spec.flags ?? []), ...selectedSettings(spec).map(settingFlag)];
}

/** A parsed command line: `--help`, or the configuration, the command's own flags and positionals. */
export type ParsedCommand =
  | { help: true }
  | {
      help: false;
      /** Defaults < config file < `TRACENODE_*` < flags (`config/load.ts`). */
      config: Config;
      /** The command's own flags ({@link CommandSpec.flags}): command line, then variable. */
      values: Record<string, string | undefined>;
      positionals: string[];
    };

/**
 * Parses a command's arguments and builds its configuration. Unknown flags are a
 * {@link UsageError}; a bad setting value (from the file, a variable or a flag) is a `ConfigError`
 * naming its source.
 */
export function parseCommand(argv: string[], spec: CommandSpec, env: NodeJS.ProcessEnv = process.env): ParsedCommand {
  const own = spec.flags ?? [];
  const settings = selectedSettings(spec);
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries([CONFIG, ...own, ...settings.map(settingFlag)].map((f) => [f.name, { type: 'string' as const }])),
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.values.help === true) return { help: true };
  const flags: Record<string, string | undefined> = {};
  for (const name of [CONFIG_FLAG, ...settings.map((n) => n.flag.slice(2))]) flags[name] = parsed.values[name] as string | undefined;
  const config = loadConfig({ flags, env });
  const values: Record<string, string | undefined> = {};
  for (const f of own) {
    const v = parsed.values[f.name];
    values[f.name] = typeof v === 'string' ? v : env[f.env] !== undefined && env[f.env] !== '' ? env[f.env] : f.default;
  }
  return { help: false, config, values, positionals: parsed.positionals };
}

/** The help text of a command; long flag names put their help on the next line. */
export function helpText(usage: string, summary: string, flags: readonly FlagSpec[]): string {
  const rows = flags.map((f) => {
    const left = `  --${f.name} ${f.arg}`;
    const def = f.default !== undefined ? ` (default: ${f.default})` : '';
    const pad = ' '.repeat(28);
    const head = left.length < 28 ? `${left.padEnd(28)}${f.help}${def}` : `${left}\n${pad}${f.help}${def}`;
    return `${head}\n${pad}env: ${f.env}`;
  });
  return `Usage: ${usage}\n\n${summary}\n\nOptions:\n${rows.join('\n')}\n  --help, -h                show this help\n`;
}

/** The help text of a command spec: `--config`, the command's flags and its settings. */
export function commandHelp(usage: string, summary: string, spec: CommandSpec): string {
  return helpText(usage, summary, commandFlags(spec));
}

/** Returns the value of a required command flag or throws a {@link UsageError} naming it. */
export function required(values: Record<string, string | undefined>, flag: FlagSpec): string {
  const v = values[flag.name];
  if (v === undefined) throw new UsageError(`missing --${flag.name} (or ${flag.env})`);
  return v;
}

/** The `server.datadir` setting, or a {@link UsageError} naming its flag and variable. */
export function requiredDatadir(config: Config): string {
  if (config.server.datadir === undefined) throw new UsageError('missing --datadir (or TRACENODE_DATADIR)');
  return config.server.datadir;
}
