import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the repository (node_modules/.cache): the plants import src/ from there.
const DIR = join(ROOT, 'node_modules', '.cache', 'tracenode-plants', String(process.pid));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The repository's root as the plants name it. */
const UP = relative(DIR, ROOT).split(sep).join('/');

/** Type-checks the planted `files` (name → text) against the real src/; the compiler's error lines. */
async function compile(files: Record<string, string>): Promise<string[]> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(DIR, name), text);
  const tsconfig = { extends: `${UP}/tsconfig.json`, compilerOptions: { noEmit: true, rootDir: UP }, files: Object.keys(files) };
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify(tsconfig));
  const out = await promisify(execFile)(process.execPath, [TSC, '-p', join(DIR, 'tsconfig.json'), '--pretty', 'false']).then(
    (r) => r.stdout,
    (err: { stdout?: string }) => err.stdout ?? String(err),
  );
  return out
    .split('\n')
    .filter((line) => /error TS\d+/.test(line))
    .map((line) => line.replace(/^.*?(src\/|tracenode-plants\/\d+\/)/, (_, p: string) => (p === 'src/' ? 'src/' : '')));
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/**
 * #40: the domain → wire contract is checked by the compiler. Each plant is a new domain error a
 * careless change could add; each must fail to compile, naming what is missing.
 */
describe('a domain error without a wire answer does not compile', () => {
  it('a new name (and its class) without a line in methods/errors.ts; a class named outside the set; a class named nothing', async () => {
    const errors = await compile({
      'unmapped.ts': [
        `import { DomainError } from '${UP}/src/errors/domainError.js';`,
        `import '${UP}/src/methods/errors.js';`,
        `declare module '${UP}/src/errors/domainError.js' {`,
        '  interface DomainErrorNames {',
        '    PlantedError: true;',
        '  }',
        '}',
        'export class PlantedError extends DomainError {',
        "  override readonly name = 'PlantedError';",
        '}',
      ].join('\n'),
      'stray.ts': [
        `import { DomainError } from '${UP}/src/errors/domainError.js';`,
        'export class StrayError extends DomainError {',
        "  override readonly name = 'StrayError';",
        '}',
        'export class NamelessError extends DomainError {}',
      ].join('\n'),
    });
    expect(errors).toHaveLength(3);
    expect(errors.find((e) => e.startsWith('src/methods/errors.ts'))).toMatch(/error TS2741: Property 'PlantedError' is missing/);
    expect(errors.find((e) => e.startsWith('stray.ts(3'))).toMatch(/error TS2416: Property 'name' in type 'StrayError'/);
    expect(errors.find((e) => e.startsWith('stray.ts(5'))).toMatch(
      /error TS2515: Non-abstract class 'NamelessError' does not implement inherited abstract member name/,
    );
  }, 120_000);
});
