import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `read` every 25 ms until `ok` holds for its value, and resolves that value; past
 * `timeoutMs` it throws, naming `what`, the last value read (bigints as decimals) and, when given,
 * `detail()` (a server's recent output, say).
 */
export async function until<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000, detail?: () => string): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs) {
      const shown = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))?.slice(0, 500);
      throw new Error(`${what}: still ${shown}${detail ? `; ${detail()}` : ''}`);
    }
    await sleep(25);
  }
}
