// The repository is self-contained: a fresh clone runs its tests, bench and scripts with nothing
// beside it. No code file may name a folder next to the repository (as the tests once named the
// fixtures of the developers' machines), an absolute path of one machine, or a relative path that
// climbs out of the repository. And src/ keeps its layering: no import cycle, and no layer imports
// a layer above it (the table below).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');
const ROOTS = ['src', 'test', 'bench', 'scripts'];
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...codeFiles(path));
    else if (CODE.test(entry.name)) out.push(path);
  }
  return out;
}

// Built from parts so that this file does not match itself.
const SIBLING = new RegExp(['\\.\\.', 'shared'].join('/'));
const MACHINE_ROOTS = ['work', 'home', 'root', 'tmp', 'Users', 'var', 'usr', 'opt', 'mnt', 'srv', 'private', 'Volumes'];
const ABSOLUTE = new RegExp(`(?<![\\w.:/-])/(?:${MACHINE_ROOTS.join('|')})/`);
const CLIMB = /['"`]((?:\.\.\/)+)/g;

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Every line of every code file that names a path outside the repository. */
function findings(): Finding[] {
  const out: Finding[] = [];
  for (const file of ROOTS.flatMap((root) => codeFiles(join(REPO, root)))) {
    const rel = relative(REPO, file);
    const depth = rel.split(sep).length - 1;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        if (text.startsWith('#!')) return; // a shebang names the interpreter, not a file of ours
        const climbs = [...text.matchAll(CLIMB)].some((m) => m[1].length / 3 > depth);
        if (SIBLING.test(text) || ABSOLUTE.test(text) || climbs) out.push({ file: rel, line: i + 1, text: text.trim() });
      });
  }
  return out;
}

describe('repository', () => {
  it('no code file names a path outside the repository', () => {
    expect(findings()).toEqual([]);
  });

  it('the check finds each kind of outside path', () => {
    const sample = (text: string, depth: number) => SIBLING.test(text) || ABSOLUTE.test(text) || [...text.matchAll(CLIMB)].some((m) => m[1].length / 3 > depth);
    expect(sample(`const F = '${['..', 'shared'].join('/')}/fixtures';`, 5)).toBe(true);
    expect(sample(`// see /${'work'}/notes.md`, 1)).toBe(true);
    expect(sample(`readFileSync('/${'home'}/me/chain.rlp')`, 1)).toBe(true);
    const up = (n: number) => '../'.repeat(n);
    expect(sample(`resolve(import.meta.dirname, '${up(3)}fixtures')`, 2)).toBe(true);
    expect(sample(`resolve(import.meta.dirname, '${up(2)}fixtures')`, 2)).toBe(false);
    expect(sample(`fetch('http://127.0.0.1:8545/v3/key')`, 1)).toBe(false);
    expect(sample(`const route = '/ws/v3/:key';`, 1)).toBe(false);
  });
});

/**
 * What each layer of src/ may import besides itself: leaves (codec, log, config) nothing; domain
 * layers only those below them; `methods` the domain layers and, of `rpc`, only its error classes
 * and method-definition types; `workers` (the EVM worker pool) sits on the execution and tracing
 * layers it runs in its threads; `live` (subscriptions, polled filters, the pending relay) on the
 * chain and Starknet stores, given its wire shapes by `methods`; `rpc` (envelope and method types)
 * never `methods` (it takes a method table as an argument); `pipeline` (auth, policies, limits,
 * metrics) sits on `rpc`, and `transport` (HTTP, WebSocket, CORS) on `pipeline`; `cli` is the
 * composition root.
 */
