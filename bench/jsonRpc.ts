/**
 * JSON-RPC as the bench speaks it: request bodies, its minimal HTTP client, and typed views of
 * answers (JSON is `unknown` until one of the accessors below has checked its shape), with the
 * canonical form that says whether two answers are the same.
 *
 * The client is node:http, not `fetch`: tracenode picks its demo and Starknet networks by the
 * Host header, which Node's fetch does not let a caller set (undici sends the URL's host), and
 * each request goes over a fresh connection (`agent: false`), so no pooled keep-alive socket
 * stays open on a server between measured runs. It also hands back the answer's exact text,
 * which the load runs compare byte for byte first.
 */
import http from 'node:http';

/** The `error` member of a JSON-RPC answer. */
export interface RpcAnswerError {
  code: number;
  message: string;
  data?: unknown;
}

/** One JSON-RPC answer: `result` is present (maybe null) on success, `error` on failure. */
export interface RpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: RpcAnswerError;
}

/** The text of a JSON-RPC 2.0 request with id 1. */
export const requestBody = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** True for a JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A member of a JSON object; undefined when `v` is not an object. */
export const field = (v: unknown, key: string): unknown => (isRecord(v) ? v[key] : undefined);

/** `v` when it is a JSON array. */
export const listOf = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

/** `v` when it is a string. */
export const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A single answer, or undefined when `v` is not one (not an object, or an `error` without code and message). */
export function toAnswer(v: unknown): RpcAnswer | undefined {
  if (!isRecord(v)) return undefined;
  const answer: RpcAnswer = { id: v.id };
  if ('result' in v) answer.result = v.result;
  if ('error' in v) {
    const e = v.error;
    if (!isRecord(e) || typeof e.code !== 'number' || typeof e.message !== 'string') return undefined;
    answer.error = { code: e.code, message: e.message, ...('data' in e ? { data: e.data } : {}) };
  }
  return answer;
}

/** The answers of a batch, or undefined when `v` is not a list of answers. */
export function toBatch(v: unknown): RpcAnswer[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const answers = v.map(toAnswer);
  return answers.every((a): a is RpcAnswer => a !== undefined) ? answers : undefined;
}

/** JSON text parsed, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** POST over a fresh connection; resolves with status and text. */
export function httpPost(url: string, body: string, headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<{ status: number; text: string }> {
  return new Promise((resolvePost, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolvePost({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Calls `method` and returns its result; throws on an HTTP status other than 200 or an error answer. */
export async function rpcResult(url: string, method: string, params: unknown, headers?: Record<string, string>): Promise<unknown> {
  const { status, text } = await httpPost(url, requestBody(method, params), headers);
  if (status !== 200) throw new Error(`${method} on ${url}: HTTP ${status} ${text.slice(0, 200)}`);
  const answer = toAnswer(parseJson(text));
  if (!answer) throw new Error(`${method} on ${url}: not a JSON-RPC answer: ${text.slice(0, 200)}`);
  if (answer.error) throw new Error(`${method} on ${url}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** JSON with object keys sorted: two answers are the same when these strings are equal. */
export function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.entries(v)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
    .join(',')}}`;
}

/** The first place two JSON values differ, for reports. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (canonical(a) === canonical(b)) return undefined;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${path}: ${a.length} items vs ${b.length}`;
    const am = new Map<string, unknown>(Object.entries(a));
    const bm = new Map<string, unknown>(Object.entries(b));
    for (const k of new Set([...am.keys(), ...bm.keys()])) {
      const d = firstDifference(am.get(k), bm.get(k), Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d) return d;
    }
  }
  const show = (x: unknown) => (x === undefined ? 'absent' : JSON.stringify(x).slice(0, 120));
  return `${path}: ${show(a)} vs ${show(b)}`;
}
