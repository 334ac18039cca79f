// #40: a test never fails because the machine is busy. No test asserts that something took less
// than a wall-clock figure: such figures are measured and reported by `npm run bench`. Tests wait
// on events, or on `until()`/`within()` (test/helpers/until.ts) with a ceiling far above what a
// loaded machine needs: a hang fails them, a slow machine does not. A lower bound (a watchdog
// that must not fire early) stays allowed: timers never fire early, however busy the machine.
// No test sleeps either: a fixed wait is one of until.ts's named helpers, for what has no event
// (a quiet period, a window of a program without an injectable clock, a double's latency, a
// client's pace); clocks are injected where the code under test has one (the rate windows).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..');

function testFiles(dir: string, out: string[] = [], all = false): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, out, all);
    else if (entry.name.endsWith('.test.ts') || (all && entry.name.endsWith('.ts'))) out.push(path);
  }
  return out;
}

/**
 * A wait of a fixed length: an import of node:timers/promises (its `setTimeout`, usually named
 * `sleep`), or a promise resolved by a timer (a timer whose callback is the promise's resolver:
 * `r`, `res`, `resolve`, `done`). The helpers of test/helpers/until.ts are the only ones allowed,
 * each named for why nothing can be waited on instead (quiet, pastWindow, simulatedWork, paced).
 */
const SLEEP = /from 'node:timers\/promises'|setTimeout\(\s*(?:r|res|resolve|done)\s*,/;

/** Lines of `files` (path → text) that wait a fixed time, as `path:line: text`. */
function sleeps(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of files) {
    text.split('\n').forEach((line, i) => {
      if (SLEEP.test(line)) out.push(`${path}:${i + 1}: ${line.trim()}`);
    });
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

  it('no test sleeps: a fixed wait is one of the named helpers of test/helpers/until.ts (test/helpers aside)', () => {
    const files = new Map(
      [...testFiles(join(REPO, 'src')), ...testFiles(join(REPO, 'test'), [], true)]
        .map((f) => relative(REPO, f).split(sep).join('/'))
        .filter((f) => !f.startsWith('test/helpers/'))
        .map((f) => [f, readFileSync(join(REPO, f), 'utf8')]),
    );
    expect(files.size).toBeGreaterThan(150);
    expect(sleeps(files)).toEqual([]);
  });

  it('the sleep check finds timers/promises and timer-resolved promises, and leaves timers that run code alone', () => {
    const planted = [
      ['import { setTimeout as ', 'sleep } from ', "'node:timers/promises';"].join(''),
      ['await new Promise((r) => set', 'Timeout(r, 600));'].join(''),
      ['await new Promise<void>((resolve) => set', 'Timeout(resolve, 20));'].join(''),
      ['const timer = set', 'Timeout(() => socket.destroy(), 1000);'].join(''),
      ['vi.useFakeTimers({ toFake: [', "'setTimeout'] });"].join(''),
    ];
    expect(sleeps(new Map([['a.test.ts', planted.join('\n')]]))).toEqual(planted.slice(0, 3).map((text, i) => `a.test.ts:${i + 1}: ${text}`));
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
