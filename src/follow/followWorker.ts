import { parentPort, workerData } from 'node:worker_threads';
import { openChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { setThreadNice } from '../workers/threads.js';
import { Follower } from './follower.js';
import type { FollowerLog } from './followLoop.js';
import { Upstream } from './upstream.js';

/**
 * The follower's thread: it opens the network's database itself (LevelDB shared between the
 * threads of the process), fetches, executes and writes blocks, and tells the serving thread
 * what changed — a new head (so its caches forget the old one), the status for /health, and its
 * log lines (written by the serving thread's logger). Block execution never holds the thread that
 * answers requests.
 *
 * Messages to the parent: `{ type: 'head', reorg }`, `{ type: 'status', status }`,
 * `{ type: 'log', level, obj, msg }`, `{ type: 'stopped' }`. From the parent: `{ type: 'stop' }`.
 */

export interface FollowWorkerData {
  /** The worker module (read by the tsx bootstrap when running from sources). */
  entry: string;
  datadir: string;
  url: string;
  config: Config;
}

const data = workerData as FollowWorkerData;
// Block execution gives way to the serving thread on a busy CPU.
setThreadNice(data.config.follow.threadNice);
const port = parentPort!;
const log: FollowerLog = {
  info: (obj, msg) => port.postMessage({ type: 'log', level: 'info', obj, msg }),
  warn: (obj, msg) => port.postMessage({ type: 'log', level: 'warn', obj, msg }),
  error: (obj, msg) => port.postMessage({ type: 'log', level: 'error', obj, msg }),
  debug: (obj, msg) => port.postMessage({ type: 'log', level: 'debug', obj, msg }),
};
const chain = await openChain(data.datadir, data.config.caches);
const follower = new Follower(chain, new Upstream(data.url, { requestTimeoutMs: data.config.follow.requestTimeoutMs }), {
  settings: data.config.follow,
  importSettings: data.config.import,
  log,
  progress: process.stderr,
  onHead: (reorg) => port.postMessage({ type: 'head', reorg }),
  onStatus: (status) => port.postMessage({ type: 'status', status }),
});
port.on('message', (msg: { type: string }) => {
  if (msg.type !== 'stop') return;
  void follower
    .stop()
    .then(() => chain.close())
    .finally(() => port.postMessage({ type: 'stopped' }));
});
follower.start();
