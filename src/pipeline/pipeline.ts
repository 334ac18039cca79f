import type { Logger } from 'pino';
import { type AccessLog, createAccessLog } from '../log/accessLog.js';
import { type CallInfo, type CallScope, type DispatchLimits, type DispatchLogger, type DispatchTarget, dispatch } from '../rpc/dispatch.js';
import { RejectedByKeySettingsError, RpcError } from '../rpc/errors.js';
import type { RequestContext, SessionInfo } from '../rpc/method.js';
import { type AuthResult, authenticate, type Credentials } from './auth.js';
import type { ClientGone } from './clientGone.js';
import type { KeyPolicy, KeyRegistry } from './keys.js';
import type { LimitStore } from './limitStore.js';
import { createKeyLimits, type KeyLimits } from './limits.js';
import type { NodeMetrics, RefusalReason } from './metrics.js';
import { callAllowed, sessionAllowed } from './policy.js';
import { RateLimitedError } from './refusals.js';

/**
 * The one path every request takes, whatever carried it: the transport's entrance
 * (`transport/entrance.ts`, the only caller of `authenticate` and `session`) authenticates the
 * credentials and opens a session (HTTP: one a request; WebSocket: one a connection), then the
 * transport hands each message's bytes to `handle`. A message goes envelope (parse, batch) → per
 * call: metrics, policy (allowlists), rate limit and quota, heavy-call concurrency, the operator's
 * own middleware (`use`), the method; then its access line (`log/accessLog.ts`). Handlers receive
 * a {@link RequestContext}: the session, an abort signal that fires when the client goes away, and
 * a head snapshot read once per message.
 *
 * Which calls are heavy is what their method definitions declare (`cost`, `rpc/method.ts`), read
 * from the network's table; why a call was refused is the refusal's `reason` (`refusals.ts`),
 * which the metrics and the access line record.
 */

/** A network as the pipeline serves it: its method table and context, and how to read its head. */
export interface PipelineNetwork extends DispatchTarget {
  readonly name: string;
  /** The head as a request sees it (read at most once per message). */
  head?(): Promise<unknown>;
}

/** A client's session: who it is, what it may do, and the network it talks to. */
export interface Session extends SessionInfo {
  readonly policy: KeyPolicy;
  readonly target: PipelineNetwork;
  /** Fires when the client goes away (HTTP: the request's connection; WebSocket: the socket). */
  readonly gone: ClientGone;
  /** Whether the Origin and User-Agent pass the key's allowlists (decided once per session). */
  readonly allowed: boolean;
}

/** What the transport sends back for one message. */
export interface PipelineReply {
  /** 200, or 403/429 when every call of the message was refused by the key's policies or limits. */
  readonly status: number;
  /** The JSON-RPC answer; undefined when nothing is to be sent (notifications). */
  readonly body: string | undefined;
  /** Seconds for the Retry-After header of a 429. */
  readonly retryAfter?: number;
}

/** One call on its way through the middleware. */
export interface CallEnv {
  readonly session: Session;
  readonly call: CallInfo;
}

/** Middleware: runs around every call of every message; `next` runs the rest of the chain. */
export type Middleware = (env: CallEnv, next: () => Promise<unknown>) => Promise<unknown>;

/** The label of a method the network does not serve, in metrics and access lines. */
export const UNKNOWN_METHOD = '(unknown)';

export interface PipelineOptions {
  keys: KeyRegistry;
  metrics: NodeMetrics;
  /** Logs one access line per message at info (and those of requests answered before the pipeline: `access`); undefined: no access log. */
  logger: Logger | undefined;
  /** Where rates and quotas are counted when shared with other replicas (`--redis`). */
  limitStore?: LimitStore;
  /** The clock of the rate windows and daily quotas (ms since the epoch; default `Date.now`): tests move it instead of waiting. */
  now?: () => number;
}

