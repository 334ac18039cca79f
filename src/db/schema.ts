import { DomainError } from '../errors/domainError.js';
import type { Level } from './database.js';
import { META, SCHEMA_VERSION, SCHEMA_VERSION_BASE } from './keys.js';

/**
 * The version of a datadir's key schema, and what happens when a tracenode opens a datadir of
 * another version. The version is 4 bytes, big-endian, under a metadata key (`META.schema`;
 * Starknet datadirs have their own, `starknet/keys.ts`), written by `init` (`import-starknet`).
 *
 * - The version this tracenode writes: opened as is.
 * - An older one: migrated on open, one version at a time, each step announced and its progress
 *   reported; a step rewrites in atomic batches and may be interrupted anywhere (a crash, a
 *   second signal): the next open runs it again on what it left. The version is written once its
 *   step is complete. An older version no step leads from is refused, naming both versions.
 * - A newer one (a downgrade): refused, naming both versions; this tracenode would misread it.
 *
 * History of the Ethereum schema: version 1 is the only one ever written (`git log -S
 * SCHEMA_VERSION`). Its layout grew without a version change, each addition read as absent by
 * the code that added it, so every schema-1 datadir of an earlier release opens as is: the trace
 * address index (24dde18; below `traceIndexHead` trace_filter replays, and `reindex-traces`
 * completes it), the Otterscan address history (`a`, `o`, `c`, `l` keys and `historyIndexHead`;
 * below it the history methods refuse, and `reindex-traces` builds it), the `kind` key
 * (2e70d26; a datadir without it is Ethereum), and the optional flags of development nodes'
 * chains (32d2fc2 and later: `stateRootAlias`, `systemWritesSkipped`, absent meaning off). The
 * other direction is what a version bump protects: a release older than a key does not know it
 * is there.
 */

/** One step of a migration, from schema `from` to `from + 1`. */
export interface Migration {
  readonly from: number;
  /** What the step changes, for its progress line. */
  readonly what: string;
  /**
   * Rewrites the datadir, in atomic batches, such that running it again on what an interrupted
   * run left completes it; reports its advance as (done, total) of whatever unit it counts.
   */
  run(level: Level, progress: (done: number, total: number) => void): Promise<void>;
}

/** A kind of datadir's schema: where its version is, the version this tracenode writes, the steps to it. */
export interface SchemaSpec {
  /** Named in messages: `database` (Ethereum) or `Starknet`. */
  readonly name: string;
  readonly key: Uint8Array;
  readonly current: number;
  /** Versions opened as they are, without a migration (default: `current` only). */
  readonly readable?: readonly number[];
  readonly migrations: readonly Migration[];
}

/**
 * The Ethereum key schema (`keys.ts`). Schema 2 only adds keys (`SCHEMA_VERSION`), so both are
 * read as they are; a datadir becomes schema 2 when one of those keys is first written there.
 */
export const ETHEREUM_SCHEMA: SchemaSpec = {
  name: 'database',
  key: META.schema,
  current: SCHEMA_VERSION,
  readable: [SCHEMA_VERSION_BASE, SCHEMA_VERSION],
  migrations: [],
};

/** A datadir this tracenode cannot open as it is, with the versions named. */
export class SchemaError extends DomainError {
  override readonly name = 'SchemaError';
}

/** At most one progress line a second while a step runs (as `import.progressIntervalMs`'s default). */
const PROGRESS_EVERY_MS = 1000;

/** The 4 bytes stored for `version`. */
export function versionBytes(version: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, version);
  return out;
}

/** The version a datadir stores; undefined when it stores none (not initialised). */
export async function storedVersion(level: Level, datadir: string, spec: SchemaSpec): Promise<number | undefined> {
  const bytes = await level.get(spec.key);
  if (bytes === undefined) return undefined;
  if (bytes.length !== 4) throw new SchemaError(`datadir ${datadir} has an unreadable ${spec.name} schema version (${bytes.length} bytes, want 4)`);
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
}

/**
 * Brings an opened datadir to `spec.current`: nothing to do, migrated (each step announced
 * through `progress`), or refused with a {@link SchemaError} naming both versions. A datadir that
 * stores no version is left to the caller (not initialised).
 */
export async function upgradeSchema(
  level: Level,
  datadir: string,
  spec: SchemaSpec,
  progress: (line: string) => void,
  progressEveryMs = PROGRESS_EVERY_MS,
): Promise<void> {
  const version = await storedVersion(level, datadir, spec);
  if (version === undefined || version === spec.current || spec.readable?.includes(version)) return;
  if (version > spec.current) {
    throw new SchemaError(
      `datadir ${datadir} has ${spec.name} schema ${version}, written by a newer tracenode; this one reads schema ${spec.current}: ` +
        `run a release that reads schema ${version} (a datadir is never migrated back), or make a new datadir with this one`,
    );
  }
  const steps: Migration[] = [];
  for (let v = version; v < spec.current; v++) {
    const step = spec.migrations.find((m) => m.from === v);
    if (step === undefined) {
      const oldest = spec.migrations.reduce((low, m) => Math.min(low, m.from), spec.current);
      throw new SchemaError(
        `datadir ${datadir} has ${spec.name} schema ${version}, which this tracenode cannot read: it reads schema ${spec.current} and migrates ${oldest < spec.current ? `schema ${oldest} and later` : 'none older'}; ` +
          'open it with the release that wrote it, or make a new datadir (init and import, or a snapshot of a replica)',
      );
    }
    steps.push(step);
  }
  for (const step of steps) {
    const to = step.from + 1;
    const t0 = performance.now();
    let shown = t0;
    progress(`datadir ${datadir}: migrating ${spec.name} schema ${step.from} to ${to}: ${step.what}`);
    await step.run(level, (done, total) => {
      const now = performance.now();
      if (now - shown < progressEveryMs) return;
      shown = now;
      progress(`datadir ${datadir}: schema ${to}: ${done}/${total}`);
    });
    await level.put(spec.key, versionBytes(to));
    progress(`datadir ${datadir}: now ${spec.name} schema ${to} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
}
