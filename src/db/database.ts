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
  return db;
}
