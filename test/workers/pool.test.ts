import { afterEach, describe, expect, it } from 'vitest';
import { JobAbortedError, PoolBusyError, PoolClosedError, type PoolOptions, WorkerCrashedError, WorkerPool } from '../../src/workers/pool.js';
import { until } from '../helpers/until.js';

/**
 * The EVM workers' pool (src/workers/pool.ts) with a worker whose jobs sleep, spin, fail or exit
 * (test/helpers/poolWorker.ts, on the EVM worker's job loop): the admission rules of issue 15 — bounded queue, dropped jobs
 * of gone clients, per-owner caps, watchdog and crash replacement, shutdown — each checked by
 * which jobs ran, in which order, and what each caller got.
 */

type Job = { kind: 'echo' | 'sleep' | 'busy' | 'cpu' | 'spin' | 'exit' | 'exitAfter' | 'fail' | 'limits'; tag: number; ms?: number };
type Answer = { tag: number; threadId: number; youngGenerationMb?: number; cpuSeconds?: number };

const script = new URL('../../src/workers/tsxBootstrap.mjs', import.meta.url);
const entry = new URL('../helpers/poolWorker.ts', import.meta.url).href;
const pools: WorkerPool<Job, Answer>[] = [];

/** A pool over the test worker; `started()` lists the tags of the jobs workers took, in order. */
function makePool(opts: Partial<PoolOptions> & { failToStart?: boolean; neverReady?: boolean } = {}) {
  const log = new SharedArrayBuffer(4 * 256);
  const failures: string[] = [];
  const pool = new WorkerPool<Job, Answer>({
    script,
    workerData: { entry, log, failToStart: opts.failToStart ?? false, neverReady: opts.neverReady ?? false },
    size: 2,
    queueMax: 100,
    perOwner: 2,
    watchdogMs: 10_000,
    startTimeoutMs: 10_000,
    closeGraceMs: 5_000,
    stuckError: () => new Error('stuck'),
    decodeError: (e) => new Error((e as { message: string }).message),
    onWorkerFailure: (reason) => failures.push(reason),
    ...opts,
  });
  pools.push(pool);
  const view = new Int32Array(log);
  const started = () => Array.from(view.subarray(1, 1 + Atomics.load(view, 0)));
  /** Workers that closed themselves when the pool closed (the last slot of the log). */
  const closedThemselves = () => Atomics.load(view, view.length - 1);
  return { pool, started, failures, closedThemselves };
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('EVM worker pool', () => {
  it('runs jobs on up to `size` threads at once and returns their answers', async () => {
    const { pool, started } = makePool({ size: 2 });
    const running = [pool.run({ kind: 'sleep', tag: 1, ms: 300 }), pool.run({ kind: 'sleep', tag: 2, ms: 300 }), pool.run({ kind: 'echo', tag: 3 })];
    // Two sleeping on two threads; the third waits for one of them.
    await until(
      'two running, one queued',
      () => pool.stats(),
      (s) => s.workers === 2 && s.busy === 2 && s.queued === 1,
    );
    const answers = await Promise.all(running);
    expect(answers.map((a) => a.tag)).toEqual([1, 2, 3]);
    expect(new Set(answers.slice(0, 2).map((a) => a.threadId)).size).toBe(2);
    // 1 and 2 start on two threads (either first), 3 after them.
    expect([...started().slice(0, 2)].sort()).toEqual([1, 2]);
    expect(started()[2]).toBe(3);
    expect(pool.stats().jobs).toEqual({ answered: 3, busy: 0, aborted: 0, crashed: 0, stuck: 0 });
  });

  it('a worker’s error reaches its caller through decodeError; the worker keeps serving', async () => {
    const { pool } = makePool({ size: 1 });
    await expect(pool.run({ kind: 'fail', tag: 7 })).rejects.toThrow('job 7 failed');
    await expect(pool.run({ kind: 'echo', tag: 8 })).resolves.toMatchObject({ tag: 8 });
    expect(pool.stats()).toMatchObject({ workers: 1, jobs: { answered: 2 } });
  });

  it('a full queue refuses at once with PoolBusyError (the -32005 "node is busy" answer)', async () => {
    const { pool, started } = makePool({ size: 1, queueMax: 2 });
    const first = pool.run({ kind: 'sleep', tag: 1, ms: 200 });
    const queued = [pool.run({ kind: 'echo', tag: 2 }), pool.run({ kind: 'echo', tag: 3 })];
    let firstDone = false;
    void first.then(() => {
      firstDone = true;
    });
    await expect(pool.run({ kind: 'echo', tag: 4 })).rejects.toBeInstanceOf(PoolBusyError);
    // Refused while the running job (200 ms) still holds its place: nothing was waited for.
    expect(firstDone).toBe(false);
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 2 });
    await Promise.all([first, ...queued]);
    expect(started()).toEqual([1, 2, 3]);
    expect(pool.stats().jobs).toMatchObject({ answered: 3, busy: 1 });
  });

  it('a queued job whose client went away is dropped and never runs', async () => {
    const { pool, started } = makePool({ size: 1 });
    const gone = new AbortController();
    const first = pool.run({ kind: 'sleep', tag: 1, ms: 200 });
    const dropped = pool.run({ kind: 'echo', tag: 2 }, { signal: gone.signal });
    const kept = pool.run({ kind: 'echo', tag: 3 });
    gone.abort();
    await expect(dropped).rejects.toBeInstanceOf(JobAbortedError);
    await Promise.all([first, kept]);
    expect(started()).toEqual([1, 3]);
    // Already gone before it was queued: refused without running either.
    await expect(pool.run({ kind: 'echo', tag: 4 }, { signal: gone.signal })).rejects.toBeInstanceOf(JobAbortedError);
    expect(started()).toEqual([1, 3]);
    expect(pool.stats().jobs).toMatchObject({ answered: 2, aborted: 1 });
  });

  it('one owner (a batch) runs at most `perOwner` jobs at once; another owner’s later job goes first', async () => {
    const { pool, started } = makePool({ size: 2, perOwner: 1 });
    // Both workers started and ready first: a thread still starting when item 1 ends (slow on a
    // busy machine) would leave item 2 the only worker free.
    await Promise.all([pool.run({ kind: 'sleep', tag: 0, ms: 50 }), pool.run({ kind: 'sleep', tag: 0, ms: 50 })]);
    expect(pool.stats().workers).toBe(2);
    const batch = {};
    const other = {};
    const items = [1, 2, 3].map((tag) => pool.run({ kind: 'sleep', tag, ms: 100 }, { owner: batch }));
    const single = pool.run({ kind: 'echo', tag: 9 }, { owner: other });
    await Promise.all([...items, single]);
    // Item 1 takes one worker; items 2 and 3 wait for it while the other owner's call takes the
    // second (two threads: either of 1 and 9 may log first).
    expect([...started().slice(2, 4)].sort()).toEqual([1, 9]);
    expect(started().slice(4)).toEqual([2, 3]);
  });

  it('a worker stuck past its watchdog is replaced; its caller gets the stuck error; the next job runs', async () => {
    const { pool, started, failures } = makePool({ size: 1, watchdogMs: 300 });
    const t0 = performance.now();
    await expect(pool.run({ kind: 'spin', tag: 1 })).rejects.toThrow('stuck');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    await expect(pool.run({ kind: 'echo', tag: 2 })).resolves.toMatchObject({ tag: 2 });
    expect(started()).toEqual([1, 2]);
    expect(failures).toEqual(['stuck past its deadline: replaced']);
    expect(pool.stats().jobs).toMatchObject({ answered: 1, stuck: 1 });
  });

  it('a job may carry its own watchdog (trace replays have a longer one)', async () => {
    const { pool } = makePool({ size: 1, watchdogMs: 100 });
    await expect(pool.run({ kind: 'sleep', tag: 1, ms: 300 }, { watchdogMs: 2_000 })).resolves.toMatchObject({ tag: 1 });
    await expect(pool.run({ kind: 'sleep', tag: 2, ms: 300 })).rejects.toThrow('stuck');
  });

  it('a worker that exits is replaced; its caller gets WorkerCrashedError; the next job runs', async () => {
    const { pool, failures } = makePool({ size: 1 });
    await expect(pool.run({ kind: 'echo', tag: 1 })).resolves.toMatchObject({ tag: 1 });
    const lost = pool.run({ kind: 'exit', tag: 2 });
    await expect(lost).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect(lost).rejects.toThrow('EVM worker exited (code 3)');
    await expect(pool.run({ kind: 'echo', tag: 3 })).resolves.toMatchObject({ tag: 3 });
    expect(failures).toEqual(['exited with code 3']);
    expect(pool.stats().jobs).toMatchObject({ answered: 2, crashed: 1 });
  });

  it('workers that cannot start fail three jobs, then the pool fails jobs at once instead of restarting them in a loop', async () => {
    const { pool, failures } = makePool({ size: 1, failToStart: true });
    for (let i = 0; i < 3; i++) await expect(pool.run({ kind: 'echo', tag: i })).rejects.toThrow('cannot open the database');
    await expect(pool.run({ kind: 'echo', tag: 4 })).rejects.toThrow('EVM workers fail to start');
    // Failed without a fourth start: no worker was tried for it.
    expect(failures).toHaveLength(3);
    expect(pool.stats().workers).toBe(0);
  });

  it('a job’s watchdog starts when its worker is ready, not when the worker was started', async () => {
    // Workers take tens of milliseconds to start here; a watchdog of 20 ms counted from the start would fire.
    const { pool } = makePool({ size: 1, watchdogMs: 20 });
    await expect(pool.run({ kind: 'echo', tag: 1 })).resolves.toMatchObject({ tag: 1 });
    expect(pool.stats().jobs).toMatchObject({ answered: 1, stuck: 0 });
  });

  it('a worker never ready is replaced after startTimeoutMs; its job fails with WorkerCrashedError', async () => {
    const { pool, failures, started } = makePool({ size: 1, neverReady: true, startTimeoutMs: 300 });
    await expect(pool.run({ kind: 'echo', tag: 1 })).rejects.toThrow('EVM worker not ready after 300 ms');
    expect(failures).toEqual(['did not start in time']);
    expect(pool.stats()).toMatchObject({ workers: 0, jobs: { crashed: 1 } });
    expect(started()).toEqual([]);
  });

  it('warm() starts every worker at once', async () => {
    const { pool } = makePool({ size: 2 });
    pool.warm();
    expect(pool.stats()).toMatchObject({ workers: 2, busy: 0 });
  });

  it('jobsPerWorker 2: a busy worker is handed its next job, which runs after the first, in order; idle workers go first', async () => {
    const { pool, started } = makePool({ size: 2, jobsPerWorker: 2 });
    await Promise.all([pool.run({ kind: 'sleep', tag: 0, ms: 50 }), pool.run({ kind: 'sleep', tag: 0, ms: 50 })]); // both ready
    const jobs = [1, 2, 3, 4, 5].map((tag) => pool.run({ kind: 'sleep', tag, ms: 200 }));
    // 1 and 2 run on the two threads (idle workers first); 3 and 4 wait in them; 5 in the queue.
    await until(
      'two running, two waiting in them, one queued',
      () => pool.stats(),
      (s) => s.workers === 2 && s.busy === 2 && s.queued === 1 && s.waiting === 2,
    );
    const answers = await Promise.all(jobs);
    expect(answers.map((a) => a.tag)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(answers.slice(0, 2).map((a) => a.threadId)).size).toBe(2);
    // Each thread ran its second job after its first: 3 and 4 start after 1 and 2.
    expect([...started().slice(2, 4)].sort()).toEqual([1, 2]);
    expect([...started().slice(4, 6)].sort()).toEqual([3, 4]);
    expect(pool.stats().jobs).toEqual({ answered: 7, busy: 0, aborted: 0, crashed: 0, stuck: 0 });
  });

  it('jobsPerWorker 2: a job waiting in a worker whose client went away is withdrawn and never runs', async () => {
    const { pool, started } = makePool({ size: 1, jobsPerWorker: 2 });
    const gone = new AbortController();
    await pool.run({ kind: 'echo', tag: 0 }); // the worker is ready
    const first = pool.run({ kind: 'sleep', tag: 1, ms: 300 });
    const withdrawn = pool.run({ kind: 'echo', tag: 2 }, { signal: gone.signal });
    const kept = pool.run({ kind: 'echo', tag: 3 });
    // 2 waits in the worker, 3 in the queue.
    await until(
      'one running, one waiting, one queued',
      () => pool.stats(),
      (s) => s.busy === 1 && s.queued === 1 && s.waiting === 1,
    );
    gone.abort();
    await expect(withdrawn).rejects.toBeInstanceOf(JobAbortedError);
    await expect(first).resolves.toMatchObject({ tag: 1 });
    await expect(kept).resolves.toMatchObject({ tag: 3 });
    expect(started()).toEqual([0, 1, 3]);
    expect(pool.stats().jobs).toEqual({ answered: 3, busy: 0, aborted: 1, crashed: 0, stuck: 0 });
  });

  it('jobsPerWorker 2: a withdrawal reaches a worker whose job never yields, before its next job starts', async () => {
    const { pool, started } = makePool({ size: 1, jobsPerWorker: 2 });
    const gone = new AbortController();
    await pool.run({ kind: 'echo', tag: 0 }); // the worker is ready
    // 1 holds the thread for 400 ms without reading a message; 2 waits in the worker.
    const first = pool.run({ kind: 'busy', tag: 1, ms: 400 });
    const withdrawn = pool.run({ kind: 'echo', tag: 2 }, { signal: gone.signal });
    await until(
      'one running, one waiting',
      () => pool.stats(),
      (s) => s.busy === 1 && s.waiting === 1,
    );
    gone.abort();
    await expect(withdrawn).rejects.toBeInstanceOf(JobAbortedError);
    await expect(first).resolves.toMatchObject({ tag: 1 });
    await expect(pool.run({ kind: 'echo', tag: 3 })).resolves.toMatchObject({ tag: 3 });
    expect(started()).toEqual([0, 1, 3]);
  });

  it('jobsPerWorker 2: a worker lost while closing refuses the job waiting in it; no new worker starts', async () => {
    const { pool, started } = makePool({ size: 1, jobsPerWorker: 2 });
    await pool.run({ kind: 'echo', tag: 0 }); // the worker is ready
    const lost = pool.run({ kind: 'exitAfter', tag: 1, ms: 300 });
    const waiting = pool.run({ kind: 'echo', tag: 2 });
    await until(
      'one running, one waiting in it',
      () => pool.stats(),
      (s) => s.busy === 1 && s.waiting === 1,
    );
    const closed = pool.close();
    await expect(lost).rejects.toBeInstanceOf(WorkerCrashedError);
    await expect(waiting).rejects.toBeInstanceOf(PoolClosedError);
    await closed;
    expect(started()).toEqual([0, 1]);
    expect(pool.stats()).toMatchObject({ workers: 0, busy: 0, queued: 0, waiting: 0 });
  });

  it('cpuSeconds: the CPU time of the workers’ threads, as each thread reads its own; the count outlives a replaced worker', async () => {
    const { pool } = makePool({ size: 1 });
    expect(pool.stats().cpuSeconds).toBe(0); // no worker yet
    const spun = await pool.run({ kind: 'cpu', tag: 1, ms: 300 });
    // The worker's own reading at the end of its job (/proc/thread-self): the pool's, taken after it, is at least that.
    expect(spun.cpuSeconds).toBeGreaterThanOrEqual(0.3);
    const seen = pool.stats().cpuSeconds;
    expect(seen).toBeGreaterThanOrEqual(spun.cpuSeconds!);
    await expect(pool.run({ kind: 'exit', tag: 2 })).rejects.toThrow(WorkerCrashedError);
    await pool.run({ kind: 'echo', tag: 3 });
    expect(pool.stats().cpuSeconds).toBeGreaterThanOrEqual(seen);
  });

  it('youngGenerationMb sets each worker’s V8 young generation', async () => {
    const { pool } = makePool({ size: 1, youngGenerationMb: 64 });
    await expect(pool.run({ kind: 'limits', tag: 1 })).resolves.toMatchObject({ youngGenerationMb: 64 });
  });

  it('jobsPerWorker 2: the job waiting in a worker that dies goes back to the queue and runs on its replacement', async () => {
    const { pool, started, failures } = makePool({ size: 1, jobsPerWorker: 2 });
    await expect(pool.run({ kind: 'echo', tag: 1 })).resolves.toMatchObject({ tag: 1 }); // the worker is ready
    const lost = pool.run({ kind: 'exit', tag: 2 });
    const next = pool.run({ kind: 'echo', tag: 3 });
    expect(pool.stats()).toMatchObject({ queued: 0, waiting: 1 }); // 3 was handed to the worker that exits
    await expect(lost).rejects.toThrow('EVM worker exited (code 3)');
    const answer = await next;
    expect(answer.tag).toBe(3);
    expect(started()).toEqual([1, 2, 3]);
    expect(failures).toEqual(['exited with code 3']);
    expect(pool.stats().jobs).toMatchObject({ answered: 2, crashed: 1 });
  });

  it('close: queued jobs are refused, the running one finishes, later jobs are refused, workers stop', async () => {
    const { pool, started } = makePool({ size: 1 });
    const running = pool.run({ kind: 'sleep', tag: 1, ms: 200 });
    const queued = pool.run({ kind: 'echo', tag: 2 });
    await until(
      'one running, one queued',
      () => pool.stats(),
      (s) => s.busy === 1 && s.queued === 1,
    );
    const closed = pool.close();
    await expect(queued).rejects.toBeInstanceOf(PoolClosedError);
    await expect(running).resolves.toMatchObject({ tag: 1 });
    await closed;
    await expect(pool.run({ kind: 'echo', tag: 3 })).rejects.toBeInstanceOf(PoolClosedError);
    expect(started()).toEqual([1]);
    expect(pool.stats()).toMatchObject({ workers: 0, busy: 0, queued: 0 });
  });

  it('close: each idle worker is asked to close and exits by itself (its database handle released inside), none terminated', async () => {
    const { pool, failures, closedThemselves } = makePool({ size: 2 });
    await Promise.all([pool.run({ kind: 'sleep', tag: 1, ms: 50 }), pool.run({ kind: 'sleep', tag: 2, ms: 50 })]);
    expect(pool.stats().workers).toBe(2);
    await pool.close();
    expect(closedThemselves()).toBe(2);
    expect(failures).toEqual([]);
  });

  it('close: a worker that does not close within closeGraceMs is terminated, and the log says so', async () => {
    // A worker that never serves the pool's messages never reads the close either.
    const { pool, failures, closedThemselves } = makePool({ size: 1, neverReady: true, closeGraceMs: 200 });
    pool.warm();
    const started = performance.now();
    await pool.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(closedThemselves()).toBe(0);
    expect(failures).toEqual(['did not close within 200 ms: terminated']);
  });
});
