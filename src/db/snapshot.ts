import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { DomainError } from '../errors/domainError.js';
import { type Level, openDatabase } from './database.js';

/**
 * A consistent copy of a datadir's database while it is in use: one LevelDB iterator reads every
 * entry as of the moment it was created (LevelDB iterators read from an implicit snapshot), so
 * blocks written meanwhile by a follower are either wholly in the copy or wholly absent: each
 * block is one batch, and a batch is atomic for snapshots too. Writers never pause.
 *
 * The copy is written to `<out>.partial` and renamed to `<out>` only when complete, so a copy cut
 * short (a crash, a full disk) is never taken for a datadir. `<out>` must not exist.
 */

/** Entries written to the copy per batch: large batches are faster, and this bounds their memory. */
const BATCH_BYTES = 4 * 1024 * 1024;

export interface SnapshotProgress {
  entries: number;
  bytes: number;
  seconds: number;
}

export class SnapshotError extends DomainError {
  override readonly name = 'SnapshotError';
}

export async function snapshotDatabase(src: Level, out: string, onProgress?: (p: SnapshotProgress) => void, progressEveryMs = 2000): Promise<SnapshotProgress> {
  if (existsSync(out) && readdirSync(out).length > 0) throw new SnapshotError(`${out} exists and is not empty; choose a new directory`);
  const partial = `${out}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const t0 = performance.now();
  const dst = await openDatabase(partial);
  let entries = 0;
  let bytes = 0;
  let lastReport = t0;
  const progress = (): SnapshotProgress => ({ entries, bytes, seconds: (performance.now() - t0) / 1000 });
  try {
    let batch = dst.batch();
    let batchBytes = 0;
    // The iterator is created (and its snapshot taken) before the first read.
    for await (const [key, value] of src.iterator()) {
      batch.put(key, value);
      batchBytes += key.length + value.length;
      entries++;
      if (batchBytes >= BATCH_BYTES) {
        await batch.write();
        bytes += batchBytes;
        batch = dst.batch();
        batchBytes = 0;
        const now = performance.now();
        if (onProgress && now - lastReport >= progressEveryMs) {
          lastReport = now;
          onProgress(progress());
        }
      }
    }
    await batch.write();
    bytes += batchBytes;
  } finally {
    await dst.close();
  }
  if (existsSync(out)) rmSync(out, { recursive: true });
  renameSync(partial, out);
  return progress();
}