const LAYERS: Record<string, readonly string[]> = {
  codec: [],
  log: [],
  config: [],
  // The domain errors' base and their closed set of names (`errors/domainError.ts`).
  errors: [],
  // Facts of this process read from the operating system (`proc/threadCpu.ts`).
  proc: [],
  db: ['errors', 'codec', 'config'],
  chain: ['db', 'errors', 'codec', 'config'],
  state: ['chain', 'db', 'errors', 'codec', 'config'],
  execution: ['state', 'chain', 'db', 'errors', 'codec', 'config'],
  tracing: ['execution', 'state', 'chain', 'db', 'errors', 'codec', 'config'],
  workers: ['tracing', 'execution', 'state', 'chain', 'db', 'errors', 'proc', 'codec', 'config'],
  starknet: ['db', 'errors', 'codec', 'config'],
  import: ['tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'errors', 'codec', 'log', 'config'],
  // Following an upstream: the importer's execute-and-verify on blocks fetched from another node.
  follow: ['import', 'workers', 'tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'errors', 'codec', 'config'],
  // Subscription hubs, chain feeds, polled and Redis-shared filters, the pending-transaction relay:
  // their lifecycle only. Renderings, notification envelopes and wire errors are given or mapped by `methods`.
  live: ['chain', 'starknet', 'db', 'errors', 'codec', 'config'],
  rpc: ['codec', 'log', 'config'],
  pipeline: ['rpc', 'proc', 'codec', 'log', 'config'],
  transport: ['pipeline', 'rpc', 'codec', 'log', 'config'],
  methods: ['live', 'workers', 'tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'errors', 'codec', 'config', 'rpc/errors.ts', 'rpc/method.ts'],
  cli: ['*'],
};

/** Every module of src/ (tests excluded), by its path under src/, with its text. */
function sourceModules(): Map<string, string> {
  const modules = new Map<string, string>();
  for (const file of codeFiles(join(REPO, 'src')).filter((f) => !f.endsWith('.test.ts'))) {
    modules.set(relative(join(REPO, 'src'), file).split(sep).join('/'), readFileSync(file, 'utf8'));
  }
  return modules;
}

/** What a module imports: `import`/`export … from '…'` (`import type` too), `import '…'` and `import('…')` of a literal name. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
}

/** A relative import of `module` as the module of src/ it names (`x.js` is built from `x.ts`). */
function resolveImport(module: string, specifier: string): string {
  return posix.join(posix.dirname(module), specifier).replace(/\.js$/, '.ts');
}

/** The layer of a module of src/: its first folder, or `(root)`. */
function layerOf(module: string): string {
  return module.includes('/') ? module.split('/')[0] : '(root)';
}

/** Every module of src/ and the src/ modules it imports. */
function importGraph(modules: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [module, text] of modules) {
    graph.set(
      module,
      specifiers(text)
        .filter((s) => s.startsWith('.'))
        .map((s) => resolveImport(module, s)),
    );
  }
  return graph;
}

/** One cycle of the graph, as the modules along it, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Imports that cross the layering of {@link LAYERS}, as `from -> to`. */
function layerViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const layer = layerOf(from);
    if (layer === '(root)' || layer === 'cli') continue;
    const allowed = LAYERS[layer];
    if (!allowed) {
      out.push(`${from}: layer ${layer} is not in the table`);
      continue;
    }
    for (const to of targets) {
      const target = layerOf(to);
      if (target === layer || allowed.includes(target) || allowed.includes(to)) continue;
      out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/**
 * The domain layers: they speak bigint, bytes and their own errors, and JSON-RPC stays above
 * them (STYLE.md, "Errors"): no zod schema, nothing of `rpc/` or `methods/`, no wire error code.
 */
const DOMAIN_LAYERS = ['chain', 'state', 'execution', 'tracing', 'follow', 'starknet', 'live'];

/** Imports of domain modules that reach the wire (zod, `rpc/`, `methods/`), as `module -> specifier`. */
function wireImports(modules: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [module, text] of modules) {
    if (!DOMAIN_LAYERS.includes(layerOf(module))) continue;
    for (const specifier of specifiers(text)) {
      const target = specifier.startsWith('.') ? resolveImport(module, specifier) : specifier;
      if (/^(zod$|zod\/|rpc\/|methods\/)/.test(target)) out.push(`${module} -> ${specifier}`);
    }
  }
  return out;
}

/** The codes `rpc/errors.ts` declares besides the -32xxx ones: 3 (revert) and Starknet's (24, 31–34, 66, 68…). */
const SMALL_WIRE_CODES = [...readFileSync(join(REPO, 'src', 'rpc', 'errors.ts'), 'utf8').matchAll(/static readonly code = (\d+);/g)].map((m) => m[1]);

/**
 * What counts as a JSON-RPC error code in a module's code (comments left out: one may say what
 * `methods/` answers): a numeric literal -32xxx (JSON-RPC's reserved and server codes) or -38xxx
 * (the execution-apis codes), anywhere; or one of {@link SMALL_WIRE_CODES} given to a `code`
 * (`code: 3`, `code = 24`).
 */
const WIRE_CODE = [/(?<![\w$.)\]])-3[28]\d{3}(?!\d)/, new RegExp(`\\bcode\\s*(?::|=(?!=))\\s*(?:${SMALL_WIRE_CODES.join('|')})(?![\\w.])`)];

