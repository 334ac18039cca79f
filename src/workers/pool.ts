import { Worker } from 'node:worker_threads';

/**
 * A pool of worker threads behind one bounded queue: the admission control of EVM work.
 *
 * - One FIFO queue, at most `queueMax` jobs: past it, `run` fails at once with
 *   {@link PoolBusyError} (the caller answers -32005), never waiting without bound.
 * - A job whose caller goes away (its `signal` aborts) while queued is dropped and never runs.
 * - One owner (a message: an HTTP request or a WebSocket frame, batches included) runs at most
 *   `perOwner` jobs at once; its other jobs wait while later jobs of other owners go first, so a
 *   batch of 1,000 eth_calls cannot take every worker.
 * - A job's time counts from when a worker takes it (once the worker is ready: opening the
 *   database is not the job's time). A worker that has not answered `watchdogMs` after that (its
 *   deadline and a grace) is terminated and replaced; the job fails with the pool's `stuckError`.
 *   A worker that crashes is replaced; its job fails with {@link WorkerCrashedError}; so does one
 *   not ready `startTimeoutMs` after it was started. Workers start on demand, up to `size`, or
 *   all at once with `warm()`.
 * - `close` refuses new jobs, fails the queued ones, lets the running ones finish (each within its
 *   watchdog), then stops every worker.
 *
 * Why our own (~300 lines) rather than piscina or tinypool: admission needs per-owner caps and
 * abort of queued jobs in the same queue, and a stuck job must cost its worker, not the pool;
 * the libraries offer a task queue and timeouts but not the owner rule, and their task
 * cancellation terminates workers even for queued tasks.
 *
 * Messages: the worker posts `{ ready: true }` once it can take jobs; the pool posts `{ id, job }`
 * (it may do so before the worker is ready: the port keeps them); the worker answers
 * `{ id, ok: true, value }` or `{ id, ok: false, error }`, where `error` is decoded by `decodeError`.
 */

/** The queue is full: the node is busy. */
export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError';
}

/** The job's worker died (a crash in native code, out of memory…). */
export class WorkerCrashedError extends Error {
  override readonly name = 'WorkerCrashedError';
}

/** The pool is closing: no new work. */
export class PoolClosedError extends Error {
  override readonly name = 'PoolClosedError';
}

/** The caller went away before its job started. */
export class JobAbortedError extends Error {
  override readonly name = 'JobAbortedError';
}

export interface PoolOptions {
  /** The module each worker runs. */
  script: URL;
  /** Passed to each worker as `workerData`. */
  workerData: unknown;
  /** Node flags of the workers (tsx when running from sources). */
  execArgv?: string[];
  /** Workers at most. */
  size: number;
  /** Jobs waiting at most. */
  queueMax: number;
  /** Jobs one owner runs at once. */
  perOwner: number;
  /** A job's worker is replaced when it has not answered this long after taking it. */
  watchdogMs: number;
  /** A worker not ready this long after it was started has failed to start. */
  startTimeoutMs: number;
  /** The error of a job whose worker was replaced by the watchdog. */
  stuckError: () => Error;
  /** Rebuilds a worker's error (domain errors keep their class). */
  decodeError: (encoded: unknown) => Error;
  /** Worker failures (crash, watchdog), for the log. */
  onWorkerFailure?: (reason: string, err?: unknown) => void;
}

export interface JobOptions {
  /** Aborts while queued: the job is dropped. */
  signal?: AbortSignal;
  /** Whose job it is (the per-owner cap); jobs without an owner only share the queue. */
  owner?: object;
  /** This job's watchdog instead of the pool's `watchdogMs` (a job kind with a longer deadline). */
  watchdogMs?: number;
}

/** What the pool is doing and has done (for the metrics). */
export interface PoolStats {
  /** Workers started (at most the pool's size). */
  workers: number;
  busy: number;
  queued: number;
  /** Jobs since start by how they ended (a worker's answer, value or error, is `answered`). */
  jobs: { answered: number; busy: number; aborted: number; crashed: number; stuck: number };
}

