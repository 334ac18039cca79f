import type { KeyPolicy } from './keys.js';
import { signedTransactionTarget } from './signedTarget.js';

/**
 * A key's allowlists, with Infura's semantics: each kind that is set must allow the request (AND
 * across kinds), and one matching entry allows it within a kind (OR). Origins and User-Agents are
 * properties of the session (an HTTP request or a WebSocket connection) and are decided once;
 * methods and contracts are decided per call. A refused call is answered with -32002
 * `rejected due to project ID settings` (HTTP 403 when every call of a request is refused).
 */

/**
 * Whether the session's Origin and User-Agent pass the key's allowlists. A request without the
 * header is refused when the kind is set. Origins match exactly (scheme, host and port), or by a
 * `*.example.org` entry, which matches any subdomain of example.org (not example.org itself), on
 * any scheme and port. A User-Agent entry matches as a substring.
 */
export function sessionAllowed(policy: KeyPolicy, origin: string | undefined, userAgent: string | undefined): boolean {
  const allow = policy.allow;
  if (allow === undefined) return true;
  if (allow.origins !== undefined && !originAllowed(allow.origins, origin)) return false;
  if (allow.userAgents !== undefined && (userAgent === undefined || !allow.userAgents.some((entry) => userAgent.includes(entry)))) return false;
  return true;
}

/** Origins decided per allowlist (a keys-file reload brings new lists), at most this many each. */
const ORIGIN_MEMO_ENTRIES = 256;
const originMemo = new WeakMap<readonly string[], Map<string, boolean>>();

/**
 * Whether `origin` passes an Origin allowlist (absent: refused). Decided once per list and origin
 * (a client sends the same Origin on every request; the memo is emptied when full), since the
 * check is asked twice a request (the session, the CORS header).
 */
export function originAllowed(origins: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return false;
  let memo = originMemo.get(origins);
  if (memo === undefined) {
    memo = new Map();
    originMemo.set(origins, memo);
  }
  let allowed = memo.get(origin);
  if (allowed === undefined) {
    allowed = origins.some((entry) => originMatches(entry, origin));
    if (memo.size >= ORIGIN_MEMO_ENTRIES) memo.clear();
    memo.set(origin, allowed);
  }
  return allowed;
}

/** Whether `origin` (as a browser sends it: `scheme://host[:port]`) matches an allowlist entry. */
export function originMatches(entry: string, origin: string): boolean {
  const o = origin.toLowerCase();
  const e = entry.toLowerCase();
  if (!e.startsWith('*.')) return o === e.replace(/\/$/, '');
  const host = hostOf(o);
  return host?.endsWith(e.slice(1)) === true;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/** Methods whose target contracts the `contracts` allowlist checks, and where each finds them. */
const CONTRACT_ARGUMENT: Readonly<Record<string, (params: unknown[]) => unknown>> = {
  eth_call: (p) => field(p[0], 'to'),
  eth_estimateGas: (p) => field(p[0], 'to'),
  eth_getLogs: (p) => field(p[0], 'address'),
  eth_getAccountInfo: (p) => p[0],
  eth_getBalance: (p) => p[0],
  eth_getCode: (p) => p[0],
  eth_getStorageAt: (p) => p[0],
  eth_getTransactionCount: (p) => p[0],
  eth_getProof: (p) => p[0],
  trace_call: (p) => field(p[0], 'to'),
  // every call of the list; a pair without `to` (a creation) refuses the whole request
  trace_callMany: (p) => (Array.isArray(p[0]) ? p[0].map((pair) => (Array.isArray(pair) ? (field(pair[0], 'to') ?? null) : 0)) : 0),
  // the target is inside the signed bytes, which the pipeline does not decode: refused
  trace_rawTransaction: () => null,
  // sent to the followed node: the signed transaction's `to`, read from its envelope
  eth_sendRawTransaction: (p) => sentTarget(p[0]),
  eth_sendRawTransactionSync: (p) => sentTarget(p[0]),
  debug_traceCall: (p) => field(p[0], 'to'),
};

/** A sent transaction's target: its `to`, null for a creation (refused), 0 (let through) for bytes that are no transaction. */
function sentTarget(raw: unknown): string | null | 0 {
  const to = signedTransactionTarget(raw);
  return to === undefined ? 0 : to;
}

const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;

/**
 * Whether one call passes the key's method and contract allowlists. For the contract-checked
 * methods every address the call targets must be allowed: a call without a target (a contract
 * creation, a log filter over every contract) is refused; so is trace_rawTransaction, whose
 * target is inside the signed bytes. A transaction sent (eth_sendRawTransaction) is checked by the
 * `to` of its signed envelope. Params that do not have the method's shape are let through: the
 * method answers them with -32602.
 */
export function callAllowed(policy: KeyPolicy, method: string, params: unknown): boolean {
  const allow = policy.allow;
  if (allow === undefined) return true;
  if (allow.methods !== undefined && !allow.methods.has(method)) return false;
  const contracts = allow.contracts;
  if (contracts === undefined) return true;
  const locate = CONTRACT_ARGUMENT[method];
  if (locate === undefined) return true;
  if (!Array.isArray(params)) return true;
  const target = locate(params);
  if (target === undefined || target === null) return false;
  const targets = Array.isArray(target) ? target : [target];
  if (targets.length === 0) return false;
  for (const t of targets) {
    if (t === undefined || t === null) return false; // a call without a target in a list
    if (typeof t !== 'string') return true; // malformed: the method's own validation answers
    if (!contracts.has(t.toLowerCase())) return false;
  }
  return true;
}
