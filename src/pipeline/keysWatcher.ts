import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { type KeyPolicy, type KeyRegistry, parseKeysFile } from './keys.js';

/**
 * Reloads a keys file when it changes (or on `reload()`, which the CLI calls on SIGHUP), without
 * dropping connections: requests authenticated before keep their session; the next request is
 * checked against the new keys. A file that does not parse, or is empty, changes nothing — the
 * previous policies stay in force and one log line says why. The directory is watched, not the file, so
 * an editor's write-and-rename or a `mv` into place is seen too.
 */
export interface KeysWatcher {
  /** Reads the file again now; resolves true when the new keys are in force. */
  reload(): boolean;
  close(): void;
}

/** How long to wait after a change event before reading (editors write in several steps). */
const SETTLE_MS = 50;

export function watchKeysFile(path: string, registry: KeyRegistry, logger: Pick<Logger, 'info' | 'error'>, extra: readonly KeyPolicy[] = []): KeysWatcher {
  const reload = (): boolean => {
    try {
      // An empty file is a write in progress far more often than an operator removing every key
      // (writing over a file truncates it first): reading it would lock every client out. The
      // text checked is the text parsed: a size checked before the read can be stale by then.
      const text = readFileSync(path, 'utf8');
      if (text.trim() === '') throw new Error('the file is empty (being written?)');
      const policies = [...extra, ...parseKeysFile(text, path)];
      registry.replace(policies);
      logger.info({ keys: policies.length }, 'keys file reloaded');
      return true;
    } catch (err) {
      logger.error({ reason: (err as Error).message }, 'keys file not reloaded: the previous keys stay in force');
      return false;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, name) => {
      if (name !== null && name !== basename(path)) return;
      clearTimeout(timer);
      timer = setTimeout(reload, SETTLE_MS);
    });
    watcher.on('error', (err) => logger.error({ reason: err.message }, 'keys file watch failed: reload with SIGHUP'));
  } catch (err) {
    logger.error({ reason: (err as Error).message }, 'keys file cannot be watched: reload with SIGHUP');
  }
  return {
    reload,
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
