import { Worker } from 'node:worker_threads';
import { DomainError } from '../errors/domainError.js';
import { threadCpuSeconds } from '../proc/threadCpu.js';

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
 * - With `jobsPerWorker` above 1, a busy worker is also handed its next jobs (up to that many in
 *   all), which wait in the worker: under load a worker then finds its next job at hand instead of
 *   sleeping until the pool's answer to its last one reaches it, and the pool's message to a
 *   running thread needs no wake-up. Jobs go to idle workers first. A job waiting in a worker
 *   whose caller goes away is withdrawn (`{ cancel: id }`) and never runs unless it had already
 *   started; one waiting in a worker that is lost goes back to the head of the queue.
 * - `close` refuses new jobs, fails the queued ones, lets the running ones finish (each within its
 *   watchdog), then asks every worker to close (`{ close: true }`: it releases its database handle
 *   and exits); one still there `closeGraceMs` later is terminated. Only a lost worker (stuck,
 *   crashed, not started) is terminated at once.
 *
 * Why our own (~300 lines) rather than piscina or tinypool: admission needs per-owner caps and
 * abort of queued jobs in the same queue, and a stuck job must cost its worker, not the pool;
 * the libraries offer a task queue and timeouts but not the owner rule, and their task
 * cancellation terminates workers even for queued tasks.
 *
 * Messages (the worker's side is `jobLoop.ts`): the worker posts `{ ready: true }` once it can take
 * jobs; the pool posts `{ id, job }` (it may do so before the worker is ready: the port keeps
 * them), `{ cancel: id }` and, when it closes, `{ close: true }`; the worker runs jobs one at a time in order and answers each once,
 * in order: `{ id, ok: true, value }`, `{ id, ok: false, error }` (decoded by `decodeError`) or
 * `{ id, cancelled: true }`.
 */

/** The queue is full: the node is busy. */
export class PoolBusyError extends DomainError {
  override readonly name = 'PoolBusyError';
}

/** The job's worker died (a crash in native code, out of memory…). */
export class WorkerCrashedError extends DomainError {
  override readonly name = 'WorkerCrashedError';
}

/** The pool is closing: no new work. */
export class PoolClosedError extends DomainError {
  override readonly name = 'PoolClosedError';
}

/** The caller went away before its job started. */
export class JobAbortedError extends DomainError {
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
  /** Jobs one owner runs at once (jobs handed to workers, running or waiting there). */
  perOwner: number;
  /** Jobs a worker holds at once: the one it runs and its next ones (default 1: none waiting). */
  jobsPerWorker?: number;
  /** V8's young generation of each worker, MiB (default: V8's). */
  youngGenerationMb?: number;
  /** A job's worker is replaced when it has not answered this long after taking it. */
  watchdogMs: number;
  /** A worker not ready this long after it was started has failed to start. */
  startTimeoutMs: number;
  /** A worker asked to close (the pool is closing) that has not exited this long after is terminated. */
  closeGraceMs: number;
  /** The error of a job whose worker was replaced by the watchdog. */
  stuckError: () => Error;
  /** Rebuilds a worker's error (domain errors keep their class). */
  decodeError: (encoded: unknown) => Error;
  /** Worker failures (crash, watchdog), for the log. */
  onWorkerFailure?: (reason: string, err?: unknown) => void;
}

/**
 * What the pool needs of a caller's abort signal: an AbortSignal fits, and so does the request
 * pipeline's lighter one (no AbortController per request).
 */
export interface JobSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface JobOptions {
  /** Aborts while queued: the job is dropped. */
  signal?: JobSignal;
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
  /** Jobs in the queue. */
  queued: number;
  /** Jobs handed to busy workers, waiting in them (`jobsPerWorker`). */
  waiting: number;
  /** Jobs since start by how they ended (a worker's answer, value or error, is `answered`). */
  jobs: { answered: number; busy: number; aborted: number; crashed: number; stuck: number };
  /**
   * CPU seconds of the workers' threads since start, replaced workers included (Linux's /proc;
   * elsewhere their event loops' active time, a wall-clock figure).
   */
  cpuSeconds: number;
}

interface QueuedJob {
  id: number;
  job: unknown;
  owner: object | undefined;
  watchdogMs: number;
  signal: JobSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Withdrawn from its worker before it started (its caller went away): answered already. */
  cancelled: boolean;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface PoolWorker {
  thread: Worker;
  /** Jobs handed to it, in order: the first runs (once it is ready), the others wait in it. */
  jobs: QueuedJob[];
  /** It said it can take jobs; until then its job's watchdog waits, the start timer runs. */
  ready: boolean;
  startTimer: NodeJS.Timeout | undefined;
  /** Jobs it answered: a worker that dies before its first answer failed to start. */
  answers: number;
  watchdog: NodeJS.Timeout | undefined;
  /** Set once it is being replaced: late messages and events are ignored. */
  gone: boolean;
  /** Its thread's id in /proc, once it is ready (Linux). */
  tid: number | undefined;
  /** Its CPU milliseconds at the last reading (`readCpuMs`), kept: a thread that has exited reads nothing. */
  cpuMs: number;
}

type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: unknown }
  | { id: number; cancelled: true; ok?: undefined }
  | { ready: true; id?: undefined; thread?: number };

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
  /** CPU milliseconds of the workers retired so far (`cpuSeconds`). */
  private retiredCpuMs = 0;
  private startError: { err: Error; at: number } | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly counts = { answered: 0, busy: 0, aborted: 0, crashed: 0, stuck: 0 };

  private readonly jobsPerWorker: number;

  constructor(private readonly o: PoolOptions) {
    if (o.size < 1) throw new Error('a worker pool needs at least one worker');
    this.jobsPerWorker = Math.max(1, o.jobsPerWorker ?? 1);
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
        cancelled: false,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (opts.signal) {
        queued.onAbort = () => {
          const at = this.queue.indexOf(queued);
          if (at >= 0) {
            this.queue.splice(at, 1);
          } else {
            // Waiting in a worker (a running job has no listener: it finishes within its deadline).
            const worker = this.workers.find((w) => w.jobs.indexOf(queued) > 0);
            if (worker === undefined) return;
            queued.cancelled = true;
            worker.thread.postMessage({ cancel: queued.id });
          }
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
      busy: this.workers.filter((w) => w.jobs.length > 0).length,
      queued: this.queue.length,
      waiting: this.workers.reduce((n, w) => n + Math.max(0, w.jobs.length - 1), 0),
      jobs: { ...this.counts },
      cpuSeconds: (this.retiredCpuMs + this.workers.reduce((ms, w) => ms + readCpuMs(w), 0)) / 1000,
    };
  }

  /** Refuses new jobs, fails the queued ones, waits for the running ones, stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    for (const queued of this.queue.splice(0)) this.settle(queued, new PoolClosedError('the node is shutting down'));
    if (this.workers.some((w) => w.jobs.length > 0)) await new Promise<void>((r) => this.idleWaiters.push(r));
    await Promise.all(this.workers.splice(0).map((w) => this.retire(w, this.o.closeGraceMs)));
  }

  /** Gives queued jobs to free workers, starting workers up to `size`, then to busy ones with room. */
  private pump(): void {
    while (this.queue.length > 0) {
      const at = this.queue.findIndex((q) => q.owner === undefined || (this.running.get(q.owner) ?? 0) < this.o.perOwner);
      if (at < 0) return;
      const worker = this.pick();
      if (worker === undefined) return;
      const [queued] = this.queue.splice(at, 1);
      this.start(worker, queued);
    }
  }

  /** An idle worker, a new one, or the ready worker with the fewest jobs below `jobsPerWorker`. */
  private pick(): PoolWorker | undefined {
    const idle = this.workers.find((w) => w.jobs.length === 0);
    if (idle !== undefined) return idle;
    if (this.workers.length < this.o.size) return this.spawn();
    let best: PoolWorker | undefined;
    for (const w of this.workers) {
      if (w.ready && w.jobs.length < this.jobsPerWorker && (best === undefined || w.jobs.length < best.jobs.length)) best = w;
    }
    return best;
  }

  private start(worker: PoolWorker, queued: QueuedJob): void {
    worker.jobs.push(queued);
    if (queued.owner) this.running.set(queued.owner, (this.running.get(queued.owner) ?? 0) + 1);
    if (worker.jobs.length === 1) this.begin(worker);
    worker.thread.postMessage({ id: queued.id, job: queued.job });
  }

  /** The worker's first job runs now: it can no longer be withdrawn, and its watchdog starts. */
  private begin(worker: PoolWorker): void {
    const head = worker.jobs[0];
    if (head.onAbort) head.signal?.removeEventListener('abort', head.onAbort);
    head.onAbort = undefined;
    worker.thread.ref();
    if (worker.ready) this.arm(worker, head);
  }

  /** Starts the watchdog of the worker's job. */
  private arm(worker: PoolWorker, queued: QueuedJob): void {
    worker.watchdog = setTimeout(() => this.fail(worker, this.o.stuckError(), STUCK), queued.watchdogMs);
    worker.watchdog.unref();
  }

  private spawn(): PoolWorker {
    const resourceLimits = this.o.youngGenerationMb === undefined ? undefined : { maxYoungGenerationSizeMb: this.o.youngGenerationMb };
    const thread = new Worker(this.o.script, { workerData: this.o.workerData, execArgv: this.o.execArgv, resourceLimits });
    const worker: PoolWorker = {
      thread,
      jobs: [],
      ready: false,
      startTimer: undefined,
      answers: 0,
      watchdog: undefined,
      gone: false,
      tid: undefined,
      cpuMs: 0,
    };
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
      worker.tid = reply.thread;
      clearTimeout(worker.startTimer);
      if (worker.jobs.length > 0) this.arm(worker, worker.jobs[0]);
      return;
    }
    const queued = worker.jobs[0];
    if (worker.gone || queued === undefined || queued.id !== reply.id) return;
    this.failedStarts = 0;
    worker.answers++;
    this.finish(worker);
    // A withdrawn job's caller was answered when it went away (and counted as aborted).
    if (!queued.cancelled) {
      this.counts.answered++;
      if (reply.ok === true) queued.resolve(reply.value);
      else if (reply.ok === false) queued.reject(this.o.decodeError(reply.error));
    }
    this.pump();
  }

  /** The worker is lost (crash, exit, watchdog): its job fails with `err`, a new worker takes over on demand. */
  private fail(worker: PoolWorker, err: Error, reason: string, cause?: unknown): void {
    if (worker.gone) return;
    const [queued, ...waiting] = worker.jobs;
    worker.gone = true;
    this.finish(worker); // the running job
    for (const w of waiting) this.release(w);
    worker.jobs = [];
    this.workers.splice(this.workers.indexOf(worker), 1);
    void this.retire(worker);
    this.o.onWorkerFailure?.(reason, cause);
    if (queued && !queued.cancelled) {
      if (reason === STUCK) this.counts.stuck++;
      else this.counts.crashed++;
      queued.reject(err);
    }
    // The jobs waiting in it never started: they go first in the queue, in their order (while
    // closing, they are refused as the queue's were: no new worker is started then).
    const requeued = waiting.filter((w) => !w.cancelled);
    if (this.closing) for (const w of requeued) this.settle(w, new PoolClosedError('the node is shutting down'));
    else this.queue.unshift(...requeued);
    if (worker.answers === 0 && reason !== STUCK && ++this.failedStarts >= MAX_FAILED_STARTS) {
      // A worker that cannot start (the database, a module) must not be restarted in a loop.
      const failed = new WorkerCrashedError(`EVM workers fail to start: ${err.message}`);
      this.startError = { err: failed, at: performance.now() };
      for (const q of this.queue.splice(0)) this.settle(q, failed);
      return;
    }
    this.pump();
  }

  /** The worker's first job is over (answered, or lost with the worker): the next one begins, unless the worker is lost. */
  private finish(worker: PoolWorker): void {
    if (worker.watchdog) clearTimeout(worker.watchdog);
    worker.watchdog = undefined;
    const queued = worker.jobs.shift();
    if (queued !== undefined) this.release(queued);
    if (!worker.gone) {
      if (worker.jobs.length > 0) this.begin(worker);
      else worker.thread.unref();
    }
    if (this.closing && !this.workers.some((w) => !w.gone && w.jobs.length > 0)) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** A job handed to a worker is no longer its owner's. */
  private release(queued: QueuedJob): void {
    if (!queued.owner) return;
    const n = (this.running.get(queued.owner) ?? 1) - 1;
    if (n === 0) this.running.delete(queued.owner);
    else this.running.set(queued.owner, n);
  }

  private settle(queued: QueuedJob, err: Error): void {
    if (queued.onAbort) queued.signal?.removeEventListener('abort', queued.onAbort);
    queued.reject(err);
  }

  /**
   * Stops a worker: at once (`Worker.terminate`) when it is lost; asked to close when `graceMs` is
   * given (the pool is closing and it is idle), so that its database handle is released by the
   * worker itself, and terminated only if it is still there after `graceMs`.
   */
  private async retire(worker: PoolWorker, graceMs?: number): Promise<void> {
    this.retiredCpuMs += readCpuMs(worker);
    worker.gone = true;
    clearTimeout(worker.startTimer);
    if (graceMs === undefined || worker.thread.threadId === -1) {
      await worker.thread.terminate().catch(() => undefined);
      return;
    }
    const exited = new Promise((resolve) => worker.thread.once('exit', resolve));
    worker.thread.postMessage({ close: true });
    const late = setTimeout(() => {
      this.o.onWorkerFailure?.(`did not close within ${graceMs} ms: terminated`);
      void worker.thread.terminate().catch(() => undefined);
    }, graceMs);
    await exited;
    clearTimeout(late);
  }
}

/**
 * A worker's CPU milliseconds since it started (its thread's, from /proc; without /proc its event
 * loop's active time), read now and kept: once the thread has exited it reads nothing, and its
 * last reading stands (a file read: taken when the metrics ask and when the worker is retired,
 * not at each job).
 */
function readCpuMs(worker: PoolWorker): number {
  const ms = worker.tid === undefined ? worker.thread.performance.eventLoopUtilization().active : (threadCpuSeconds(worker.tid) ?? 0) * 1000;
  if (ms > worker.cpuMs) worker.cpuMs = ms;
  return worker.cpuMs;
}
