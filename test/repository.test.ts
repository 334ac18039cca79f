// The repository is self-contained: a fresh clone runs its tests, bench and scripts with nothing
// beside it. No code file may name a folder next to the repository (as the tests once named the
// fixtures of the developers' machines), an absolute path of one machine, or a relative path that
// climbs out of the repository. And src/ keeps its layering: no import cycle, and no layer imports
// a layer above it (the table below).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
 * layers it runs in its threads; `rpc` (envelope and method types) never `methods` (it takes a
 * method table as an argument); `pipeline` (auth, policies, limits, metrics) sits on `rpc`, and
 * `transport` (HTTP, WebSocket, CORS) on `pipeline`; `cli` is the composition root.
 */
const LAYERS: Record<string, readonly string[]> = {
  codec: [],
  log: [],
  config: [],
  db: ['codec', 'config'],
  chain: ['db', 'codec', 'config'],
  state: ['chain', 'db', 'codec', 'config'],
  execution: ['state', 'chain', 'db', 'codec', 'config'],
  tracing: ['execution', 'state', 'chain', 'db', 'codec', 'config'],
  workers: ['tracing', 'execution', 'state', 'chain', 'db', 'codec', 'config'],
  starknet: ['db', 'codec', 'config'],
  import: ['tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'codec', 'log', 'config'],
  // Following an upstream: the importer's execute-and-verify on blocks fetched from another node.
  follow: ['import', 'workers', 'tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'codec', 'config'],
  rpc: ['codec', 'log', 'config'],
  pipeline: ['rpc', 'codec', 'log', 'config'],
  transport: ['pipeline', 'rpc', 'codec', 'log', 'config'],
  methods: ['workers', 'tracing', 'execution', 'state', 'chain', 'starknet', 'db', 'codec', 'config', 'rpc/errors.ts', 'rpc/method.ts'],
  cli: ['*'],
};

/** Every module of src/ (tests excluded) and the src/ modules it imports (`import` and `import type`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of codeFiles(join(REPO, 'src')).filter((f) => !f.endsWith('.test.ts'))) {
    const targets = [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) =>
      relative(join(REPO, 'src'), resolve(dirname(file), m[1]))
        .replace(/\.js$/, '.ts')
        .split(sep)
        .join('/'),
    );
    graph.set(relative(join(REPO, 'src'), file).split(sep).join('/'), targets);
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
  const layerOf = (module: string) => (module.includes('/') ? module.split('/')[0] : '(root)');
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

describe('src layering', () => {
  const graph = importGraph();

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

  it('the checks find a cycle and a layer violation', () => {
    const bad = new Map([
      ['chain/a.ts', ['chain/b.ts']],
      ['chain/b.ts', ['chain/a.ts', 'methods/x.ts']],
      ['methods/x.ts', ['rpc/server.ts']],
    ]);
    expect(findCycle(bad)).toEqual(['chain/a.ts', 'chain/b.ts', 'chain/a.ts']);
    expect(layerViolations(bad)).toEqual(['chain/b.ts -> methods/x.ts', 'methods/x.ts -> rpc/server.ts']);
  });
});
