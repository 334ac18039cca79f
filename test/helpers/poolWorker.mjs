// A worker for the pool's tests (test/workers/pool.test.ts): answers the pool's `{ id, job }`
// messages as the EVM worker does, with jobs that take a known time, spin, fail or crash.
// workerData: { log: SharedArrayBuffer } — each job's tag is appended there when it starts, so
// the test sees which jobs ran and in what order, whatever thread ran them.
import { parentPort, threadId, workerData } from 'node:worker_threads';

const log = new Int32Array(workerData.log);
if (workerData.failToStart) throw new Error('cannot open the database');
if (workerData.neverReady) {
  // Stays alive without ever saying it is ready or reading a job (a start that hangs).
  setInterval(() => undefined, 60_000);
} else {
  parentPort.postMessage({ ready: true });
  parentPort.on('message', run);
}

async function run({ id, job }) {
  const at = Atomics.add(log, 0, 1) + 1;
  Atomics.store(log, at, job.tag);
  switch (job.kind) {
    case 'sleep':
      await new Promise((r) => setTimeout(r, job.ms));
      return parentPort.postMessage({ id, ok: true, value: { tag: job.tag, threadId } });
    case 'spin':
      for (;;); // never answers: the watchdog must replace this worker
    case 'exit':
      process.exit(3);
      break;
    case 'fail':
      return parentPort.postMessage({ id, ok: false, error: { message: `job ${job.tag} failed` } });
    default:
      return parentPort.postMessage({ id, ok: true, value: { tag: job.tag, threadId } });
  }
}