/** The pipeline: authentication, sessions, and the per-message path. */
export interface Pipeline {
  /** Checks a key and its secret or JWT, counting refusals (`auth`). */
  authenticate(credentials: Credentials): AuthResult | Promise<AuthResult>;
  /** Opens a session for an authenticated key, deciding its Origin and User-Agent once. */
  session(init: Omit<Session, 'keyId' | 'allowed' | 'network'>): Session;
  /** Runs one message (an HTTP body or a WebSocket text frame). */
  handle(session: Session, body: string | Uint8Array, limits: DispatchLimits, log: DispatchLogger): Promise<PipelineReply>;
  /** Adds middleware after the built-in steps, for every transport. */
  use(middleware: Middleware): void;
  /** Records a refusal that happened before a message reached the pipeline (auth, size). */
  refused(reason: RefusalReason): void;
  /** The access log: `handle` writes each message's line; the transport writes through it the lines of requests answered before the pipeline. */
  readonly access: AccessLog;
}

export function createPipeline(opts: PipelineOptions): Pipeline {
  const { keys, metrics, logger } = opts;
  const access = createAccessLog(logger);
  const extra: Middleware[] = [];
  // The limiters of each key, rebuilt when its policy object changes (a keys-file reload).
  const limitsOf = new WeakMap<KeyPolicy, KeyLimits>();
  const limits = (policy: KeyPolicy): KeyLimits => {
    let l = limitsOf.get(policy);
    if (l === undefined) {
      l = createKeyLimits(policy, opts.now ?? Date.now, opts.limitStore);
      limitsOf.set(policy, l);
    }
    return l;
  };

  return {
    access,

    authenticate(credentials) {
      const result = authenticate(keys, credentials);
      if (!(result instanceof Promise)) {
        if (!result.ok) metrics.refused('auth');
        return result;
      }
      return result.then((r) => {
        if (!r.ok) metrics.refused('auth');
        return r;
      });
    },

    session(init) {
      // Every field by name: V8 (Node 20) takes `{ ...init, more }` through its slow path, ~4 µs
      // a request on the HTTP fast path, where this literal costs ~0.04 µs.
      return {
        policy: init.policy,
        target: init.target,
        transport: init.transport,
        remoteAddress: init.remoteAddress,
        origin: init.origin,
        userAgent: init.userAgent,
        gone: init.gone,
        notifications: init.notifications,
        keyId: init.policy.id,
        network: init.target.name,
        allowed: sessionAllowed(init.policy, init.origin, init.userAgent),
      };
    },

    refused(reason) {
      metrics.refused(reason);
    },

    use(middleware) {
      extra.push(middleware);
    },

    async handle(session, body, dispatchLimits, log) {
      const run = new MessageRun(session, limits(session.policy), metrics, extra);
      metrics.enter(session.transport);
      let out: string | undefined;
      try {
        out = await dispatch(body, session.target, log, dispatchLimits, run);
      } finally {
        metrics.leave(session.transport);
      }
      const status = run.status();
      if (access.enabled()) {
        const { calls, methods } = run;
        access.message({
          keyId: session.keyId,
          network: session.network,
          transport: session.transport,
          methods: calls > methods.length ? [...methods, `…${calls - methods.length} more`] : methods,
          status,
          ms: Math.round((performance.now() - run.started) * 1000) / 1000,
          bytesIn: typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
          bytesOut: out === undefined ? 0 : Buffer.byteLength(out),
          refused: run.refusals,
        });
      }
      return { status, body: out, retryAfter: status === 429 ? run.retryAfter : undefined };
    },
  };
}

/** Method names an access line lists (the rest are counted). */
const LOGGED_METHODS = 10;

/**
 * One message on its way through the pipeline: the call scope dispatch runs each call in, the
 * request context handlers get, and what the access line and status need. One object a message,
 * with methods rather than closures: the HTTP fast path makes one per request.
 */
class MessageRun implements CallScope, RequestContext {
  readonly started = performance.now();
  readonly request: RequestContext = this;
  calls = 0;
  readonly methods: string[] = [];
  /** Why calls of this message were refused, each reason once, in order of first refusal. */
  refusals: RefusalReason[] | undefined;
  retryAfter: number | undefined;
  private refusedStatus: number | undefined;
  private refusedAll = true;
  private headRead: Promise<unknown> | undefined;

