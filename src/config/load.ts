import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type Config, defaultConfig, SETTINGS, type Setting, type SettingName, settingNames } from './settings.js';

/**
 * Builds the {@link Config} from its sources, lowest to highest: the defaults of `settings.ts`,
 * the config file, `TRACENODE_*` environment variables, command-line flags. Each value is checked
 * by its setting's zod schema; an error names where the value came from (the file and its path in
 * it, the variable or the flag) and what was expected, so an operator can find it.
 */

/** The flag that names the config file (`--config FILE`); not a setting itself. */
export const CONFIG_FLAG = 'config';
/** The variable that names the config file when no `--config` is given. */
export const CONFIG_ENV = 'TRACENODE_CONFIG';

/** The configuration could not be built: each line of the message is one problem, naming its source. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** Where {@link loadConfig} reads from. */
export interface ConfigSources {
  /**
   * Command-line flags: raw arguments (only setting flags and `--config`), or flags a command has
   * already parsed, by flag name without the dashes (`port`, `transport.http-max-body-bytes`).
   */
  flags?: readonly string[] | Readonly<Record<string, string | undefined>>;
  /** The environment (`process.env` in the CLI); empty values count as unset. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The config file; by default the `--config` flag, else `TRACENODE_CONFIG`, else none. */
  configFile?: string;
}

/** A value and where it came from, for error messages. */
interface Sourced {
  value: unknown;
  source: string;
}

const NAMES: readonly SettingName[] = settingNames();
const BY_FLAG = new Map(NAMES.map((n) => [n.flag.slice(2), n]));

/** The zod schema of a whole configuration: every section and key, unknown keys refused. */
export function configSchema(): z.ZodType<Config> {
  const sections: Record<string, z.ZodType> = {};
  for (const [section, entries] of Object.entries(SETTINGS)) {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, s] of Object.entries(entries as Record<string, Setting>)) shape[key] = s.schema;
    sections[section] = z.strictObject(shape);
  }
  return z.strictObject(sections) as unknown as z.ZodType<Config>;
}

/**
 * Builds the configuration: defaults, then the config file, then `TRACENODE_*` variables, then
 * flags. Throws {@link ConfigError} listing every bad value, unknown key or unreadable file.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const problems: string[] = [];
  const given = sources.flags;
  const flags: Record<string, string | undefined> = isArgv(given) ? parseConfigArgs(given) : { ...given };
  const flagFile = flags[CONFIG_FLAG];
  delete flags[CONFIG_FLAG];
  const file = sources.configFile ?? flagFile ?? nonEmpty(env[CONFIG_ENV]);

  const merged = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
  const origin = new Map<string, Sourced>();
  const set = (n: SettingName, value: unknown, source: string) => {
    merged[n.section][n.key] = value;
    origin.set(n.path, { value, source });
  };

  if (file !== undefined) {
    for (const entry of readConfigFile(file, problems)) {
      if (!(entry.section in merged)) {
        problems.push(`${file}: unknown section "${entry.section}" (sections: ${Object.keys(SETTINGS).join(', ')})`);
        continue;
      }
      const n = NAMES.find((x) => x.section === entry.section && x.key === entry.key);
      if (!n) {
        problems.push(`${file}: unknown setting "${entry.section}.${entry.key}"${suggest(entry.section, entry.key)}`);
        continue;
      }
      // `null` in a file leaves the setting at its default (YAML's way of writing "unset").
      if (entry.value !== null) set(n, entry.value, `${file}: ${n.path}`);
    }
  }
  for (const n of NAMES) {
    const raw = nonEmpty(env[n.env]);
    if (raw !== undefined) set(n, fromText(n.setting, raw), n.env);
  }
  for (const [name, raw] of Object.entries(flags)) {
    if (raw === undefined) continue;
    const n = BY_FLAG.get(name);
    if (!n) {
      problems.push(`--${name}: unknown flag`);
      continue;
    }
    set(n, fromText(n.setting, raw), `--${name}`);
  }

  const result = configSchema().safeParse(merged);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = issue.path.join('.');
      const at = origin.get(path);
      const n = NAMES.find((x) => x.path === path);
      if (at && n) problems.push(`${at.source}: expected ${expectedOf(n.setting)}, got ${quote(at.value)}`);
      else problems.push(`configuration: ${path || '(root)'}: ${issue.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return (result as { data: Config }).data;
}

/** Parses raw arguments holding only setting flags and `--config` (`--port 8545`, `--port=8545`). */
function parseConfigArgs(argv: readonly string[]): Record<string, string | undefined> {
  const options = Object.fromEntries([CONFIG_FLAG, ...BY_FLAG.keys()].map((name) => [name, { type: 'string' as const }]));
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Record<string, string | undefined>;
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
}

