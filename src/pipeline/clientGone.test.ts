import { describe, expect, it } from 'vitest';
import { ClientGone } from './clientGone.js';

describe('ClientGone', () => {
  it('a signal asked for before the client goes fires when it goes, once', () => {
    const gone = new ClientGone();
    const signal = gone.signal;
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    expect([signal.aborted, gone.aborted]).toEqual([false, false]);
    gone.abort();
    gone.abort();
    expect([signal.aborted, gone.aborted, fired]).toEqual([true, true, 1]);
    expect(gone.signal).toBe(signal);
  });

  it('a signal asked for after the client went is already aborted', () => {
    const gone = new ClientGone();
    gone.abort();
    expect(gone.aborted).toBe(true);
    expect(gone.signal.aborted).toBe(true);
  });

  it('listeners on the object itself fire once when the client goes, without making a signal; a removed one does not', () => {
    const gone = new ClientGone();
    const fired: string[] = [];
    const a = () => fired.push('a');
    const b = () => fired.push('b');
    gone.addEventListener('abort', a);
    gone.addEventListener('abort', b);
    gone.removeEventListener('abort', b);
    gone.abort();
    gone.abort();
    expect(fired).toEqual(['a']);
    expect((gone as unknown as { controller?: AbortController }).controller).toBeUndefined();
    // Added after the client went: never fires (as EventTarget).
    gone.addEventListener('abort', b);
    expect(fired).toEqual(['a']);
  });
});