  constructor(
    readonly session: Session,
    private readonly keyLimits: KeyLimits,
    private readonly metrics: NodeMetrics,
    private readonly extra: readonly Middleware[],
  ) {}

  get signal(): AbortSignal {
    return this.session.gone.signal;
  }

  get gone(): ClientGone {
    return this.session.gone;
  }

  /** The head as this message sees it: read on first use, then shared by its calls. */
  head(): Promise<unknown> {
    this.headRead ??= this.session.target.head?.() ?? Promise.resolve(undefined);
    return this.headRead;
  }

  /** 200, or 403/429 when every call was refused for the same reason. */
  status(): number {
    return this.calls > 0 && this.refusedAll && this.refusedStatus ? this.refusedStatus : 200;
  }

  async around(call: CallInfo, invoke: () => Promise<unknown>): Promise<unknown> {
    const { session, metrics } = this;
    this.calls++;
    // Method names from clients label metrics and log lines only when the network serves them:
    // anything else is one label, so a client cannot create series without bound.
    const label = call.known ? call.method : UNKNOWN_METHOD;
    if (this.methods.length < LOGGED_METHODS) this.methods.push(label);
    const t0 = performance.now();
    try {
      const result = await this.steps(call, invoke);
      this.refusedAll = false;
      metrics.call(session.network, session.transport, session.keyId, label, 'ok', (performance.now() - t0) / 1000);
      return result;
    } catch (err) {
      const wire = err instanceof RpcError ? err : session.target.methods.mapError?.(err);
      metrics.call(session.network, session.transport, session.keyId, label, wire ? String(wire.code) : '-32603', (performance.now() - t0) / 1000);
      if (wire !== undefined && (wire.httpStatus === 403 || wire.httpStatus === 429)) {
        if (err instanceof RateLimitedError) {
          this.refuse(err.reason);
          this.retryAfter = Math.max(this.retryAfter ?? 0, err.retryAfterSeconds);
        }
        this.refusedStatus = this.refusedStatus === undefined || this.refusedStatus === wire.httpStatus ? wire.httpStatus : 0;
      } else {
        this.refusedAll = false;
      }
      throw err;
    }
  }

  /** Counts a refusal by its reason, and keeps the reason for the message's access line. */
  private refuse(reason: RefusalReason): void {
    this.metrics.refused(reason);
    if (this.refusals === undefined) this.refusals = [reason];
    else if (!this.refusals.includes(reason)) this.refusals.push(reason);
  }

  /**
   * Policy, rate limit and quota, heavy-call concurrency, the operator's middleware, the method.
   * Heavy is what the method's definition declares (an unknown method is cheap), not its name.
   */
  private steps(call: CallInfo, invoke: () => Promise<unknown>): Promise<unknown> {
    const { session } = this;
    if (!session.allowed || !callAllowed(session.policy, call.method, call.params)) {
      this.refuse('policy');
      throw new RejectedByKeySettingsError();
    }
    const admitted = this.keyLimits.admit();
    const heavy = call.declaration.cost === 'heavy';
    // The common case (no limit to wait for, a light method, no middleware) adds no promise.
    if (admitted === undefined && !heavy && this.extra.length === 0) return invoke();
    const run = async (): Promise<unknown> => {
      const release = heavy ? this.keyLimits.enterHeavy() : undefined;
      try {
        return this.extra.length === 0 ? await invoke() : await this.runExtra({ session, call }, 0, invoke);
      } finally {
        release?.();
      }
    };
    return admitted === undefined ? run() : admitted.then(run);
  }

  private runExtra(env: CallEnv, i: number, invoke: () => Promise<unknown>): Promise<unknown> {
    return i === this.extra.length ? invoke() : this.extra[i](env, () => this.runExtra(env, i + 1, invoke));
  }
}
