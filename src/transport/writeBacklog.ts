import type { WebSocket } from 'ws';

/**
 * What a WebSocket's peer has left unread, for the memory bound of `websocket.ts`.
 *
 * A socket's `bufferedAmount` holds every frame not yet handed to the kernel, the one being
 * written included: a client that reads everything still shows a 40 MB answer there for as long
 * as it takes to receive it. So the bound leaves one frame out, the largest queued — the one being
 * written, or about to be once the small frames ahead of it are through:
 * - `over`: the bytes queued besides that frame pass the limit: answers (or notifications) the
 *   client has not got to pile up; the caller closes at once;
 * - `oneFrame`: only that frame keeps the socket over the limit: a client receiving a large
 *   answer, unless it stops taking bytes; {@link WriteBacklog.watchStall} closes it when no byte
 *   moves for `stallMs`;
 * - `within`: at or under the limit.
 * Memory per socket stays under the limit plus one frame.
 *
 * Frames are counted by what each `send` adds to `bufferedAmount` (nothing when the kernel took it
 * at once), so the bytes flushed are those counted less `bufferedAmount`; control frames ws sends
 * by itself (pings, pongs: a few bytes) are not counted, which can only keep a flushed frame in
 * the queue a little longer. Progress inside the frame being written is the kernel write queue of
 * the socket changing (the figure Node's own socket timeouts watch); where Node does not expose
 * it, progress is a frame flushed whole.
 */

/** What the accounting reads of a socket. */
export interface WriteGauge {
  /** Bytes queued and not yet handed to the kernel, the frame being written included (ws's `bufferedAmount`). */
  buffered(): number;
  /** Bytes of the write under way the kernel has yet to take; undefined where Node does not tell. */
  unwritten(): number | undefined;
}

/** The gauge of a ws socket: its `bufferedAmount`, and the write queue of the TCP handle under it. */
export function webSocketGauge(socket: WebSocket): WriteGauge {
  const tcp = socket as unknown as { _socket?: { _handle?: { writeQueueSize?: unknown } | null } };
  return {
    buffered: () => socket.bufferedAmount,
    unwritten: () => {
      const size = tcp._socket?._handle?.writeQueueSize;
      return typeof size === 'number' ? size : undefined;
    },
  };
}

/** How a socket's queued bytes stand against a limit (see the module comment). */
export type Standing = 'within' | 'oneFrame' | 'over';

/**
 * A stall is this many checks in a row, `stallMs / STALL_CHECKS` apart, without progress: time the
 * event loop spent blocked (no I/O ran, so no progress could be seen) counts as one check at most.
 */
const STALL_CHECKS = 4;

interface Frame {
  /** Bytes counted up to and including this frame. */
  readonly end: number;
  readonly size: number;
}

/** One socket's queued frames and the stall watch over them. */
export class WriteBacklog {
  /** Bytes the counted frames added to the socket's queue since it opened. */
  private counted = 0;
  /** Frames not known to be flushed, oldest first from `first`. */
  private frames: Frame[] = [];
  private first = 0;
  /** Frames larger than every frame after them, oldest first from `firstMax`: the first is the largest queued. */
  private maxima: Frame[] = [];
  private firstMax = 0;

  private readonly watches = new Map<string, { limit: number; onStall: () => void }>();
  private timer: NodeJS.Timeout | undefined;
  private quietChecks = 0;
  private flushedMark = 0;
  private unwrittenMark: number | undefined;

  constructor(
    private readonly gauge: WriteGauge,
    private readonly stallMs: number,
  ) {}

  /** Runs `write` (one `socket.send`) and counts the bytes it queued. */
  send(write: () => void): void {
    const before = this.gauge.buffered();
    this.dropFlushed(before);
    write();
    const size = this.gauge.buffered() - before;
    if (size <= 0) return;
    this.counted += size;
    const frame = { end: this.counted, size };
    this.frames.push(frame);
    while (this.maxima.length > this.firstMax && this.maxima[this.maxima.length - 1].size <= size) this.maxima.pop();
    this.maxima.push(frame);
  }

  /** How the queued bytes stand against `limit`. */
  standing(limit: number): Standing {
    const buffered = this.gauge.buffered();
    if (buffered <= limit) return 'within';
    return buffered - this.largestQueued(buffered) > limit ? 'over' : 'oneFrame';
  }

  /**
   * Calls `onStall` (once) if the socket stays over `limit` while no byte moves for `stallMs`; the
   * watch ends when it is back within. One watch per `key`: watching again replaces it.
   */
  watchStall(key: string, limit: number, onStall: () => void): void {
    this.watches.set(key, { limit, onStall });
    if (this.timer !== undefined) return;
    this.quietChecks = 0;
    this.flushedMark = this.flushed();
    this.unwrittenMark = this.gauge.unwritten();
    this.timer = setInterval(() => this.check(), Math.max(1, Math.ceil(this.stallMs / STALL_CHECKS)));
    this.timer.unref();
  }

  /** Ends every watch (the socket closed). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watches.clear();
  }

  private check(): void {
    const flushed = this.flushed();
    const unwritten = this.gauge.unwritten();
    if (flushed > this.flushedMark || unwritten !== this.unwrittenMark) this.quietChecks = 0;
    else this.quietChecks++;
    this.flushedMark = Math.max(this.flushedMark, flushed);
    this.unwrittenMark = unwritten;
    for (const [key, watch] of this.watches) if (this.standing(watch.limit) === 'within') this.watches.delete(key);
    const [stalled] = this.watches.values();
    if (stalled === undefined) this.stop();
    else if (this.quietChecks >= STALL_CHECKS) {
      this.stop();
      stalled.onStall();
    }
  }

  /** Bytes of the counted frames handed to the kernel (a lower bound: uncounted frames are in `buffered`). */
  private flushed(buffered = this.gauge.buffered()): number {
    return this.counted - buffered;
  }

  /** The size of the largest frame not yet flushed. */
  private largestQueued(buffered: number): number {
    this.dropFlushed(buffered);
    return this.firstMax < this.maxima.length ? this.maxima[this.firstMax].size : 0;
  }

  /** Forgets the frames flushed whole. */
  private dropFlushed(buffered: number): void {
    const flushed = this.flushed(buffered);
    while (this.first < this.frames.length && this.frames[this.first].end <= flushed) {
      if (this.maxima[this.firstMax] === this.frames[this.first]) this.firstMax++;
      this.first++;
    }
    if (this.first > 0 && (this.first === this.frames.length || (this.first > 1024 && this.first * 2 > this.frames.length))) {
      this.frames = this.frames.slice(this.first);
      this.maxima = this.maxima.slice(this.firstMax);
      this.first = 0;
      this.firstMax = 0;
    }
  }
}