const isArgv = (f: ConfigSources['flags']): f is readonly string[] => Array.isArray(f);
const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** One `section.key: value` of a config file. */
interface FileEntry {
  section: string;
  key: string;
  value: unknown;
}

/**
 * Reads a config file: YAML (`.yaml`, `.yml`) or JSON (`.json`); any other name is JSON when it
 * starts with `{`, else YAML. The top level maps sections to maps of settings.
 */
function readConfigFile(file: string, problems: string[]): FileEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`${file}: cannot read the config file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    return [];
  }
  const ext = extname(file).toLowerCase();
  const json = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && text.trimStart().startsWith('{'));
  let doc: unknown;
  try {
    doc = json ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    problems.push(`${file}: not valid ${json ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
    return [];
  }
  if (doc === null || doc === undefined) return [];
  if (!isPlainObject(doc)) {
    problems.push(`${file}: expected a map of sections (${Object.keys(SETTINGS).join(', ')}), got ${quote(doc)}`);
    return [];
  }
  const out: FileEntry[] = [];
  for (const [section, entries] of Object.entries(doc)) {
    if (entries === null) continue;
    if (!isPlainObject(entries)) {
      problems.push(`${file}: ${section}: expected a map of settings, got ${quote(entries)}`);
      continue;
    }
    for (const [key, value] of Object.entries(entries)) out.push({ section, key, value });
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** " (did you mean …?)" when a setting of the section differs only in case or dashes. */
function suggest(section: string, key: string): string {
  const squash = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const near = NAMES.find((n) => n.section === section && squash(n.key) === squash(key));
  return near ? ` (did you mean "${near.path}"?)` : '';
}

/** The base schema of a setting (optional unwrapped). */
function baseSchema(s: Setting): z.ZodType {
  let schema = s.schema as z.ZodType;
  while (schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
  return schema;
}

/**
 * A value given as text (environment, flag) as the setting's type: numbers are parsed strictly
 * (decimal, no hex, no blanks), switches are `true` or `false`; any other text stays text, so
 * validation reports it.
 */
function fromText(s: Setting, raw: string): unknown {
  if (baseSchema(s) instanceof z.ZodNumber) return /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (baseSchema(s) instanceof z.ZodBoolean) return raw.trim() === 'true' ? true : raw.trim() === 'false' ? false : raw;
  return raw;
}

/** What a setting accepts, in words: "a positive integer", "an integer from 0 to 65535"… */
export function expectedOf(s: Setting): string {
  const schema = baseSchema(s);
  if (schema instanceof z.ZodNumber) {
    const min = schema.minValue ?? Number.NEGATIVE_INFINITY;
    const max = schema.maxValue ?? Number.POSITIVE_INFINITY;
    const minExclusive = Number.isFinite(min) && !schema.safeParse(min).success;
    const unbounded = max >= Number.MAX_SAFE_INTEGER;
    if (schema.isInt) {
      if (min === 0 && minExclusive && unbounded) return 'a positive integer';
      if (min === 0 && !minExclusive && unbounded) return 'a non-negative integer';
      return `an integer from ${minExclusive ? min + 1 : min} to ${max}`;
    }
    return `a number ${minExclusive ? 'greater than' : 'at least'} ${min} and at most ${max}`;
  }
  if (schema instanceof z.ZodEnum) return `one of ${schema.options.join(', ')}`;
  if (schema instanceof z.ZodBoolean) return 'true or false';
  if (schema instanceof z.ZodString) return (schema.minLength ?? 0) > 0 ? 'a non-empty string' : 'a string';
  return 'a valid value';
}

/** A value for an error message: strings quoted, bounded to 80 characters; lists and maps named. */
function quote(v: unknown): string {
  if (typeof v === 'string') {
    const q = JSON.stringify(v);
    return q.length > 80 ? `${q.slice(0, 77)}…"` : q;
  }
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object' && v !== null) return 'a map';
  return String(v);
}
