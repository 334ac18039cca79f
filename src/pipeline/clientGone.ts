import type { ClientSignal } from '../rpc/method.js';

/**
 * The signal that a request's client went away, made only when a handler asks for it.
 *
 * Why: an AbortController costs ~1.5 µs to create and more in garbage (its EventTarget), on every
 * HTTP request, while only long scans (eth_getLogs, trace_filter) ever look at the signal. The
 * transport calls `abort()` when the connection closes early; a signal asked for afterwards is
 * already aborted. The EVM workers' queue, which every eth_call passes through, listens on this
 * object itself (`addEventListener`, as on an AbortSignal), so no call makes a controller.
 */
export class ClientGone implements ClientSignal {
  private controller: AbortController | undefined;
  private gone = false;
  private listeners: Array<() => void> | undefined;

  /** The abort signal (created on first use). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** Whether the client went away (without creating the signal). */
  get aborted(): boolean {
    return this.gone;
  }

  /** Runs `listener` once when the client goes away (as an AbortSignal's listener, without one). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.gone) return; // as EventTarget: an event already fired is not fired again
    if (this.listeners === undefined) this.listeners = [];
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners!.splice(at, 1);
  }

  /** Marks the client gone and fires the signal if it exists, and the listeners. */
  abort(): void {
    if (this.gone) return;
    this.gone = true;
    this.controller?.abort();
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
