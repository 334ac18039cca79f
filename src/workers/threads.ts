import { setPriority } from 'node:os';

/**
 * What every worker thread of the node needs: where its module is, and its priority.
 */

/**
 * How to start the worker module `name` (`evmWorker`, …) found beside `moduleUrl` (the caller's
 * `import.meta.url`): from dist, its built JavaScript; from the TypeScript sources (tests,
 * `tsx src/cli.ts`), through `tsxBootstrap.mjs`, which registers tsx in the thread and loads
 * `entry` (pass it in the worker's `workerData.entry`).
 */
export function workerModule(moduleUrl: string, name: string): { script: URL; entry: string } {
  const fromSources = moduleUrl.endsWith('.ts');
  const entry = new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, moduleUrl);
  return { script: fromSources ? new URL('./tsxBootstrap.mjs', import.meta.url) : entry, entry: entry.href };
}

/**
 * Sets the calling thread's niceness (on Linux a thread's own: the other threads of the process
 * keep theirs). Where that is not permitted or supported the thread keeps the process' priority.
 */
export function setThreadNice(nice: number): void {
  if (nice === 0) return;
  try {
    setPriority(nice);
  } catch {
    // not permitted or not supported
  }
}
