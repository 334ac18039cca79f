/**
 * The signal that a request's client went away, made only when a handler asks for it.
 *
 * Why: an AbortController costs ~1.5 µs to create and more in garbage (its EventTarget), on every
 * HTTP request, while only long scans (eth_getLogs, trace_filter) ever look at the signal. The
 * transport calls `abort()` when the connection closes early; a signal asked for afterwards is
 * already aborted.
 */
export class ClientGone {
  private controller: AbortController | undefined;
  private gone = false;

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

  /** Marks the client gone and fires the signal if it exists. */
  abort(): void {
    if (this.gone) return;
    this.gone = true;
    this.controller?.abort();
  }
}