interface QueuedJob {
  id: number;
  job: unknown;
  owner: object | undefined;
  watchdogMs: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface PoolWorker {
  thread: Worker;
  running: QueuedJob | undefined;
  /** It said it can take jobs; until then its job's watchdog waits, the start timer runs. */
  ready: boolean;
  startTimer: NodeJS.Timeout | undefined;
  /** Jobs it answered: a worker that dies before its first answer failed to start. */
  answers: number;
  watchdog: NodeJS.Timeout | undefined;
  /** Set once it is being replaced: late messages and events are ignored. */
  gone: boolean;
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: unknown } | { ready: true; id?: undefined };

/** Workers that died before answering anything, in a row, before the pool stops starting them. */
const MAX_FAILED_STARTS = 3;
/** How long the pool then fails jobs at once before it tries a worker again. */
const FAILED_START_BACKOFF_MS = 10_000;
const STUCK = 'stuck past its deadline: replaced';

export class WorkerPool<Job, Result> {
  private readonly queue: QueuedJob[] = [];
  private readonly workers: PoolWorker[] = [];
  private readonly running = new Map<object, number>();
  private nextId = 1;
  private closing = false;
  private failedStarts = 0;
  private startError: { err: Error; at: number } | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly counts = { answered: 0, busy: 0, aborted: 0, crashed: 0, stuck: 0 };

  constructor(private readonly o: PoolOptions) {
    if (o.size < 1) throw new Error('a worker pool needs at least one worker');
  }