/** A module's text with its comments blanked, lines kept. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Lines of domain modules holding a JSON-RPC error code ({@link WIRE_CODE}), as `module:line: text`. */
function wireCodes(modules: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [module, text] of modules) {
    if (!DOMAIN_LAYERS.includes(layerOf(module))) continue;
    withoutComments(text)
      .split('\n')
      .forEach((line, i) => {
        if (WIRE_CODE.some((re) => re.test(line))) out.push(`${module}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

/**
 * #30 item 6, #40: @ethereumjs's private fields are read in one place, the quarantine: the
 * directory of our patches to the library (`execution/evm/`, its README lists each patched
 * surface), which checks each one and fails naming it when a release has changed it. No other module of src/ (tests
 * aside: the quarantine's own test reads them to test it) touches one, where touching is:
 * - in any module, a name the quarantine reads (every `_name` in its code: `_codeAddress`,
 *   `_store`, `_opcodeMap`…) as a property (`._name`, `?._name`, `['_name']`) or in a string
 *   (`'_name' in message`, `Reflect.get(evm, '_name')`);
 * - in a module that imports @ethereumjs, any `_name` as a property (a private field the
 *   quarantine does not know yet).
 * Comments are left out. Node's underscore fields (`ws`'s `_socket` in transport/) are neither:
 * no name of the quarantine, in modules that do not import @ethereumjs.
 */
const QUARANTINE_DIR = 'execution/evm/';

/** Whether `module` (a path under src/) is one of the quarantine's. */
const inQuarantine = (module: string): boolean => module.startsWith(QUARANTINE_DIR);

/** The underscore names a module's code holds (the quarantine's: the private fields it reads). */
function underscoreNames(text: string): string[] {
  return [...new Set([...withoutComments(text).matchAll(/(?<![\w$])_[A-Za-z]\w*/g)].map((m) => m[0]))].sort();
}

/** Lines of modules other than the quarantine touching an @ethereumjs private field, as `module:line: text`. */
function privateFieldReads(modules: Map<string, string>, privateNames: readonly string[]): string[] {
  const names = privateNames.join('|');
  // `._name` / `?._name` (not a spread, `..._name`), or `'_name'` in quotes (`['_name']` too).
  const known = new RegExp(`(?:(?<!\\.)\\.|['"\`])(?:${names})(?![\\w$])`);
  const anyProperty = /(?:(?<!\.)\.|\[\s*['"`])_[A-Za-z]/;
  const out: string[] = [];
  for (const [module, text] of modules) {
    if (inQuarantine(module)) continue;
    const ethereumjs = specifiers(text).some((s) => s.startsWith('@ethereumjs/'));
    withoutComments(text)
      .split('\n')
      .forEach((line, i) => {
        if ((names !== '' && known.test(line)) || (ethereumjs && anyProperty.test(line))) out.push(`${module}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe('src layering', () => {
  const modules = sourceModules();
  const graph = importGraph(modules);

  it('every module of src/ is found', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('methods/ethereum.ts')).toContain('rpc/method.ts');
  });

  it('no import cycle', () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it('no layer imports a layer above it', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('no module but the quarantine reads a private field of @ethereumjs (#30 item 6)', () => {
    const quarantine = [...modules.keys()].filter(inQuarantine);
    expect(quarantine.length).toBeGreaterThan(5);
    const privateNames = [...new Set(quarantine.flatMap((module) => underscoreNames(modules.get(module)!)))].sort();
    expect(privateNames).toEqual(expect.arrayContaining(['_codeAddress', '_store', '_opcodeMap', '_activatedEIPsCache']));
    expect(privateFieldReads(modules, privateNames)).toEqual([]);
  });

  it('the private-field check finds the quarantine names anywhere, any underscore property beside an @ethereumjs import, and nothing else', () => {
    const privateNames = underscoreNames('const x = (m as unknown as { _codeAddress?: A })._codeAddress;\n// and _notCode\nmemory._store;');
    expect(privateNames).toEqual(['_codeAddress', '_store']);
    const bad = new Map([
      [
        'tracing/a.ts',
        [
          "import type { Message } from '@ethereumjs/evm';",
          "import { headOf } from './_shared/head.js';",
          'const to = (message._codeAddress ?? message.to)?.bytes;',
          'const words = rs?._wordCount;',
          '// reads memory._store, through the quarantine',
          'function f(_unused: number, _opts?: Options) {}',
          'const all = { ..._defaults, ...rest };',
        ].join('\n'),
      ],
      [
        'methods/b.ts',
        ["const m = rs.memory['_store'];", "if ('_codeAddress' in message) {}", 'const own = this._pending;', 'const storeSize = 1;'].join('\n'),
      ],
      ['transport/c.ts', 'const size = tcp._socket?._handle?.writeQueueSize;'],
      [`${QUARANTINE_DIR}frames.ts`, 'return message._codeAddress;'],
      [`${QUARANTINE_DIR}common.ts`, 'return common._activatedEIPsCache;'],
    ]);
    expect(privateFieldReads(bad, privateNames)).toEqual([
      'tracing/a.ts:3: const to = (message._codeAddress ?? message.to)?.bytes;',
      'tracing/a.ts:4: const words = rs?._wordCount;',
      "methods/b.ts:1: const m = rs.memory['_store'];",
      "methods/b.ts:2: if ('_codeAddress' in message) {}",
    ]);
  });

  it('the checks find a cycle and a layer violation', () => {
    const bad = new Map([
      ['chain/a.ts', ['chain/b.ts']],
      ['chain/b.ts', ['chain/a.ts', 'methods/x.ts']],
      ['methods/x.ts', ['rpc/server.ts']],
    ]);
    expect(findCycle(bad)).toEqual(['chain/a.ts', 'chain/b.ts', 'chain/a.ts']);
    expect(layerViolations(bad)).toEqual(['chain/b.ts -> methods/x.ts', 'methods/x.ts -> rpc/server.ts']);
  });

  it('the domain layers import no zod, rpc/ or methods/', () => {
    expect(wireImports(modules)).toEqual([]);
  });

  it('no file of the domain layers holds a JSON-RPC error code', () => {
    expect(wireCodes(modules)).toEqual([]);
  });

  it('the wire checks find zod, rpc/ and methods/ imports, and JSON-RPC codes in code but not in comments', () => {
    const bad = new Map([
      ['live/a.ts', "import { z } from 'zod';\nimport type { RpcError } from '../rpc/errors.js';\nimport { headChange } from '../chain/headChange.js';"],
      ['chain/b.ts', "const errors = await import('../methods/errors.js');\nimport { x } from 'zod/mini';"],
      [
        'state/c.ts',
        [
          "throw new Failure(-32000, 'no');",
          '// methods/ answer it with -32000 and code: 3',
          'return { code: 24, message };',
          'static readonly code = 3;',
          'const code = readWord(body, 0);',
          'const timeout = 32000, offset = x-32000;',
          "if (err.code === 24) return 'http://host:38000/';",
          "if (reason.startsWith('nonce')) return -38011;",
        ].join('\n'),
      ],
      ['methods/d.ts', "import { z } from 'zod';\nthrow new RpcError(-32602, 'x');"],
    ]);
    expect(wireImports(bad)).toEqual(['live/a.ts -> zod', 'live/a.ts -> ../rpc/errors.js', 'chain/b.ts -> ../methods/errors.js', 'chain/b.ts -> zod/mini']);
    expect(wireCodes(bad)).toEqual([
      "state/c.ts:1: throw new Failure(-32000, 'no');",
      'state/c.ts:3: return { code: 24, message };',
      'state/c.ts:4: static readonly code = 3;',
      "state/c.ts:8: if (reason.startsWith('nonce')) return -38011;",
    ]);
  });
});

/** Findings (`module -> …`, `module:line: …`) of modules not in `allowed`. */
function notAllowed(findings: string[], allowed: readonly string[]): string[] {
  return findings.filter((f) => !allowed.includes(f.split(/ |:/)[0]));
}

/** Files of src/ allowed over {@link MAX_FILE_LINES}: the settings table is one table of every setting. */
const LONG_FILES_ALLOWED = ['config/settings.ts'];
const MAX_FILE_LINES = 500;

/** Modules of src/ longer than {@link MAX_FILE_LINES} lines, as `path: N lines`. */
function longFiles(modules: Map<string, string>): string[] {
  return [...modules]
    .map(([module, text]) => [module, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const)
    .filter(([, n]) => n > MAX_FILE_LINES)
    .map(([m, n]) => `${m}: ${n} lines`);
}

/**
 * Method files that hold more than one definition: under `methods/<namespace>/`, every file but
 * shared helpers (`_shared/`, a name starting with `_`) and a namespace's context (`context.ts`)
 * exports exactly one method. A definition is
 * an exported constant built with `defineMethod`, written as a `MethodDefinition`, or made by a
 * helper whose name ends in `Refusal`.
 */
function crowdedMethodFiles(modules: Map<string, string>): string[] {
  const definition = /^export const \w+(?:: (?:MethodDefinition<[^>]+>|typeof \w+))? = (?:defineMethod\(|\{$|\w+Refusal\()/gm;
  return [...modules]
    .filter(([m]) => /^methods\/[^/]+\/[^_/][^/]*\.ts$/.test(m) && !m.endsWith('/context.ts'))
    .map(([m, text]) => [m, (text.match(definition) ?? []).length] as const)
    .filter(([, n]) => n !== 1)
    .map(([m, n]) => `${m}: ${n} definitions`);
}

describe('src file shape', () => {
  const modules = sourceModules();

  it(`no file of src/ is over ${MAX_FILE_LINES} lines (the settings table aside)`, () => {
    expect(notAllowed(longFiles(modules), LONG_FILES_ALLOWED)).toEqual([]);
  });

  it('a method file holds one definition; shared helpers live in _shared', () => {
    expect(crowdedMethodFiles(modules)).toEqual([]);
  });

  it('the shape checks find a long file, a file of two methods and one of none', () => {
    const bad = new Map([
      ['chain/long.ts', 'x\n'.repeat(MAX_FILE_LINES + 1)],
      ['chain/short.ts', 'x\n'.repeat(MAX_FILE_LINES)],
      ['methods/eth/two.ts', 'export const a = defineMethod({\n});\nexport const b: MethodDefinition<EthContext> = {\n};'],
      ['methods/eth/none.ts', 'export function helper() {}'],
      ['methods/eth/one.ts', "export const c = keylessRefusal('eth_sign');"],
      ['methods/eth/typed.ts', "export const d: MethodDefinition<EthContext, 'eth_d'> = {"],
      ['methods/eth/relayed.ts', 'export const e: typeof relay = {'],
      ['methods/eth/_shared/many.ts', 'export const a = defineMethod({\n});\nexport const b = defineMethod({\n});'],
    ]);
    expect(longFiles(bad)).toEqual([`chain/long.ts: ${MAX_FILE_LINES + 1} lines`]);
    expect(crowdedMethodFiles(bad)).toEqual(['methods/eth/two.ts: 2 definitions', 'methods/eth/none.ts: 0 definitions']);
  });
});
