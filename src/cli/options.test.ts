import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/load.js';
import { defaultConfig, settingNames } from '../config/settings.js';
import { IMPORT_HELP } from './import.js';
import { type FlagSpec, parseCommand, UsageError } from './options.js';
import { SERVE_HELP } from './serve.js';

const GENESIS: FlagSpec = { name: 'genesis', env: 'TRACENODE_GENESIS', arg: 'FILE', help: 'genesis' };
const IMPORT_LIKE = { settings: ['server.datadir', 'import'], flags: [GENESIS] };

describe('parseCommand', () => {
  it('settings from flags and variables, the command’s own flags, positionals', () => {
    const parsed = parseCommand(['--datadir', '/d', '--import.progress-interval-ms=200', 'a.rlp', 'b.rlp'], IMPORT_LIKE, {
      TRACENODE_GENESIS: '/g.json',
      TRACENODE_IMPORT_TRIE_NODE_CACHE_ENTRIES: '7',
      TRACENODE_CACHES_BLOCK_ENTRIES: '9',
    });
    if (parsed.help) throw new Error('help');
    expect(parsed.positionals).toEqual(['a.rlp', 'b.rlp']);
    expect(parsed.values).toEqual({ genesis: '/g.json' });
    expect(parsed.config.server.datadir).toBe('/d');
    expect(parsed.config.import).toEqual({ progressIntervalMs: 200, trieNodeCacheEntries: 7, evmFastPaths: true, headerChecks: 'auto' });
    // Variables set any setting, even one whose flag the command does not take (one environment, many commands).
    expect(parsed.config.caches.blockEntries).toBe(9);
  });

  it('no flags, no variables: the defaults', () => {
    const parsed = parseCommand([], IMPORT_LIKE, {});
    expect(parsed.help ? undefined : parsed.config).toEqual(defaultConfig());
  });

  it('--help and -h, before any setting is checked', () => {
    expect(parseCommand(['--help'], IMPORT_LIKE, { TRACENODE_PORT: 'x' })).toEqual({ help: true });
    expect(parseCommand(['-h'], IMPORT_LIKE, {})).toEqual({ help: true });
  });

  it('error: a flag the command does not take is a usage error', () => {
    expect(() => parseCommand(['--port', '1'], IMPORT_LIKE, {})).toThrow(UsageError);
    expect(() => parseCommand(['--nope'], IMPORT_LIKE, {})).toThrow("Unknown option '--nope'");
  });

  it('error: a bad value is a ConfigError naming its source', () => {
    expect(() => parseCommand(['--import.progress-interval-ms', '0'], IMPORT_LIKE, {})).toThrow(
      new ConfigError(['--import.progress-interval-ms: expected a positive integer, got 0']),
    );
  });
});

describe('help', () => {
  it('serve lists every setting with its flag, variable and default; import only its own', () => {
    for (const n of settingNames()) {
      expect(SERVE_HELP).toContain(`  ${n.flag} `);
      expect(SERVE_HELP).toContain(`env: ${n.env}\n`);
    }
    expect(SERVE_HELP).toContain('--config FILE');
    expect(SERVE_HELP).toContain('(default: 5242880)');
    expect(IMPORT_HELP).toContain('--import.progress-interval-ms N');
    expect(IMPORT_HELP).not.toContain('--port');
  });
});
