/**
 * Where a subscriber's notifications go: one connection, as the transport offers it. Declared
 * here, structurally, so that the live layer needs nothing of `rpc/`: the session's
 * `NotificationChannel` (`rpc/method.ts`) fits it as it is. Frames are whole messages, serialized
 * by the hub once and shared between subscribers.
 */
export interface SubscriberChannel {
  /** Sends one frame; false when the connection is closed (or was just closed for its backlog). */
  send(frame: string): boolean;
  /** Runs `fn` once when the connection closes (its subscriptions end with it); at once if it has. */
  onClose(fn: () => void): void;
  /** Whether the connection is still open. */
  isOpen(): boolean;
}
