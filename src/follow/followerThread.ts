import { Worker } from 'node:worker_threads';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { workerModule } from '../workers/threads.js';
import type { FollowerLog, FollowStatus } from './followLoop.js';
import type { FollowWorkerData } from './followWorker.js';

/**
 * The serving thread's side of a follower running in its own thread (`followWorker.ts`): it
 * keeps the follower's last status for /health, makes the chain store forget its cached head when
 * a block was written, and writes the follower's log lines. A follower thread that dies is
 * reported as stopped, with the reason, and /health turns 503. `onHead` hears of every head the
 * follower wrote, after the store forgot its cached head (subscriptions and filters read the
 * change from the store).
 */
export class FollowerThread {
  private readonly worker: Worker;
  private last: FollowStatus;
  private readonly stoppedP: Promise<void>;
  /** The follower said it stopped, or was asked to: its thread's end (terminate() exits with 1) is not a failure. */
  private stopping = false;

  constructor(chain: EthereumChain, url: string, config: Config, log: FollowerLog, shownUrl: string, onHead?: (reorg: boolean) => void) {
    this.last = { upstream: shownUrl, state: 'starting', upstreamHead: undefined, lastBlockAt: Date.now(), lastContactAt: Date.now() };
    const { script, entry } = workerModule(import.meta.url, 'followWorker');
    const data: FollowWorkerData = { entry, datadir: chain.datadir, url, config };
    this.worker = new Worker(script, { workerData: data });
    this.stoppedP = new Promise<void>((resolve) => {
      this.worker.once('exit', (code) => {
        if (this.stopping) {
          this.last = { ...this.last, state: 'stopped' };
        } else if (this.last.state !== 'stopped') {
          this.last = { ...this.last, state: 'stopped', error: this.last.error ?? `the follower thread exited (code ${code})` };
          if (code !== 0) log.error({ code }, 'follower thread exited: following stopped');
        }
        resolve();
      });
    });
    this.worker.on('error', (err) => {
      this.last = { ...this.last, state: 'stopped', error: `the follower thread failed: ${err.message}` };
      log.error({ reason: err.message }, 'follower thread failed: following stopped');
    });
    this.worker.on('message', (msg: { type: string; reorg?: boolean; status?: FollowStatus; level?: keyof FollowerLog; obj?: object; msg?: string }) => {
      switch (msg.type) {
        case 'head':
          // Written by the follower's own handle on the same database: forget the cached head.
          chain.store.invalidateHead();
          onHead?.(msg.reorg === true);
          break;
        case 'status':
          this.last = msg.status!;
          break;
        case 'log':
          log[msg.level!](msg.obj ?? {}, msg.msg ?? '');
          break;
        case 'stopped':
          this.stopping = true;
          void this.worker.terminate();
          break;
      }
    });
  }

  status(): FollowStatus {
    return { ...this.last };
  }

  /** Asks the follower to stop after the block it is writing, then waits for its thread (at most `graceMs`). */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopping = true;
    this.worker.postMessage({ type: 'stop' });
    const timer = setTimeout(() => void this.worker.terminate(), graceMs);
    await this.stoppedP;
    clearTimeout(timer);
  }
}
