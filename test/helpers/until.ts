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

/**
 * `promise`'s value; past `timeoutMs` a failure naming `what`. A ceiling on a wait for something
 * that must happen (an answer, an exit), set far above what it takes on a busy machine: a hang
 * fails the test, a slow machine does not. Not a figure to assert: timings belong to the bench.
 */
export async function within<T>(what: string, promise: Promise<T>, timeoutMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, ceiling]);
  } finally {
    clearTimeout(timer);
  }
}

/*
 * The only waits of a fixed length the tests may make (`test/testTime.test.ts` refuses a sleep
 * anywhere else), each named for why nothing can be waited on instead. None is a ceiling a busy
 * machine could miss: it only makes each of them longer.
 */

/**
 * Waits `ms` in which something must not happen (a message that must not arrive, a scan that must
 * not go on); the test then checks that it did not. Absence has no event to wait on.
 */
export function quiet(ms: number): Promise<void> {
  return sleep(ms);
}

/**
 * Waits out a time window of a program the test cannot give a clock (a child process, a load
 * balancer's health checks): at least `ms`, which the window is shorter than.
 */
export function pastWindow(ms: number): Promise<void> {
  return sleep(ms);
}

/** A test double's own latency: it takes `ms` on purpose, so that concurrent callers overlap or a scan takes long. */
export function simulatedWork(ms: number): Promise<void> {
  return sleep(ms);
}

/** The schedule of a simulated client, load generator or retry: its next request, block, read or attempt `ms` from now. */
export function paced(ms: number): Promise<void> {
  return sleep(ms);
}
