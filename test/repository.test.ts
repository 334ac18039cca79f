// The repository is self-contained: a fresh clone runs its tests, bench and scripts with nothing
// beside it. No code file may name a folder next to the repository (as the tests once named the
// fixtures of the developers' machines), an absolute path of one machine, or a relative path that
// climbs out of the repository.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
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
