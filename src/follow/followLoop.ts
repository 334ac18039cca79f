import type { Config } from '../config/settings.js';
import { DomainError } from '../errors/domainError.js';
import type { BlockStateStats } from './blockState.js';
import type { Upstream } from './upstream.js';

/**
 * What every follower shares, whatever the chain: the loop that keeps a datadir at the upstream's
 * head (`Follower` for Ethereum, `StarknetFollower`), its status for /health, and its handling of
 * faults. A round (`syncOnce`) brings the datadir to the upstream's head; between rounds the loop
 * sleeps `follow.pollIntervalMs`, or less when the upstream pushes a new head. A round that fails
 * (unreachable, slow, rate-limited, garbage, a block that fails its checks) writes nothing more and
 * is retried after a backoff of 250 ms doubling to `follow.retryMaxMs`, with one log line per
 * change of state, not per retry. A {@link FollowStoppedError} (another chain, a reorganisation
 * past the limit) ends the loop: /health then answers 503 with the reason.
 */

/** How often a WebSocket upstream is still asked for its head, in case a new head was not pushed. */
export const WS_FALLBACK_POLL_MS = 2000;

/** First wait after a failed round; doubled after each further failure up to `follow.retryMaxMs`. */
const FIRST_BACKOFF_MS = 250;

export interface FollowStatus {
  upstream: string;
  state: 'starting' | 'following' | 'retrying' | 'stopped';
  upstreamHead: bigint | undefined;
  /** Date.now() when the last block was written (or following started). */
  lastBlockAt: number;
  /** Date.now() when the last round with the upstream ended well (or following started). */
  lastContactAt: number;
  error?: string;
  /** Header rules followed blocks broke under lenient header checks, by rule (counts since start). */
  headerDeviations?: Partial<Record<string, number>>;
  /** An archive from block N: the state fetched for the followed blocks (`blockState.ts`). */
  stateFetch?: BlockStateStats;
}

export interface FollowerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** What both followers are given. */
export interface FollowLoopOptions {
  settings: Config['follow'];
  /** Called after each write that moves the head; `reorg` when canonical blocks were replaced. */
  onHead?: (reorg: boolean) => void;
  log: FollowerLog;
  /** Called when the status changes (state, upstream head, a new block). */
  onStatus?: (status: FollowStatus) => void;
}

/** The follower cannot go on (a chain mismatch, a reorganisation past the limit): it stops. */
export class FollowStoppedError extends DomainError {
  override readonly name = 'FollowStoppedError';
}

export abstract class FollowLoop {
  protected readonly status_: FollowStatus;
  protected stopped = false;
  private wake: (() => void) | undefined;
  /** A new head came while a round was running: the next sleep returns at once, so it is not missed. */
  private woken = false;
  private loop: Promise<void> | undefined;

  constructor(
    protected readonly upstream: Upstream,
    protected readonly o: FollowLoopOptions,
  ) {
    this.status_ = { upstream: upstream.shownUrl, state: 'starting', upstreamHead: undefined, lastBlockAt: Date.now(), lastContactAt: Date.now() };
  }

  /** Refuses an upstream that serves another chain ({@link FollowStoppedError}). */
  protected abstract checkSameChain(): Promise<void>;
  /** Brings the datadir to the upstream's head as it is now (through a reorganisation if needed). */
  protected abstract syncOnce(): Promise<void>;
  /** Subscribes to the upstream's new heads (a WebSocket upstream), calling `wake` on each. */
  protected abstract subscribeNewHeads(wake: () => void): void;

  status(): FollowStatus {
    return { ...this.status_ };
  }

  protected notify(): void {
    this.o.onStatus?.(this.status());
  }

  /** A block (or a reorganisation's switch) was written: the head moved. */
  protected headMoved(reorg: boolean): void {
    this.status_.lastBlockAt = Date.now();
    this.o.onHead?.(reorg);
    this.notify();
  }

