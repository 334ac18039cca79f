import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { NotificationsUnsupportedError, ServerError } from '../../src/rpc/errors.js';
import { createMethodTable, defineMethod, type MethodDefinition, type MethodTable } from '../../src/rpc/method.js';
import type { NetworkHandle } from '../../src/transport/networks.js';

/**
 * A toy method table for transport tests: no chain, just behaviours the envelope must handle.
 *
 * | method            | does |
 * |-------------------|------|
 * | `test_echo`       | returns its `params` as given (null when absent) |
 * | `test_add`        | `[a, b]` numbers → `a + b`; uses `defineMethod`, so it has geth's -32602 rules |
 * | `test_throw`      | throws a plain `Error` whose message must never reach the client |
 * | `test_rpcError`   | throws `ServerError` (-32000) `custom failure` with data `{ reason: 'because' }` |
 * | `test_sleep`      | `[ms]` → waits, returns `ms` |
 * | `test_hold`       | runs until the test calls `ctx.holds.release()`, returns `true` (a request kept in flight as long as the test needs) |
 * | `test_record`     | appends its params to `ctx.recorded` (notification tests), returns `true` |
 * | `test_bigint`     | returns `1n`, which JSON cannot encode (→ -32603) |
 * | `test_undefined`  | returns nothing (→ `result: null`) |
 * | `test_bigAnswer`  | `[n]` → a string of `n` `x`s |
 * | `test_notify`     | `[n]` → sends one notification whose `result` is `n` `x`s ({@link toyNotification}), returns what the channel's `send` said |
 */
export interface ToyContext {
  /** Params of every `test_record` call, in arrival order. */
  recorded: unknown[];
  /** The `test_hold` calls running, and their release. */
  holds: Holds;
}

/** Calls kept running until the test lets them go. */
export class Holds {
  private waiting: Array<() => void> = [];
  /** How many run now. */
  get running(): number {
    return this.waiting.length;
  }
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  /** Ends every call that runs now. */
  release(): void {
    for (const done of this.waiting.splice(0)) done();
  }
}

const hold: MethodDefinition<ToyContext> = {
  name: 'test_hold',
  async call(ctx) {
    await ctx.holds.wait();
    return true;
  },
};

/** Message of the plain Error `test_throw` raises; tests assert it never leaves the server. */
export const TOY_SECRET_MESSAGE = 'toy failure: secret internal detail';

const echo: MethodDefinition<ToyContext> = {
  name: 'test_echo',
  async call(_ctx, params) {
    return params ?? null;
  },
};

const add = defineMethod({
  name: 'test_add',
  params: [z.number(), z.number()],
  handler: (_ctx: ToyContext, [a, b]) => a + b,
});

const throwPlain: MethodDefinition<ToyContext> = {
  name: 'test_throw',
  async call() {
    throw new Error(TOY_SECRET_MESSAGE);
  },
};

const rpcError: MethodDefinition<ToyContext> = {
  name: 'test_rpcError',
  async call() {
    throw new ServerError('custom failure', { reason: 'because' });
  },
};

const sleepMethod = defineMethod({
  name: 'test_sleep',
  params: [z.number().int().min(0).max(10_000)],
  handler: async (_ctx: ToyContext, [ms]) => {
    await sleep(ms);
    return ms;
  },
});

const record: MethodDefinition<ToyContext> = {
  name: 'test_record',
  async call(ctx, params) {
    ctx.recorded.push(params);
    return true;
  },
};

const bigint: MethodDefinition<ToyContext> = {
  name: 'test_bigint',
  async call() {
    return 1n;
  },
};

const nothing: MethodDefinition<ToyContext> = {
  name: 'test_undefined',
  async call() {
    return undefined;
  },
};

const MAX_TOY_BYTES = 100_000_000;

const bigAnswer = defineMethod({
  name: 'test_bigAnswer',
  params: [z.number().int().min(0).max(MAX_TOY_BYTES)],
  handler: (_ctx: ToyContext, [n]) => 'x'.repeat(n),
});

/** The frame `test_notify` sends: an `eth_subscription`-shaped notification of subscription `0x1`. */
export const toyNotification = (n: number): string =>
  `{"jsonrpc":"2.0","method":"test_subscription","params":{"subscription":"0x1","result":"${'x'.repeat(n)}"}}`;

const notify = defineMethod({
  name: 'test_notify',
  params: [z.number().int().min(0).max(MAX_TOY_BYTES)],
  handler: (_ctx: ToyContext, [n], req) => {
    const channel = req?.session.notifications;
    if (channel === undefined) throw new NotificationsUnsupportedError();
    return channel.send(toyNotification(n));
  },
});

/** The toy table (see {@link ToyContext} for what each method does). */
export const toyMethods: MethodTable<ToyContext> = createMethodTable<ToyContext>([
  add,
  hold,
  bigAnswer,
  bigint,
  echo,
  notify,
  record,
  rpcError,
  sleepMethod,
  throwPlain,
  nothing,
]);

/** A fresh context for {@link toyMethods}. */
export function createToyContext(): ToyContext {
  return { recorded: [], holds: new Holds() };
}

/**
 * A network serving the toy table; `health` reports `healthy` (mutable, so tests can flip it).
 * Pass `methods` to serve a subset or another table under the same shape.
 */
export function toyNetwork(
  opts: { name?: string; hostnames?: string[]; methods?: MethodTable<ToyContext> } = {},
): NetworkHandle & { context: ToyContext; healthy: boolean } {
  const network = {
    name: opts.name ?? 'toy',
    hostnames: opts.hostnames ?? [],
    methods: (opts.methods ?? toyMethods) as MethodTable<unknown>,
    context: createToyContext(),
    healthy: true,
    async health() {
      return network.healthy ? { ok: true, network: network.name } : { ok: false, network: network.name };
    },
  };
  return network;
}
