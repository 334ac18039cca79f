import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';

/**
 * Planted code, type-checked against the real src/ and test/ (#40: contracts the compiler
 * checks). A test plants what a careless change could write and asserts the compiler refuses it
 * with the error it names. Plants live inside the repository (node_modules/.cache), one directory
 * per test file and process, so they import src/ as the code does.
 */
export interface Plants {
  /** The repository's root as the plants name it in imports (`${up}/src/…`). */
  readonly up: string;
  /** Type-checks the planted `files` (name → text): the compiler's error lines, paths shortened (`src/…`, `test/…`, or the plant's name). */
  compile(files: Record<string, string>): Promise<string[]>;
  /** Removes the plants. */
  remove(): void;
}

const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export function plants(name: string): Plants {
  const dir = join(ROOT, 'node_modules', '.cache', 'tracenode-plants', `${name}-${process.pid}`);
  const up = relative(dir, ROOT).split(sep).join('/');
  return {
    up,
    async compile(files) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
      const tsconfig = { extends: `${up}/tsconfig.json`, compilerOptions: { noEmit: true, rootDir: up }, files: Object.keys(files) };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      const out = await promisify(execFile)(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false']).then(
        (r) => r.stdout,
        (err: { stdout?: string }) => err.stdout ?? String(err),
      );
      return out
        .split('\n')
        .filter((line) => /error TS\d+/.test(line))
        .map((line) => line.replace(/^.*?((?:src|test)\/|tracenode-plants\/[\w-]+\/)/, (_, p: string) => (p.startsWith('tracenode-plants') ? '' : p)));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
