import type { IncomingHttpHeaders } from 'node:http';
import { type AuthResult, lookupKey } from '../pipeline/auth.js';
import { ClientGone } from '../pipeline/clientGone.js';
import type { KeyRegistry } from '../pipeline/keys.js';
import type { Pipeline, Session } from '../pipeline/pipeline.js';
import { RejectedByKeySettingsError, type RpcError } from '../rpc/errors.js';
import type { NotificationChannel, Transport } from '../rpc/method.js';
import { preflightAllowed } from './cors.js';
import type { NetworkHandle } from './networks.js';

/**
 * The one entrance of the request pipeline. Every session is built here, whichever of the three
 * doors the client came through — the HTTP fast path (`fastPath.ts`), Fastify's routes
 * (`rpcRoutes.ts`: percent-encoded paths, chunked bodies) and the WebSocket upgrade — from what
 * the transport read of the request: the key in its path, its headers and its socket. In one
 * place, once per session: the key lookup, the key's HTTP Basic secret or JWT, the network the
 * Host names, the Origin and User-Agent allowlists (`pipeline.session`), and the client-gone
 * signal. The transport only ties that signal to its connection's close (HTTP: an answer not
 * sent; WebSocket: the socket). CORS preflights look their key up here too.
 */

/** A session opened, or the refusal to answer with (HTTP 401, Infura's texts; counted as `auth`). */
export type Entered = { readonly ok: true; readonly session: Session } | { readonly ok: false; readonly error: RpcError };

/** The address of the client's end of the connection. */
export interface ClientSocket {
  readonly remoteAddress?: string | undefined;
}

export interface Entrance {
  /**
   * Authenticates a client and opens its session: the key from `/v3/<key>` or `/ws/v3/<key>`
   * (undefined: none), the request's headers (Authorization, Host, Origin, User-Agent) and socket.
   * Synchronous unless the key takes a JWT.
   */
  enter(transport: Transport, key: string | undefined, headers: IncomingHttpHeaders, socket: ClientSocket): Entered | Promise<Entered>;
  /**
   * Whether a CORS preflight for `key` from `origin` may proceed: the key's policy, or the 401 of
   * a missing or unknown key (not counted: a browser sends no credentials with a preflight, so no
   * authentication failed) or the 403 of an Origin the key does not list (counted as `policy`).
   */
  preflight(key: string | undefined, origin: string | undefined): AuthResult;
}

export interface EntranceOptions {
  pipeline: Pipeline;
  keys: KeyRegistry;
  /** The network a Host header names. */
  selectNetwork(host: string | undefined): NetworkHandle;
}

export function createEntrance({ pipeline, keys, selectNetwork }: EntranceOptions): Entrance {
  const open = (auth: AuthResult, transport: Transport, headers: IncomingHttpHeaders, socket: ClientSocket): Entered => {
    if (!auth.ok) return auth;
    const session = pipeline.session({
      policy: auth.policy,
      target: selectNetwork(headers.host),
      transport,
      remoteAddress: socket.remoteAddress,
      origin: headers.origin,
      userAgent: headers['user-agent'],
      gone: new ClientGone(),
    });
    return { ok: true, session };
  };
  return {
    enter(transport, key, headers, socket) {
      const auth = pipeline.authenticate({ key, authorization: headers.authorization });
      return auth instanceof Promise ? auth.then((a) => open(a, transport, headers, socket)) : open(auth, transport, headers, socket);
    },
    preflight(key, origin) {
      const found = lookupKey(keys, key);
      if (!found.ok || preflightAllowed(found.policy, origin)) return found;
      pipeline.refused('policy');
      return { ok: false, error: new RejectedByKeySettingsError() };
    },
  };
}

/**
 * A WebSocket session once its socket is open: the session the upgrade entered, with the channel
 * its subscriptions notify through (one a connection).
 */
export function withNotifications(session: Session, notifications: NotificationChannel): Session {
  return { ...session, notifications };
}
