import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { ownThreadId } from '../proc/threadCpu.js';

/**
 * The worker's side of the pool's protocol (`pool.ts`): jobs run one at a time, in the order they
 * were posted, each answered once.
 *
 * The pool may post a worker its next jobs while it runs one (`jobsPerWorker`), so that under
 * load a worker finds its next job waiting instead of sleeping until the pool hands it one. Such
 * a job may be withdrawn (`{ cancel: id }`: its client went away) until it starts: before each
 * start the port is read synchronously, so a withdrawal posted while the previous job ran is
 * seen even if that job never yielded to the event loop. A withdrawn job is answered
 * `{ id, cancelled: true }` without running; one that had already started is answered as usual.
 *
 * `{ close: true }` (the pool is closing and this worker has no job left) ends the worker from
 * inside: its `onClose` releases what it holds — the database handle above all — and the thread
 * exits. A worker stopped from outside (`Worker.terminate`) in the middle of a database read would
 * leave LevelDB's shared state half released, and the serving thread's own close of the same
 * database could then crash the process.
 */

/** A message from the pool. */
export type PoolMessage =
  | { id: number; job: unknown; cancel?: undefined; close?: undefined }
  | { cancel: number; id?: undefined; close?: undefined }
  | { close: true; id?: undefined; cancel?: undefined };

/** An answer to the pool. */
export type WorkerAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: unknown } | { id: number; cancelled: true };

/**
 * Serves the pool's messages on `port` (the worker's `parentPort`) with `run`; `encodeError`
 * turns a failure into what crosses the thread boundary; `onClose` releases what the worker holds
 * when the pool closes it, before its thread exits. Call once the worker can take jobs: it tells
 * the pool so.
 */
export function serveJobs(
  port: MessagePort,
  run: (job: unknown) => Promise<unknown>,
  encodeError: (err: unknown) => unknown,
  onClose: () => Promise<void> = async () => undefined,
): void {
  const waiting: Array<{ id: number; job: unknown }> = [];
  const withdrawn = new Set<number>();
  let busy = false;
  let closing = false;

  const take = (message: PoolMessage): void => {
    if (message.close) closing = true;
    else if (message.cancel === undefined) waiting.push({ id: message.id, job: message.job });
    // A job that has started (or finished) is past withdrawing: it is answered as usual.
    else if (waiting.some((w) => w.id === message.cancel)) withdrawn.add(message.cancel);
  };

  const next = (): void => {
    // Whatever the pool posted while the last job ran, withdrawals included.
    for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) take(m.message as PoolMessage);
    for (;;) {
      const item = waiting.shift();
      if (item === undefined) {
        busy = false;
        if (closing) close();
        return;
      }
      if (withdrawn.delete(item.id)) {
        port.postMessage({ id: item.id, cancelled: true } satisfies WorkerAnswer);
        continue;
      }
      busy = true;
      run(item.job).then(
        (value) => done({ id: item.id, ok: true, value }),
        (err: unknown) => done({ id: item.id, ok: false, error: encodeError(err) }),
      );
      return;
    }
  };

  // The pool sends `close` only to a worker it gave nothing left to do; a job still here is answered first.
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    busy = true;
    onClose()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };

  const done = (answer: WorkerAnswer): void => {
    port.postMessage(answer);
    next();
  };

  port.on('message', (message: PoolMessage) => {
    take(message);
    if (!busy) next();
  });
  // Its thread id lets the pool read the thread's CPU time (`proc/threadCpu.ts`).
  port.postMessage({ ready: true, thread: ownThreadId() });
}
