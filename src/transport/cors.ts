import type { KeyPolicy } from '../pipeline/keys.js';
import { originAllowed } from '../pipeline/policy.js';

/**
 * CORS, so that browser dapps can call the node: every answer on the RPC routes carries
 * `Access-Control-Allow-Origin` — `*`, or, for a key with an Origin allowlist, the request's Origin
 * when it is on the list (with `Vary: Origin`) and none otherwise, so the browser refuses. A
 * preflight (`OPTIONS`) is answered 200 with the methods and headers a JSON-RPC call uses and how
 * long the browser may cache the answer.
 */

/** The headers a JSON-RPC call from a page may send. */
const ALLOWED_HEADERS = 'content-type, authorization';
/** The methods of the RPC routes (POST for HTTP, GET for the WebSocket upgrade). */
const ALLOWED_METHODS = 'POST, GET, OPTIONS';

/** The answer to any Origin for a key without an Origin allowlist (shared: never modify it). */
const ANY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ 'access-control-allow-origin': '*' });
/** The answer to an Origin the key's allowlist refuses (shared: never modify it). */
const NO_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });

/** The CORS headers of an answer to `origin` for a key (undefined: unknown or no key yet). Do not modify the result. */
export function corsHeaders(policy: KeyPolicy | undefined, origin: string | undefined): Readonly<Record<string, string>> {
  const origins = policy?.allow?.origins;
  if (origins === undefined) return ANY_ORIGIN;
  return originAllowed(origins, origin) ? { 'access-control-allow-origin': origin!, vary: 'Origin' } : NO_ORIGIN;
}

/** Whether a preflight from `origin` may proceed for this key. */
export function preflightAllowed(policy: KeyPolicy, origin: string | undefined): boolean {
  const origins = policy.allow?.origins;
  return origins === undefined || originAllowed(origins, origin);
}

/** The headers of a successful preflight answer. */
export function preflightHeaders(policy: KeyPolicy, origin: string | undefined, maxAgeSeconds: number): Record<string, string> {
  return {
    ...corsHeaders(policy, origin),
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(maxAgeSeconds),
  };
}
