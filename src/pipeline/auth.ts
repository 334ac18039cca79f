import { timingSafeEqual } from 'node:crypto';
import { jwtVerify } from 'jose';
import { ResourceNotFoundError, type RpcError } from '../rpc/errors.js';
import type { KeyPolicy, KeyRegistry } from './keys.js';

/**
 * Authentication, the pipeline's first step, run once per HTTP request or WebSocket upgrade before
 * any body is read: the key in the URL, then the key's secret (HTTP Basic password, Infura's
 * "project secret") or its JWT (`Authorization: Bearer`). Failures are HTTP 401 with Infura's
 * texts, which client libraries match on.
 */

/** What the transport read from the request for authentication. */
export interface Credentials {
  /** The key in `/v3/<key>` (undefined or empty: none given). */
  readonly key: string | undefined;
  /** The `Authorization` header. */
  readonly authorization: string | undefined;
}

/** The key's policy, or the error to answer with. */
export type AuthResult = { readonly ok: true; readonly policy: KeyPolicy } | { readonly ok: false; readonly error: RpcError };

const NO_KEY = (): RpcError => new ResourceNotFoundError('project id required in the url', 401);
const UNKNOWN_KEY = (): RpcError => new ResourceNotFoundError('invalid project id', 401);
const BAD_SECRET = (): RpcError => new ResourceNotFoundError('invalid project id or project secret', 401);
const BAD_JWT = (): RpcError => new ResourceNotFoundError('invalid JWT', 401);

/**
 * Checks the credentials against the registry. Synchronous for keys without a JWT (the common
 * case costs no promise); a JWT check returns a promise.
 */
export function authenticate(registry: KeyRegistry, credentials: Credentials): AuthResult | Promise<AuthResult> {
  const found = lookupKey(registry, credentials.key);
  if (!found.ok) return found;
  const policy = found.policy;
  if (policy.secret !== undefined) {
    return secretMatches(credentials.authorization, policy) ? found : { ok: false, error: BAD_SECRET() };
  }
  if (policy.jwt !== undefined) return verifyJwt(policy, credentials.authorization);
  return found;
}

/**
 * The key's policy, or the 401 of a missing or unknown key: the first step of {@link authenticate},
 * and all a CORS preflight checks (browsers send no credentials with it).
 */
export function lookupKey(registry: KeyRegistry, key: string | undefined): AuthResult {
  if (key === undefined || key === '') return { ok: false, error: NO_KEY() };
  const policy = registry.lookup(key);
  return policy === undefined ? { ok: false, error: UNKNOWN_KEY() } : { ok: true, policy };
}

/** Each key's secret as bytes, and a buffer of its length the given password is copied into (a reload brings new policies). */
const secretBytes = new WeakMap<KeyPolicy, { want: Buffer; padded: Buffer }>();

/** HTTP Basic credentials whose password is the key's secret (the user name is ignored, as Infura does). */
function secretMatches(authorization: string | undefined, policy: KeyPolicy): boolean {
  if (authorization === undefined || !/^basic /i.test(authorization)) return false;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const given = Buffer.from(decoded.slice(colon + 1));
  let bytes = secretBytes.get(policy);
  if (bytes === undefined) {
    const want = Buffer.from(policy.secret!);
    bytes = { want, padded: Buffer.alloc(want.length) };
    secretBytes.set(policy, bytes);
  }
  const { want, padded } = bytes;
  // Compared over the secret's length whatever was given, so the time does not show the length.
  padded.fill(0);
  given.copy(padded, 0, 0, Math.min(given.length, want.length));
  return timingSafeEqual(padded, want) && given.length === want.length;
}

async function verifyJwt(policy: KeyPolicy, authorization: string | undefined): Promise<AuthResult> {
  const jwt = policy.jwt!;
  if (authorization === undefined || !/^bearer /i.test(authorization)) return { ok: false, error: BAD_JWT() };
  const token = authorization.slice(7).trim();
  for (const { key, algorithm } of jwt.keys) {
    try {
      // jose checks the signature, the algorithm, `exp` (required: a token must expire) and `nbf`,
      // and the audience when the key names one.
      await jwtVerify(token, key, { algorithms: [algorithm], audience: jwt.audience, requiredClaims: ['exp'] });
      return { ok: true, policy };
    } catch {
      // another key may have signed it
    }
  }
  return { ok: false, error: BAD_JWT() };
}
