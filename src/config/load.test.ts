import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';
import { defaultConfig, SETTINGS, settingNames } from './settings.js';

const dir = mkdtempSync(join(tmpdir(), 'tracenode-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a config file into the test's directory and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The problems a failing load reports, one per line. */
function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('the configuration loaded');
}

describe('loadConfig', () => {
  it('no sources: the defaults of the table', () => {
    expect(loadConfig()).toEqual(defaultConfig());
    expect(loadConfig({ flags: [], env: {} })).toEqual(defaultConfig());
  });

  it('precedence: file < environment < flag, setting by setting', () => {
    const yaml = file('precedence.yaml', 'server:\n  port: 1000\n  host: 0.0.0.0\ntransport:\n  httpMaxBodyBytes: 111\n  httpMaxBatchItems: 7\n');
    const env = { TRACENODE_PORT: '2000', TRACENODE_TRANSPORT_HTTP_MAX_BODY_BYTES: '222' };
    const all = loadConfig({ configFile: yaml, env, flags: ['--port', '3000', '--transport.http-max-body-bytes=333'] });
    expect(all.server).toMatchObject({ port: 3000, host: '0.0.0.0' });
    expect(all.transport).toMatchObject({ httpMaxBodyBytes: 333, httpMaxBatchItems: 7 });
    const noFlags = loadConfig({ configFile: yaml, env });
    expect([noFlags.server.port, noFlags.transport.httpMaxBodyBytes]).toEqual([2000, 222]);
    const fileOnly = loadConfig({ configFile: yaml });
    expect([fileOnly.server.port, fileOnly.transport.httpMaxBodyBytes, fileOnly.transport.wsMaxBatchItems]).toEqual([1000, 111, 1000]);
  });

  it('flags: raw arguments and already parsed flags give the same configuration', () => {
    const raw = loadConfig({ flags: ['--log-level', 'debug', '--rpc.trace-filter-max-blocks', '100', '--api-keys=a,b'] });
    const parsed = loadConfig({ flags: { 'log-level': 'debug', 'rpc.trace-filter-max-blocks': '100', 'api-keys': 'a,b' } });
    expect(raw).toEqual(parsed);
    expect(raw.server).toMatchObject({ logLevel: 'debug', apiKeys: 'a,b' });
    expect(raw.rpc.traceFilterMaxBlocks).toBe(100);
  });

  it('the existing server flags and variables keep their names', () => {
    const env = {
      TRACENODE_DATADIR: '/d',
      TRACENODE_NETWORKS: 'starknet-mainnet=/s',
      TRACENODE_HOST: '::1',
      TRACENODE_PORT: '0',
      TRACENODE_API_KEYS: 'k',
      TRACENODE_KEYS_FILE: '/k',
      TRACENODE_LOG_LEVEL: 'warn',
    };
    expect(loadConfig({ env }).server).toMatchObject({
      datadir: '/d',
      networks: 'starknet-mainnet=/s',
      host: '::1',
      port: 0,
      apiKeys: 'k',
      keysFile: '/k',
      logLevel: 'warn',
    });
    const flags = ['--datadir', '/d', '--networks', 'a=/a', '--host', 'h', '--port', '1', '--api-keys', 'k', '--keys-file', 'f', '--log-level', 'error'];
    expect(loadConfig({ flags }).server).toMatchObject({ datadir: '/d', networks: 'a=/a', host: 'h', port: 1, apiKeys: 'k', keysFile: 'f', logLevel: 'error' });
  });

  it('an empty variable counts as unset', () => {
    expect(loadConfig({ env: { TRACENODE_PORT: '', TRACENODE_DATADIR: '' } }).server).toMatchObject({ port: 8545, datadir: undefined });
  });

  it('YAML and JSON files give the same configuration, by extension or by content', () => {
    const settings = { server: { datadir: './data' }, rpc: { getLogsMaxResults: 500, traceFilterMaxBlocks: 100 }, execution: { estimateErrorRatio: 0.5 } };
    const yaml = file(
      'same.yml',
      '# a comment\nserver:\n  datadir: ./data\nrpc:\n  getLogsMaxResults: 500\n  traceFilterMaxBlocks: 100\nexecution:\n  estimateErrorRatio: 0.5\n',
    );
    const json = file('same.json', JSON.stringify(settings));
    const jsonNoExt = file('same-json.conf', JSON.stringify(settings, null, 2));
    const yamlNoExt = file(
      'same-yaml.conf',
      'server: { datadir: ./data }\nrpc: { getLogsMaxResults: 500, traceFilterMaxBlocks: 100 }\nexecution: { estimateErrorRatio: 0.5 }\n',
    );
    const expected = defaultConfig();
    expected.server.datadir = './data';
    expected.rpc.getLogsMaxResults = 500;
    expected.rpc.traceFilterMaxBlocks = 100;
    expected.execution.estimateErrorRatio = 0.5;
    for (const f of [yaml, json, jsonNoExt, yamlNoExt]) expect(loadConfig({ configFile: f }), f).toEqual(expected);
  });

  it('the file comes from configFile, else --config, else TRACENODE_CONFIG', () => {
    const a = file('a.yaml', 'server:\n  port: 1\n');
    const b = file('b.yaml', 'server:\n  port: 2\n');
    const c = file('c.yaml', 'server:\n  port: 3\n');
    expect(loadConfig({ configFile: a, flags: ['--config', b], env: { TRACENODE_CONFIG: c } }).server.port).toBe(1);
    expect(loadConfig({ flags: ['--config', b], env: { TRACENODE_CONFIG: c } }).server.port).toBe(2);
    expect(loadConfig({ flags: { config: b } }).server.port).toBe(2);
    expect(loadConfig({ env: { TRACENODE_CONFIG: c } }).server.port).toBe(3);
  });

  it('null or an empty file leaves settings at their defaults', () => {
    expect(loadConfig({ configFile: file('empty.yaml', '') })).toEqual(defaultConfig());
    expect(loadConfig({ configFile: file('nulls.yaml', 'rpc:\n  getLogsMaxResults: null\ncaches:\n') })).toEqual(defaultConfig());
  });

  it('error: unknown keys and sections in the file, each named', () => {
    const f = file('unknown.yaml', 'transport:\n  httpMaxBody: 1\n  httpmaxbatchitems: 2\nrpcs:\n  x: 1\n');
    expect(problems(() => loadConfig({ configFile: f }))).toEqual([
      `${f}: unknown setting "transport.httpMaxBody"`,
      `${f}: unknown setting "transport.httpmaxbatchitems" (did you mean "transport.httpMaxBatchItems"?)`,
      `${f}: unknown section "rpcs" (sections: ${Object.keys(SETTINGS).join(', ')})`,
    ]);
  });

  it('error: bad values name their source and setting', () => {
    expect(problems(() => loadConfig({ env: { TRACENODE_TRANSPORT_HTTP_MAX_BODY_BYTES: 'abc' } }))).toEqual([
      'TRACENODE_TRANSPORT_HTTP_MAX_BODY_BYTES: expected a positive integer, got "abc"',
    ]);
    expect(problems(() => loadConfig({ flags: ['--port', '70000'] }))).toEqual(['--port: expected an integer from 0 to 65535, got 70000']);
    expect(problems(() => loadConfig({ flags: ['--log-level', 'loud'] }))).toEqual([
      '--log-level: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ]);
    expect(problems(() => loadConfig({ env: { TRACENODE_EXECUTION_ESTIMATE_ERROR_RATIO: '0' } }))).toEqual([
      'TRACENODE_EXECUTION_ESTIMATE_ERROR_RATIO: expected a number greater than 0 and at most 1, got 0',
    ]);
    expect(problems(() => loadConfig({ flags: ['--starknet.max-key-positions', '17'] }))).toEqual([
      '--starknet.max-key-positions: expected an integer from 1 to 16, got 17',
    ]);
    expect(problems(() => loadConfig({ flags: ['--gas-oracle.ignore-price-wei=-1'] }))).toEqual([
      '--gas-oracle.ignore-price-wei: expected a non-negative integer, got -1',
    ]);
    // Numbers are decimal: hex, blanks inside and fractions of an integer are refused.
    for (const [text, shown] of [
      ['0x10', '"0x10"'],
      ['1 0', '"1 0"'],
      ['1.5', '1.5'],
    ]) {
      expect(problems(() => loadConfig({ flags: { 'rpc.get-proof-max-keys': text } }))).toEqual([
        `--rpc.get-proof-max-keys: expected a positive integer, got ${shown}`,
      ]);
    }
    const f = file('bad.yaml', 'rpc:\n  getLogsMaxResults: -1\n  getProofMaxKeys: "12"\nserver:\n  host: [a, b]\n');
    expect(problems(() => loadConfig({ configFile: f }))).toEqual([
      `${f}: server.host: expected a non-empty string, got a list`,
      `${f}: rpc.getLogsMaxResults: expected a positive integer, got -1`,
      `${f}: rpc.getProofMaxKeys: expected a positive integer, got "12"`,
    ]);
  });

  it('error: every problem of every source at once, in the order of the table', () => {
    const f = file('two.yaml', 'caches:\n  blockEntries: 0\n');
    expect(problems(() => loadConfig({ configFile: f, env: { TRACENODE_PORT: 'x' }, flags: ['--tracing.cache-bytes', '0'] }))).toEqual([
      'TRACENODE_PORT: expected an integer from 0 to 65535, got "x"',
      '--tracing.cache-bytes: expected a positive integer, got 0',
      `${f}: caches.blockEntries: expected a positive integer, got 0`,
    ]);
  });

  it('error: unknown flags, unreadable and malformed files', () => {
    expect(problems(() => loadConfig({ flags: ['--transport.http-max-body', '1'] }))).toEqual(["Unknown option '--transport.http-max-body'"]);
    expect(problems(() => loadConfig({ flags: { 'no-such': '1' } }))).toEqual(['--no-such: unknown flag']);
    const missing = join(dir, 'missing.yaml');
    expect(problems(() => loadConfig({ configFile: missing }))).toEqual([`${missing}: cannot read the config file (ENOENT)`]);
    const badJson = file('bad.json', '{"server": ');
    expect(problems(() => loadConfig({ configFile: badJson }))[0]).toMatch(new RegExp(`^${badJson}: not valid JSON: `));
    const badYaml = file('bad.yaml2.yaml', 'server:\n  port: [1\n');
    expect(problems(() => loadConfig({ configFile: badYaml }))[0]).toMatch(new RegExp(`^${badYaml}: not valid YAML: `));
    const list = file('list.yaml', '- 1\n- 2\n');
    expect(problems(() => loadConfig({ configFile: list }))).toEqual([`${list}: expected a map of sections (${Object.keys(SETTINGS).join(', ')}), got a list`]);
    const scalarSection = file('scalar.yaml', 'server: 8545\n');
    expect(problems(() => loadConfig({ configFile: scalarSection }))).toEqual([`${scalarSection}: server: expected a map of settings, got 8545`]);
  });
});

describe('settings table', () => {
  it('every default passes its own schema, and every name is unique', () => {
    for (const n of settingNames()) expect(n.setting.schema.safeParse(n.setting.default).success, n.path).toBe(true);
    for (const field of ['path', 'flag', 'env'] as const) {
      const names = settingNames().map((n) => n[field]);
      expect(new Set(names).size, field).toBe(names.length);
    }
  });
});
