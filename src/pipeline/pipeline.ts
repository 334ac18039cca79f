import type { Logger } from 'pino';
import { type CallInfo, type CallScope, type DispatchLimits, type DispatchLogger, type DispatchTarget, dispatch } from '../rpc/dispatch.js';
import { RejectedByKeySettingsError, RpcError } from '../rpc/errors.js';
import type { RequestContext, SessionInfo, Transport } from '../rpc/method.js';
import { type AuthResult, authenticate, type Credentials } from './auth.js';
import type { KeyPolicy, KeyRegistry } from './keys.js';
import { createKeyLimits, isHeavyMethod, type KeyLimits, RateLimitedError } from './limits.js';
import type { NodeMetrics, RefusalReason } from './metrics.js';
import { callAllowed, sessionAllowed } from './policy.js';

/**
 * The one path every request takes, whatever carried it: the transport authenticates the
 * credentials and opens a session (HTTP: one a request; WebSocket: one a connection), then hands
 * each message's bytes to `handle`. A message goes envelope (parse, batch) → per call: metrics,
 * policy (allowlists), rate limit and quota, heavy-call concurrency, the operator's own middleware
 * (`use`), the method. Handlers receive a {@link RequestContext}: the session, an abort signal
 * that fires when the client goes away, and a head snapshot read once per message.
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
  readonly signal: AbortSignal;
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
  /** Logs one access line per message at info; undefined: no access log. */
  logger: Logger | undefined;
}

/** The pipeline: authentication, sessions, and the per-message path. */
export interface Pipeline {
  authenticate(credentials: Credentials): AuthResult | Promise<AuthResult>;
  /** Opens a session for an authenticated key. */
  session(init: Omit<Session, 'keyId' | 'allowed' | 'network'>): Session;
  /** Runs one message (an HTTP body or a WebSocket text frame). */
  handle(session: Session, body: string | Uint8Array, limits: DispatchLimits, log: DispatchLogger): Promise<PipelineReply>;
  /** Adds middleware after the built-in steps, for every transport. */
  use(middleware: Middleware): void;
  /** Records a refusal that happened before a message reached the pipeline (auth, size). */
  refused(reason: RefusalReason): void;
}

export function createPipeline(opts: PipelineOptions): Pipeline {
  const { keys, metrics, logger } = opts;
  const extra: Middleware[] = [];
  // The limiters of each key, rebuilt when its policy object changes (a keys-file reload).
  const limitsOf = new WeakMap<KeyPolicy, KeyLimits>();
  const limits = (policy: KeyPolicy): KeyLimits => {
    let l = limitsOf.get(policy);
    if (l === undefined) {
      l = createKeyLimits(policy);
      limitsOf.set(policy, l);
    }
    return l;
  };

  return {
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
      return {
        ...init,
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
      const started = performance.now();
      const transport: Transport = session.transport;
      metrics.enter(transport);
      const keyLimits = limits(session.policy);
      const methods: string[] = [];
      let calls = 0;
      let refusedStatus: number | undefined;
      let refusedAll = true;
      let retryAfter: number | undefined;
      let head: Promise<unknown> | undefined;
      const request: RequestContext = {
        session,
        signal: session.signal,
        head: () => {
          head ??= session.target.head?.() ?? Promise.resolve(undefined);
          return head;
        },
      };

      const steps = (env: CallEnv, invoke: () => Promise<unknown>): Promise<unknown> => {
        const { call } = env;
        if (!session.allowed || !callAllowed(session.policy, call.method, call.params)) {
          metrics.refused('policy');
          throw new RejectedByKeySettingsError();
        }
        const admitted = keyLimits.admit();
        const run = async (): Promise<unknown> => {
          const release = isHeavyMethod(call.method) ? keyLimits.enterHeavy() : undefined;
          try {
            return extra.length === 0 ? await invoke() : await runExtra(env, 0, invoke);
          } finally {
            release?.();
          }
        };
        return admitted === undefined ? run() : admitted.then(run);
      };
      const runExtra = (env: CallEnv, i: number, invoke: () => Promise<unknown>): Promise<unknown> =>
        i === extra.length ? invoke() : extra[i](env, () => runExtra(env, i + 1, invoke));

      const around = async (call: CallInfo, invoke: () => Promise<unknown>): Promise<unknown> => {
        calls++;
        // Method names from clients label metrics and log lines only when the network serves them:
        // anything else is one label, so a client cannot create series without bound.
        const label = call.known ? call.method : UNKNOWN_METHOD;
        if (methods.length < 10) methods.push(label);
        const t0 = performance.now();
        try {
          const result = await steps({ session, call }, invoke);
          refusedAll = false;
          metrics.call(session.network, transport, session.keyId, label, 'ok', (performance.now() - t0) / 1000);
          return result;
        } catch (err) {
          const wire = err instanceof RpcError ? err : session.target.methods.mapError?.(err);
          metrics.call(session.network, transport, session.keyId, label, wire ? String(wire.code) : '-32603', (performance.now() - t0) / 1000);
          if (wire !== undefined && (wire.httpStatus === 403 || wire.httpStatus === 429)) {
            if (err instanceof RateLimitedError) {
              metrics.refused(err.message.startsWith('daily') ? 'quota' : err.message.includes('concurrent') ? 'concurrency' : 'rate');
              retryAfter = Math.max(retryAfter ?? 0, err.retryAfterSeconds);
            }
            refusedStatus = refusedStatus === undefined || refusedStatus === wire.httpStatus ? wire.httpStatus : 0;
          } else {
            refusedAll = false;
          }
          throw err;
        }
      };

      const scope: CallScope = { request, around };
      let out: string | undefined;
      try {
        out = await dispatch(body, session.target, log, dispatchLimits, scope);
      } finally {
        metrics.leave(transport);
      }
      const status = calls > 0 && refusedAll && refusedStatus ? refusedStatus : 200;
      if (logger?.isLevelEnabled('info')) {
        logger.info(
          {
            keyId: session.keyId,
            network: session.network,
            transport,
            methods: calls > methods.length ? [...methods, `…${calls - methods.length} more`] : methods,
            status,
            ms: Math.round((performance.now() - started) * 1000) / 1000,
            bytesIn: typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
            bytesOut: out === undefined ? 0 : Buffer.byteLength(out),
          },
          'request',
        );
      }
      return { status, body: out, retryAfter: status === 429 ? retryAfter : undefined };
    },
  };
}
