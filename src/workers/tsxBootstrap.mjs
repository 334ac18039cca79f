// Runs an EVM worker from the TypeScript sources (tests, `tsx src/cli.ts`): registers tsx in the
// worker thread, then loads the module named by workerData.entry. The built dist/ starts its
// workers from JavaScript directly and never loads this file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