  /** Runs `job` in a worker; see the class comment for what can fail and when. */
  run(job: Job, opts: JobOptions = {}): Promise<Result> {
    if (this.closing) return Promise.reject(new PoolClosedError('the node is shutting down'));
    if (this.startError !== undefined) {
      if (performance.now() - this.startError.at < FAILED_START_BACKOFF_MS) return Promise.reject(this.startError.err);
      this.startError = undefined;
      this.failedStarts = 0;
    }
    if (opts.signal?.aborted) return Promise.reject(new JobAbortedError('the client went away'));
    if (this.queue.length >= this.o.queueMax) {
      this.counts.busy++;
      return Promise.reject(new PoolBusyError(`node is busy: ${this.queue.length} EVM jobs are waiting, try again later`));
    }
    return new Promise<Result>((resolve, reject) => {
      const queued: QueuedJob = {
        id: this.nextId++,
        job,
        owner: opts.owner,
        watchdogMs: opts.watchdogMs ?? this.o.watchdogMs,
        signal: opts.signal,
        onAbort: undefined,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (opts.signal) {
        queued.onAbort = () => {
          const at = this.queue.indexOf(queued);
          if (at < 0) return; // already running: it finishes within its deadline
          this.queue.splice(at, 1);
          this.counts.aborted++;
          reject(new JobAbortedError('the client went away'));
        };
        opts.signal.addEventListener('abort', queued.onAbort, { once: true });
      }
      this.queue.push(queued);
      this.pump();
    });
  }

  /** Starts every worker now, so the first jobs do not wait for workers to open the database. */
  warm(): void {
    if (this.closing || this.startError !== undefined) return;
    while (this.workers.length < this.o.size) this.spawn();
  }

  stats(): PoolStats {
    return {
      workers: this.workers.length,
      busy: this.workers.filter((w) => w.running).length,
      queued: this.queue.length,
      jobs: { ...this.counts },
    };
  }

  /** Refuses new jobs, fails the queued ones, waits for the running ones, stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    for (const queued of this.queue.splice(0)) this.settle(queued, new PoolClosedError('the node is shutting down'));
    if (this.workers.some((w) => w.running)) await new Promise<void>((r) => this.idleWaiters.push(r));
    await Promise.all(this.workers.splice(0).map((w) => this.retire(w)));
  }

  /** Gives queued jobs to free workers, starting workers up to `size`. */
  private pump(): void {
    while (this.queue.length > 0) {
      const at = this.queue.findIndex((q) => q.owner === undefined || (this.running.get(q.owner) ?? 0) < this.o.perOwner);
      if (at < 0) return;
      const worker = this.workers.find((w) => !w.running) ?? (this.workers.length < this.o.size ? this.spawn() : undefined);
      if (worker === undefined) return;
      const [queued] = this.queue.splice(at, 1);
      this.start(worker, queued);
    }
  }

  private start(worker: PoolWorker, queued: QueuedJob): void {
    if (queued.onAbort) queued.signal?.removeEventListener('abort', queued.onAbort);
    worker.running = queued;
    if (queued.owner) this.running.set(queued.owner, (this.running.get(queued.owner) ?? 0) + 1);
    worker.thread.ref();
    if (worker.ready) this.arm(worker, queued);
    worker.thread.postMessage({ id: queued.id, job: queued.job });
  }

  /** Starts the watchdog of the worker's job. */
  private arm(worker: PoolWorker, queued: QueuedJob): void {
    worker.watchdog = setTimeout(() => this.fail(worker, this.o.stuckError(), STUCK), queued.watchdogMs);
    worker.watchdog.unref();
  }

  private spawn(): PoolWorker {
    const thread = new Worker(this.o.script, { workerData: this.o.workerData, execArgv: this.o.execArgv });
    const worker: PoolWorker = { thread, running: undefined, ready: false, startTimer: undefined, answers: 0, watchdog: undefined, gone: false };
    thread.unref();
    worker.startTimer = setTimeout(
      () => this.fail(worker, new WorkerCrashedError(`EVM worker not ready after ${this.o.startTimeoutMs} ms`), 'did not start in time'),
      this.o.startTimeoutMs,
    );
    worker.startTimer.unref();
    thread.on('message', (reply: Reply) => this.answered(worker, reply));
    thread.on('error', (err) => this.fail(worker, new WorkerCrashedError(`EVM worker crashed: ${err.message}`), 'crashed', err));
    thread.on('exit', (code) => {
      if (!worker.gone) this.fail(worker, new WorkerCrashedError(`EVM worker exited (code ${code})`), `exited with code ${code}`);
    });
    this.workers.push(worker);
    return worker;
  }

  private answered(worker: PoolWorker, reply: Reply): void {
    if (reply.id === undefined) {
      if (worker.gone) return;
      worker.ready = true;
      clearTimeout(worker.startTimer);
      if (worker.running) this.arm(worker, worker.running);
      return;
    }
    const queued = worker.running;
    if (worker.gone || queued === undefined || queued.id !== reply.id) return;
    this.failedStarts = 0;
    this.counts.answered++;
    worker.answers++;
    this.finish(worker);
    if (reply.ok) queued.resolve(reply.value);
    else queued.reject(this.o.decodeError(reply.error));
    this.pump();
  }

  /** The worker is lost (crash, exit, watchdog): its job fails with `err`, a new worker takes over on demand. */
  private fail(worker: PoolWorker, err: Error, reason: string, cause?: unknown): void {
    if (worker.gone) return;
    const queued = worker.running;
    this.finish(worker);
    worker.gone = true;
    this.workers.splice(this.workers.indexOf(worker), 1);
    void this.retire(worker);
    this.o.onWorkerFailure?.(reason, cause);
    if (queued) {
      if (reason === STUCK) this.counts.stuck++;
      else this.counts.crashed++;
      queued.reject(err);
    }
    if (worker.answers === 0 && reason !== STUCK && ++this.failedStarts >= MAX_FAILED_STARTS) {
      // A worker that cannot start (the database, a module) must not be restarted in a loop.
      const failed = new WorkerCrashedError(`EVM workers fail to start: ${err.message}`);
      this.startError = { err: failed, at: performance.now() };
      for (const q of this.queue.splice(0)) this.settle(q, failed);
      return;
    }
    this.pump();
  }

  private finish(worker: PoolWorker): void {
    const queued = worker.running;
    if (worker.watchdog) clearTimeout(worker.watchdog);
    worker.watchdog = undefined;
    worker.running = undefined;
    if (!worker.gone) worker.thread.unref();
    if (queued?.owner) {
      const n = (this.running.get(queued.owner) ?? 1) - 1;
      if (n === 0) this.running.delete(queued.owner);
      else this.running.set(queued.owner, n);
    }
    if (this.closing && !this.workers.some((w) => w.running)) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private settle(queued: QueuedJob, err: Error): void {
    if (queued.onAbort) queued.signal?.removeEventListener('abort', queued.onAbort);
    queued.reject(err);
  }

  private async retire(worker: PoolWorker): Promise<void> {
    worker.gone = true;
    clearTimeout(worker.startTimer);
    await worker.thread.terminate().catch(() => undefined);
  }
}
