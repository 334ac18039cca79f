import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Level as LevelDB } from 'level';

/** The LevelDB handle every store shares: binary keys and values. */
export type Level = LevelDB<Uint8Array, Uint8Array>;

/** One LevelDB operation; a block's ops are written together in one {@link Level.batch}. */
export type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/**
 * Opens (creating if needed) the LevelDB database of a datadir. LevelDB's own lock makes a second
 * process on the same datadir fail here with a clear error rather than corrupt it. Within one
 * process the database may be opened by several threads (classic-level's `multithreading`): the
 * EVM workers (src/workers) read it directly rather than through the main thread.
 */
export async function openDatabase(datadir: string): Promise<Level> {
  mkdirSync(datadir, { recursive: true });
  const db: Level = new LevelDB<Uint8Array, Uint8Array>(join(datadir, 'chaindata'), {
    keyEncoding: 'view',
    valueEncoding: 'view',
  });
  try {
    await db.open({ multithreading: true } as Parameters<Level['open']>[0]);
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw new Error(`cannot open database in ${datadir}: ${cause}`);
  }
  return withSyncGets(db);
}

/**
 * Makes `db.get` read synchronously (LevelDB's `getSync`), answering through a settled promise.
 *
 * Why: an asynchronous get hands each read to the thread pool and back, ~27 µs of CPU here,
 * where the read itself — a key LevelDB or the OS holds in memory, as a serving node's are — takes
 * ~1 µs (`getSync`, measured over 2,000 keys of the bench chain's datadir). Every state, block and
 * receipt read pays it; a read that must go to the disk blocks its thread for that read instead.
 */
function withSyncGets(db: Level): Level {
  const getSync = db.getSync.bind(db);
  db.get = ((key: Uint8Array) => {
    try {
      return Promise.resolve(getSync(key));
    } catch (err) {
      return Promise.reject(err);
    }
  }) as Level['get'];
  return db;
}
