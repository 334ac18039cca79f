// A worker for the pool's tests (test/workers/pool.test.ts): serves the pool's protocol with the
// EVM worker's own job loop (src/workers/jobLoop.ts), with jobs that take a known time, spin, fail
// or crash. Started through src/workers/tsxBootstrap.mjs (workerData.entry names this file).
// workerData: { log: SharedArrayBuffer } — each job's tag is appended there when it starts, so
// the test sees which jobs ran and in what order, whatever thread ran them; its last slot counts
// the workers that closed themselves when the pool asked (the job loop's `onClose`).
import { parentPort, resourceLimits, threadId, workerData } from 'node:worker_threads';
import { threadCpuSeconds } from '../../src/proc/threadCpu.js';
import { serveJobs } from '../../src/workers/jobLoop.js';

type Job = { kind: 'echo' | 'sleep' | 'busy' | 'cpu' | 'spin' | 'exit' | 'exitAfter' | 'fail' | 'limits'; tag: number; ms?: number };

const data = workerData as { log: SharedArrayBuffer; failToStart: boolean; neverReady: boolean };
const log = new Int32Array(data.log);
if (data.failToStart) throw new Error('cannot open the database');
if (data.neverReady) {
  // Stays alive without ever saying it is ready or reading a job (a start that hangs).
  setInterval(() => undefined, 60_000);
} else {
  serveJobs(
    parentPort!,
    (job) => run(job as Job),
    (err) => ({ message: (err as Error).message }),
    async () => void Atomics.add(log, log.length - 1, 1),
  );
}

async function run(job: Job): Promise<unknown> {
  const at = Atomics.add(log, 0, 1) + 1;
  Atomics.store(log, at, job.tag);
  switch (job.kind) {
    case 'sleep':
      await new Promise((r) => setTimeout(r, job.ms));
      return { tag: job.tag, threadId };
    case 'busy': {
      // Holds the thread for `ms` without yielding: no message is read meanwhile.
      const until = performance.now() + (job.ms ?? 0);
      while (performance.now() < until);
      return { tag: job.tag, threadId };
    }
    case 'cpu': {
      // Spins until its own thread has used `ms` of CPU (however long a busy machine makes that take); answers the thread's CPU seconds.
      let used = threadCpuSeconds() ?? 0;
      while (used < (job.ms ?? 0) / 1000) {
        for (let i = 0; i < 100_000; i++);
        used = threadCpuSeconds() ?? Number.POSITIVE_INFINITY;
      }
      return { tag: job.tag, threadId, cpuSeconds: used };
    }
    case 'limits':
      return { tag: job.tag, threadId, youngGenerationMb: resourceLimits.maxYoungGenerationSizeMb };
    case 'exitAfter':
      await new Promise((r) => setTimeout(r, job.ms));
      process.exit(3);
      break;
    case 'spin':
      for (;;); // never answers: the watchdog must replace this worker
    case 'exit':
      process.exit(3);
      break;
    case 'fail':
      throw new Error(`job ${job.tag} failed`);
  }
  return { tag: job.tag, threadId };
}
