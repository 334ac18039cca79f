import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteBacklog } from './writeBacklog.js';

/**
 * A socket as the accounting sees it: `buffered` is what Node holds (frames not yet handed to the
 * kernel whole), `unwritten` the kernel write queue of the frame under way.
 */
function fakeSocket() {
  const socket = {
    buffered: 0,
    unwritten: undefined as number | undefined,
    gauge: { buffered: () => socket.buffered, unwritten: () => socket.unwritten },
    /** A frame of `bytes` that stays queued. */
    queue: (bytes: number) => () => {
      socket.buffered += bytes;
    },
  };
  return socket;
}

const LIMIT = 1000;
const STALL_MS = 400;

describe('WriteBacklog', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the largest queued frame is not counted, wherever it is in the queue', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    expect(b.standing(LIMIT)).toBe('oneFrame');
    b.send(s.queue(1000));
    expect(b.standing(LIMIT)).toBe('oneFrame'); // 1,000 behind it: at the limit
    b.send(s.queue(1));
    expect(b.standing(LIMIT)).toBe('over');

    // A small frame being written ahead of a large one: the large one is still the one left out.
    const t = fakeSocket();
    const c = new WriteBacklog(t.gauge, STALL_MS);
    c.send(t.queue(50));
    c.send(t.queue(10_000));
    expect(c.standing(LIMIT)).toBe('oneFrame');
    c.send(t.queue(951));
    expect(c.standing(LIMIT)).toBe('over');
  });

  it('frames flushed leave the account: the next largest is left out', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    b.send(s.queue(900));
    b.send(s.queue(800));
    expect(b.standing(LIMIT)).toBe('over'); // 1,700 besides the 10,000
    s.buffered -= 10_000; // the large frame reached the kernel
    expect(b.standing(LIMIT)).toBe('oneFrame'); // 800 besides the 900
    s.buffered -= 900;
    expect(b.standing(LIMIT)).toBe('within');
  });

  it('a frame the kernel took at once adds nothing', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(() => {});
    b.send(s.queue(600));
    b.send(s.queue(600));
    expect(b.standing(LIMIT)).toBe('oneFrame');
    b.send(s.queue(401));
    expect(b.standing(LIMIT)).toBe('over');
  });

  it('one frame over the limit with no byte moving: onStall after exactly the stall period, once', () => {
    const s = fakeSocket();
    s.unwritten = 5000;
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    const onStall = vi.fn();
    b.watchStall('answers', LIMIT, onStall);
    vi.advanceTimersByTime(STALL_MS - 1);
    expect(onStall).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onStall).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(onStall).toHaveBeenCalledTimes(1);
  });

  it('bytes moving inside the frame (the kernel queue shrinking) put the stall off', () => {
    const s = fakeSocket();
    s.unwritten = 9000;
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    const onStall = vi.fn();
    b.watchStall('answers', LIMIT, onStall);
    for (let i = 0; i < 20; i++) {
      vi.advanceTimersByTime(STALL_MS - 100);
      s.unwritten -= 100;
    }
    expect(onStall).not.toHaveBeenCalled();
    // Then it stops: called once four checks in a row (100 ms apart) have seen nothing move, the
    // first of them the one after the last move.
    vi.advanceTimersByTime(STALL_MS);
    expect(onStall).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(onStall).toHaveBeenCalledTimes(1);
  });

  it('a frame flushed whole counts as progress where the kernel queue is not known', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    b.send(s.queue(20_000));
    const onStall = vi.fn();
    b.watchStall('answers', 15_000, onStall);
    vi.advanceTimersByTime(STALL_MS - 100);
    s.buffered -= 10_000;
    vi.advanceTimersByTime(STALL_MS);
    expect(onStall).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(onStall).toHaveBeenCalledTimes(1);
  });

  it('the watch ends when the socket is back within the limit; stop() ends it too', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(10_000));
    const onStall = vi.fn();
    b.watchStall('answers', LIMIT, onStall);
    s.buffered = 0;
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(onStall).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);

    b.send(s.queue(10_000));
    b.watchStall('answers', LIMIT, onStall);
    b.stop();
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(onStall).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with two watches, the first one still over the limit is the one called', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    b.send(s.queue(20_000));
    const notifications = vi.fn();
    const answers = vi.fn();
    b.watchStall('notifications', 800, notifications);
    b.send(s.queue(10));
    b.watchStall('answers', 1600, answers);
    vi.advanceTimersByTime(STALL_MS);
    expect(notifications).toHaveBeenCalledTimes(1);
    expect(answers).not.toHaveBeenCalled();
  });

  it('many small frames flushed one by one leave nothing behind (the queue is compacted)', () => {
    const s = fakeSocket();
    const b = new WriteBacklog(s.gauge, STALL_MS);
    for (let i = 0; i < 5000; i++) {
      b.send(s.queue(100));
      s.buffered -= 100;
    }
    b.send(s.queue(2000));
    expect(b.standing(LIMIT)).toBe('oneFrame');
    expect((b as unknown as { frames: unknown[] }).frames.length).toBe(1);
  });
});
