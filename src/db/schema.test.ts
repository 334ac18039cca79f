import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/chains.js';
import { type Level, openDatabase } from './database.js';
import { type Migration, SchemaError, type SchemaSpec, storedVersion, upgradeSchema, versionBytes } from './schema.js';

/**
 * The schema runner on a synthetic schema (the Ethereum one has no migration yet): a datadir of
 * the current version opens as is; an older one is migrated step by step with its progress lines,
 * survives an interrupted step, and ends at the current version; a newer one, or an older one no
 * step leads from, is refused with both versions named.
 */

const KEY = new TextEncoder().encode('mschema');
const ROWS = 250;
const row = (i: number) => new TextEncoder().encode(`row/${String(i).padStart(4, '0')}`);

/** 1 → 2: every row's value gets a version byte in front, 25 rows a batch; `failAt` stops it there once. */
function rewriteRows(failAt?: number): Migration {
  let failed = false;
  return {
    from: 1,
    what: 'rows get a version byte',
    async run(level, progress) {
      let done = 0;
      let ops: Array<{ type: 'put'; key: Uint8Array; value: Uint8Array }> = [];
      for await (const [key, value] of level.iterator({ gte: row(0), lt: row(ROWS) })) {
        // Idempotent: a row already rewritten (by an interrupted run) starts with the version byte.
        if (value.length === 2) ops.push({ type: 'put', key, value: Uint8Array.of(0x02, ...value) });
        done++;
        if (ops.length === 25) {
          if (failAt !== undefined && !failed && done >= failAt) {
            failed = true;
            throw new Error('power cut');
          }
          await level.batch(ops);
          ops = [];
        }
        progress(done, ROWS);
      }
      await level.batch(ops);
    },
  };
}

const noop: Migration = { from: 2, what: 'nothing to rewrite', run: async () => {} };

let dir: { dir: string; cleanup(): void };
let level: Level;
beforeEach(async () => {
  dir = tempDir('tracenode-schema-');
  level = await openDatabase(dir.dir);
  await level.batch(Array.from({ length: ROWS }, (_, i) => ({ type: 'put' as const, key: row(i), value: Uint8Array.of(0x10, i % 256) })));
});
afterEach(async () => {
  await level.close();
  dir.cleanup();
});

const spec = (current: number, migrations: Migration[]): SchemaSpec => ({ name: 'database', key: KEY, current, migrations });

describe('upgradeSchema', () => {
  it('the current version opens as is; no version stored is left to the caller', async () => {
    const lines: string[] = [];
    await upgradeSchema(level, dir.dir, spec(1, []), (l) => lines.push(l));
    await level.put(KEY, versionBytes(1));
    await upgradeSchema(level, dir.dir, spec(1, []), (l) => lines.push(l));
    expect(lines).toEqual([]);
    expect(await storedVersion(level, dir.dir, spec(1, []))).toBe(1);
  });

  it('a version the spec reads as it is opens untouched; the newest schema is refused by a release that reads only the older', async () => {
    const lines: string[] = [];
    const reads1and2: SchemaSpec = { ...spec(2, []), readable: [1, 2] };
    await level.put(KEY, versionBytes(1));
    await upgradeSchema(level, dir.dir, reads1and2, (l) => lines.push(l));
    expect(await storedVersion(level, dir.dir, reads1and2)).toBe(1);
    await level.put(KEY, versionBytes(2));
    await upgradeSchema(level, dir.dir, reads1and2, (l) => lines.push(l));
    expect(lines).toEqual([]);
    // The release before schema 2 (it reads schema 1 only) refuses a datadir holding schema 2's keys.
    await expect(upgradeSchema(level, dir.dir, spec(1, []), () => {})).rejects.toThrow(
      `datadir ${dir.dir} has database schema 2, written by a newer tracenode; this one reads schema 1`,
    );
  });

  it('an older version is migrated step by step, with a line for each step and its progress', async () => {
    await level.put(KEY, versionBytes(1));
    const lines: string[] = [];
    await upgradeSchema(level, dir.dir, spec(3, [noop, rewriteRows()]), (l) => lines.push(l), 0);
    expect(lines[0]).toBe(`datadir ${dir.dir}: migrating database schema 1 to 2: rows get a version byte`);
    expect(lines.filter((l) => l.includes(': schema 2: ')).at(-1)).toBe(`datadir ${dir.dir}: schema 2: ${ROWS}/${ROWS}`);
    expect(lines.filter((l) => !l.includes(': schema 2: ')).map((l) => l.replace(/\(\d+\.\d s\)/, '(…)'))).toEqual([
      `datadir ${dir.dir}: migrating database schema 1 to 2: rows get a version byte`,
      `datadir ${dir.dir}: now database schema 2 (…)`,
      `datadir ${dir.dir}: migrating database schema 2 to 3: nothing to rewrite`,
      `datadir ${dir.dir}: now database schema 3 (…)`,
    ]);
    expect(await storedVersion(level, dir.dir, spec(3, []))).toBe(3);
    for (let i = 0; i < ROWS; i++) expect([...((await level.get(row(i))) ?? [])]).toEqual([2, 0x10, i % 256]);
  });

  it('a step interrupted half way leaves the old version, and the next open completes it', async () => {
    await level.put(KEY, versionBytes(1));
    await expect(upgradeSchema(level, dir.dir, spec(2, [rewriteRows(100)]), () => {})).rejects.toThrow('power cut');
    expect(await storedVersion(level, dir.dir, spec(2, []))).toBe(1);
    const rewritten = [];
    for (let i = 0; i < ROWS; i++) rewritten.push((await level.get(row(i)))!.length === 3);
    expect(rewritten.filter(Boolean).length).toBe(75); // three batches of 25 written before the cut
    await upgradeSchema(level, dir.dir, spec(2, [rewriteRows()]), () => {});
    expect(await storedVersion(level, dir.dir, spec(2, []))).toBe(2);
    for (let i = 0; i < ROWS; i++) expect([...((await level.get(row(i))) ?? [])]).toEqual([2, 0x10, i % 256]);
  });

  it('a newer version (a downgrade) is refused with both versions named, and left as it is', async () => {
    await level.put(KEY, versionBytes(4));
    const refusal = upgradeSchema(level, dir.dir, spec(3, [noop, rewriteRows()]), () => {});
    await expect(refusal).rejects.toThrow(SchemaError);
    await expect(refusal).rejects.toThrow(
      `datadir ${dir.dir} has database schema 4, written by a newer tracenode; this one reads schema 3: run a release that reads schema 4 (a datadir is never migrated back), or make a new datadir with this one`,
    );
    expect(await storedVersion(level, dir.dir, spec(3, []))).toBe(4);
  });

  it('an older version no step leads from is refused with both versions named', async () => {
    await level.put(KEY, versionBytes(0));
    await expect(upgradeSchema(level, dir.dir, spec(3, [noop, rewriteRows()]), () => {})).rejects.toThrow(
      `datadir ${dir.dir} has database schema 0, which this tracenode cannot read: it reads schema 3 and migrates schema 1 and later; open it with the release that wrote it, or make a new datadir (init and import, or a snapshot of a replica)`,
    );
    await expect(upgradeSchema(level, dir.dir, spec(1, []), () => {})).rejects.toThrow('it reads schema 1 and migrates none older');
    await level.put(KEY, Uint8Array.of(1, 2));
    await expect(upgradeSchema(level, dir.dir, spec(1, []), () => {})).rejects.toThrow('has an unreadable database schema version (2 bytes, want 4)');
  });
});