  /**
   * The upstream's blocks from..to, batch by batch in order: `follow.batchBlocks` blocks a
   * request, `follow.prefetchBatches` requests in flight, so network latency overlaps the caller's
   * work on the batch before. Ends early when the follower stops.
   */
  protected async *prefetched<T>(from: number, to: number, fetch: (from: number, count: number) => Promise<T[]>): AsyncGenerator<T[]> {
    const windows: Array<Promise<T[]>> = [];
    let next = from;
    const fill = () => {
      while (windows.length < this.o.settings.prefetchBatches && next <= to && !this.stopped) {
        const count = Math.min(this.o.settings.batchBlocks, to - next + 1);
        const batch = fetch(next, count);
        batch.catch(() => undefined); // awaited in order below (or abandoned when the caller stops)
        windows.push(batch);
        next += count;
      }
    };
    fill();
    while (windows.length > 0 && !this.stopped) {
      const batch = await windows.shift()!;
      fill();
      yield batch;
    }
  }

  /** Checks that the upstream serves this chain, then follows it until `stop()`. */
  start(): void {
    this.loop ??= this.run();
  }

  /**
   * One round without a loop (`tracenode follow`): checks the chain, then imports up to the
   * upstream's head as it is now (through a reorganisation if needed). Errors are thrown.
   */
  async runOnce(): Promise<void> {
    await this.checkSameChain();
    await this.syncOnce();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    this.upstream.close();
  }

  private async run(): Promise<void> {
    let backoff = FIRST_BACKOFF_MS;
    let lastProblem: string | undefined;
    let checked = false;
    while (!this.stopped) {
      try {
        if (!checked) {
          await this.checkSameChain();
          checked = true;
          this.subscribeNewHeads(() => this.nudge());
        }
        await this.syncOnce();
        if (lastProblem !== undefined) this.o.log.info({ upstream: this.upstream.shownUrl }, 'upstream: following again');
        lastProblem = undefined;
        backoff = FIRST_BACKOFF_MS;
        this.status_.state = 'following';
        this.status_.error = undefined;
        this.status_.lastContactAt = Date.now();
        this.notify();
        // With new heads pushed, polling is only the fallback for a lost subscription.
        await this.sleep(this.upstream.isWebSocket ? Math.max(this.o.settings.pollIntervalMs, WS_FALLBACK_POLL_MS) : this.o.settings.pollIntervalMs);
      } catch (err) {
        if (err instanceof FollowStoppedError) {
          this.status_.state = 'stopped';
          this.status_.error = err.message;
          this.notify();
          this.o.log.error({ upstream: this.upstream.shownUrl, reason: err.message }, 'following stopped');
          return;
        }
        const problem = (err as Error).message;
        this.status_.state = 'retrying';
        this.status_.error = problem;
        this.notify();
        if (problem !== lastProblem) this.o.log.warn({ upstream: this.upstream.shownUrl, reason: problem }, 'upstream: retrying with backoff');
        lastProblem = problem;
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, this.o.settings.retryMaxMs);
      }
    }
  }

  private nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.woken) {
        this.woken = false;
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        this.woken = false;
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
    });
  }
}

/**
 * `/health` of a following network: unhealthy (503) while the upstream is more than `maxLagBlocks`
 * ahead, while no round with the upstream has succeeded for `maxSilenceMs` (it may have moved on
 * without us: the lag cannot be known), or when following stopped, so a load balancer sends the
 * traffic to replicas that are current.
 */
export function followHealth(head: { number: number; hash: string }, f: FollowStatus, limits: { maxLagBlocks: number; maxSilenceMs: number }) {
  const lag = f.upstreamHead === undefined ? undefined : Math.max(0, Number(f.upstreamHead) - head.number);
  const silentMs = Date.now() - f.lastContactAt;
  const ok = f.state !== 'stopped' && lag !== undefined && lag <= limits.maxLagBlocks && silentMs <= limits.maxSilenceMs;
  return {
    ok,
    head,
    upstream: f.upstream,
    upstreamHead: f.upstreamHead === undefined ? null : Number(f.upstreamHead),
    lagBlocks: lag ?? null,
    secondsSinceLastBlock: Math.round((Date.now() - f.lastBlockAt) / 100) / 10,
    secondsSinceUpstream: Math.round(silentMs / 100) / 10,
    following: f.state,
    ...(f.error ? { error: f.error } : {}),
  };
}
