// #40: a test never fails because the machine is busy. No test asserts that something took less
// than a wall-clock figure: such figures are measured and reported by `npm run bench`. Tests wait
// on events, or on `until()`/`within()` (test/helpers/until.ts) with a ceiling far above what a
// loaded machine needs: a hang fails them, a slow machine does not. A lower bound (a watchdog
// that must not fire early) stays allowed: timers never fire early, however busy the machine.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');

function testFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/**
 * An upper bound on elapsed time: an `expect(…)` whose argument reads a clock (`Date.now()`,
 * `performance.now()`) or a value named for a duration (`elapsed`, `took`, `ms`, `duration`,
 * `latency`, not a call such as `ms(x)`), checked with `toBeLessThan[OrEqual]`.
 */
const UPPER_BOUND = /expect\((?:[^;]*?(?:Date\.now\(\)|performance\.now\(\))|\s*(?:elapsed|took|ms|duration|latency)\w*\b(?!\s*\())[^;]*\)\s*\.toBeLessThan/;

/** Lines of `files` (path → text) asserting an upper bound on elapsed time, as `path:line: text`. */
function wallClockBounds(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    text.split('\n').forEach((line, i) => {
      if (UPPER_BOUND.test(line)) out.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

describe('time in tests', () => {
  it('no test asserts that something took less than a wall-clock figure', () => {
    const files = new Map(
      [...testFiles(join(REPO, 'src')), ...testFiles(join(REPO, 'test'))].map((f) => [relative(REPO, f).split(sep).join('/'), readFileSync(f, 'utf8')]),
    );
    expect(files.size).toBeGreaterThan(100);
    expect(wallClockBounds(files)).toEqual([]);
  });

  it('the check finds clock reads and duration names under toBeLessThan, and leaves lower bounds and other figures alone', () => {
    // Built from parts, so that this file holds none of the assertions it plants.
    const line = (arg: string, matcher: string, bound: string) => `${['exp', 'ect'].join('')}(${arg}).${matcher}(${bound});`;
    const less = ['toBe', 'LessThan'].join('');
    const planted = [
      line('performance.now() - t0', less, '100'),
      line('Date.now() - started, what', `${less}OrEqual`, '2000'),
      line('elapsed', less, 'timeoutMs'),
      line('ms, body', less, 'MAX_MS'),
      line('performance.now() - t0', 'toBeGreaterThanOrEqual', '290'),
      line('ms(inter) + ms(fast)', less, 'SETTINGS.notice'),
      line('reply.size', less, '512'),
    ];
    expect(wallClockBounds(new Map([['a.test.ts', planted.join('\n')]]))).toEqual(planted.slice(0, 4).map((text, i) => `a.test.ts:${i + 1}: ${text}`));
  });
});
