import { isUtf8 } from 'node:buffer';
import type { BaseLogger } from 'pino';
import { resultJson } from '../codec/keptJson.js';
import { InternalError, InvalidRequestError, MethodNotFoundError, ParseError, RpcError } from './errors.js';
import { declarationOf, type MethodDeclaration, type MethodTable, type RequestContext } from './method.js';

/**
 * JSON-RPC 2.0 envelope handling shared by HTTP and WebSocket: parse, validate, run single
 * requests and batches, encode responses. Spec: https://www.jsonrpc.org/specification; where the
 * spec leaves room we do what geth does (docs/methods.md#envelope).
 */

/** What a request runs against: a network's method table and the context its handlers get. */
export interface DispatchTarget {
  readonly methods: MethodTable<unknown>;
  readonly context: unknown;
}

/** Per-call limits of {@link dispatch}; the transport passes its own batch limit. */
export interface DispatchLimits {
  /** Most items in a batch; more → a one-element array holding `-32600 batch too large`. */
  maxBatchItems: number;
  /** Longest method name; longer → `-32600`. */
  maxMethodNameLength: number;
  /** Total size of a batch's responses; items past it → `-32003 response too large`. */
  batchResponseMaxBytes: number;
}

/** One call as the pipeline's middleware sees it. */
export interface CallInfo {
  readonly method: string;
  readonly params: unknown;
  /** Whether the network serves the method (an unknown one still passes the middleware). */
  readonly known: boolean;
  /** What the method's definition in the table declares (cost, EVM); an unknown method is cheap. */
  readonly declaration: MethodDeclaration;
}

/**
 * What the request pipeline adds around the calls of one message: the request context handlers
 * receive, and `around`, which runs each call (every batch item, known method or not) through the
 * pipeline's per-call middleware. An error `around` throws is that call's answer.
 */
export interface CallScope {
  readonly request: RequestContext;
  readonly around?: (call: CallInfo, invoke: () => Promise<unknown>) => Promise<unknown>;
}

/** The logger calls dispatch makes; a request-scoped pino/Fastify child logger fits. */
export type DispatchLogger = Pick<BaseLogger, 'error' | 'warn' | 'debug'>;

/** -32003, geth's code for a batch whose responses exceed `BatchResponseMaxSize`. */
const RESPONSE_TOO_LARGE_CODE = -32003;

/**
 * Handles one JSON-RPC message (an HTTP body or a WebSocket frame): a single request or a batch.
 * Returns the serialized response, or `undefined` when nothing must be sent (a notification, or a
 * batch of notifications only).
 *
 * - Not UTF-8 or not JSON → `-32700`, id null.
 * - Not an object/array, bad `jsonrpc`, `method` or `params` type, overlong method → `-32600`;
 *   an `id` that is an object, array or boolean → `-32600` with id null.
 * - Unknown method → `-32601`. An {@link RpcError} from the handler is sent as is; anything else
 *   is logged with its stack and sent as `-32603 internal error`.
 * - Batches run their items concurrently and answer in request order; `[]` → one `empty batch`
 *   error (not an array); over the limit → a one-element array `batch too large` with the first
 *   item's id, as geth does.
 * - Numeric ids are echoed with the exact text the request had (`1.10`, `123456789012345678901234567890`),
 *   which `JSON.parse` alone would round.
 */
export async function dispatch(
  body: string | Uint8Array,
  target: DispatchTarget,
  log: DispatchLogger,
  limits: DispatchLimits,
  scope?: CallScope,
): Promise<string | undefined> {
  const env: Env = { target, log, limits, scope };
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    // Checked first, then decoded without replacement characters (TextDecoder's fatal mode does
    // both but costs more per request than the rest of the envelope).
    if (!isUtf8(body)) return errorJson(env, 'null', new ParseError('parse error: body is not valid UTF-8'));
    text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return errorJson(env, 'null', new ParseError());
  }

  if (Array.isArray(message)) return runBatch(env, message, text);
  if (isObject(message)) {
    const raw = typeof message.id === 'number' ? scanRawIds(text)[0] : undefined;
    return (await runRequest(env, message, raw))?.json;
  }
  return errorJson(env, 'null', new InvalidRequestError());
}

/**
 * The answer to a message when its calls will not run to the end (the node shutting down): `error`
 * for each request of it that has an id, in the shape and order {@link dispatch} would answer;
 * `undefined` when nothing is to be sent (notifications only). A body that does not parse gets
 * `error` once, with id null.
 */
export function answerEachWith(body: string | Uint8Array, error: RpcError): string | undefined {
  const env = { log: silentLog };
  let text: string;
  let message: unknown;
  try {
    text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    message = JSON.parse(text);
  } catch {
    return errorJson(env, 'null', error);
  }
  if (!Array.isArray(message))
    return isObject(message) && !Object.hasOwn(message, 'id') ? undefined : errorJson(env, idOf(message, scanRawIds(text)[0]), error);
  if (message.length === 0) return errorJson(env, 'null', error);
  const rawIds = scanRawIds(text);
  const answers = message.flatMap((item, i) => (isObject(item) && !Object.hasOwn(item, 'id') ? [] : [errorJson(env, idOf(item, rawIds[i]), error)]));
  return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
}

/** The JSON text of a request's id for an error answer: null when it has none usable. */
function idOf(item: unknown, rawId: string | undefined): string {
  return (isObject(item) ? readId(item, rawId) : undefined) ?? 'null';
}

const silentLog: DispatchLogger = { error() {}, warn() {}, debug() {} };

interface Env {
  target: DispatchTarget;
  log: DispatchLogger;
  limits: DispatchLimits;
  scope: CallScope | undefined;
}

/** A response to one request: the JSON text of its id and of the whole response object. */
interface Reply {
  id: string;
  json: string;
}

async function runBatch(env: Env, items: unknown[], text: string): Promise<string | undefined> {
  if (items.length === 0) return errorJson(env, 'null', new InvalidRequestError('empty batch'));
  const rawIds = items.some((it) => isObject(it) && typeof it.id === 'number') ? scanRawIds(text) : [];
  if (items.length > env.limits.maxBatchItems) {
    // geth answers with a one-element array carrying the first call's id and runs nothing.
    const first = items[0];
    const id = isObject(first) ? readId(first, rawIds[0]) : undefined;
    return `[${errorJson(env, id ?? 'null', new InvalidRequestError('batch too large'))}]`;
  }
  const replies = await Promise.all(items.map((item, i) => runRequest(env, item, rawIds[i])));
  const parts: string[] = [];
  let size = 2;
  let overflow = false;
  for (const reply of replies) {
    if (reply === undefined) continue;
    // Once the total would pass the limit, this reply and every later one become -32003, so the
    // batch's answer stays bounded (geth stops at the same point).
    if (!overflow && size + Buffer.byteLength(reply.json) + 1 > env.limits.batchResponseMaxBytes) overflow = true;
    if (overflow) {
      parts.push(errorJson(env, reply.id, new RpcError(RESPONSE_TOO_LARGE_CODE, 'response too large')));
    } else {
      parts.push(reply.json);
      size += Buffer.byteLength(reply.json) + 1;
    }
  }
  return parts.length === 0 ? undefined : `[${parts.join(',')}]`;
}

/** Validates and runs one request object (or batch element); `undefined` for a notification. */
async function runRequest(env: Env, req: unknown, rawId: string | undefined): Promise<Reply | undefined> {
  // Envelope errors are answered even when the request has no id: the spec's own examples do so
  // (`{"jsonrpc":"2.0","method":1,"params":"bar"}` → -32600 with id null).
  if (!isObject(req)) return reply(env, 'null', new InvalidRequestError());
  const id = readId(req, rawId);
  if (id === null) return reply(env, 'null', new InvalidRequestError());
  const replyId = id ?? 'null';
  if (req.jsonrpc !== '2.0') return reply(env, replyId, new InvalidRequestError());
  const method = req.method;
  if (typeof method !== 'string') return reply(env, replyId, new InvalidRequestError());
  if (method.length > env.limits.maxMethodNameLength) {
    return reply(env, replyId, new InvalidRequestError(`method name too long: ${method.length} > ${env.limits.maxMethodNameLength}`));
  }
  // The spec allows only a structured value; an object is passed on and `defineMethod` decides
  // (`non-array args` unless the method takes names). Absent and null both mean "no arguments".
  const params = req.params;
  if (params !== undefined && params !== null && typeof params !== 'object') {
    return reply(env, replyId, new InvalidRequestError());
  }

  const def = env.target.methods.get(method);
  const scope = env.scope;
  let outcome: { result: unknown } | { error: RpcError };
  try {
    if (scope?.around !== undefined) {
      const invoke = def === undefined ? () => Promise.reject(new MethodNotFoundError(method)) : () => def.call(env.target.context, params, scope.request);
      outcome = { result: await scope.around({ method, params, known: def !== undefined, declaration: declarationOf(def) }, invoke) };
    } else if (def === undefined) {
      outcome = { error: new MethodNotFoundError(method) };
    } else {
      outcome = { result: await def.call(env.target.context, params, scope?.request) };
    }
  } catch (err) {
    outcome = { error: toRpcError(env, err, method, id) };
  }
  if (id === undefined) return undefined; // notification: it ran, nobody hears about it
  if ('error' in outcome) return reply(env, id, outcome.error);
  try {
    // A handler that returns nothing answers null, as geth does for methods without a result.
    const result = resultJson(outcome.result ?? null);
    if (result === undefined) throw new TypeError(`result of ${method} is not JSON-serializable`);
    return { id, json: `{"jsonrpc":"2.0","id":${id},"result":${result}}` };
  } catch (err) {
    return reply(env, id, toRpcError(env, err, method, id));
  }
}

function reply(env: Env, id: string, error: RpcError): Reply {
  return { id, json: errorJson(env, id, error) };
}

/** Serializes an error response; an error whose `data` cannot be serialized becomes -32603. */
function errorJson(env: Pick<Env, 'log'>, id: string, error: RpcError): string {
  let json: string;
  try {
    json = JSON.stringify(error.toJSON());
  } catch (err) {
    env.log.error({ err, rpcId: id }, 'error response is not JSON-serializable');
    json = JSON.stringify(new InternalError().toJSON());
  }
  return `{"jsonrpc":"2.0","id":${id},"error":${json}}`;
}

/**
 * RpcErrors pass through; a domain error the table's `mapError` knows becomes its wire error;
 * anything else is a bug: logged with its stack, hidden from the client.
 */
function toRpcError(env: Env, err: unknown, method: string, id: string | undefined): RpcError {
  const wire = err instanceof RpcError ? err : env.target.methods.mapError?.(err);
  if (wire !== undefined) {
    env.log.debug({ rpcMethod: method, rpcId: id, code: wire.code }, 'method returned an error');
    if (wire !== err) checkDeclared(env, err, method);
    return wire;
  }
  env.log.error({ err, rpcMethod: method, rpcId: id }, 'internal error in method');
  return new InternalError();
}

/**
 * Warns when a method lets through a domain error its definition does not declare (`raises`): the
 * client gets its wire error all the same, and the declaration is to be fixed.
 */
function checkDeclared(env: Env, err: unknown, method: string): void {
  const raises = env.target.methods.get(method)?.raises;
  const name = err instanceof Error ? err.name : undefined;
  if (raises === undefined || name === undefined || raises.includes(name)) return;
  env.log.warn({ rpcMethod: method, error: name }, 'method raised a domain error it does not declare');
}

/**
 * The JSON text of a request's id: `undefined` when there is no `id` member (a notification),
 * `null` when the id has a type JSON-RPC forbids (object, array, boolean).
 */
function readId(req: Record<string, unknown>, rawId: string | undefined): string | null | undefined {
  if (!Object.hasOwn(req, 'id')) return undefined;
  const id = req.id;
  if (id === null) return 'null';
  if (typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'number') {
    // The scanned text is used only if it is a JSON number, so a scanner bug can never put
    // invalid JSON on the wire; the fallback is the (possibly rounded) parsed value.
    if (rawId !== undefined && JSON_NUMBER.test(rawId)) return rawId;
    return Number.isFinite(id) ? String(id) : 'null';
  }
  return null;
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Exact id text. JSON.parse turns 123456789012345678901234567890 into 1.2345678901234568e+29 and
// 1.10 into 1.1; JSON-RPC says the response id must be the same value, and clients that keep ids
// as big integers or strings compare texts. So for numeric ids we read the number's source text
// with a small scanner over the (already validated) JSON. It walks only the top level and the
// members of each top-level object, skipping nested values iteratively, so deep nesting is safe.
// ---------------------------------------------------------------------------------------------

/**
 * For a message already accepted by `JSON.parse`: the source text of the `id` member of the
 * request object (index 0), or of each element of a batch array, when that id is a number;
 * `undefined` entries otherwise. Duplicate `id` keys resolve to the last one, as `JSON.parse` does.
 */
export function scanRawIds(text: string): (string | undefined)[] {
  let i = skipWs(text, 0);
  if (text[i] === '{') return [scanObject(text, i).id];
  if (text[i] !== '[') return [];
  const out: (string | undefined)[] = [];
  i = skipWs(text, i + 1);
  if (text[i] === ']') return out;
  for (;;) {
    i = skipWs(text, i);
    if (text[i] === '{') {
      const r = scanObject(text, i);
      out.push(r.id);
      i = r.end;
    } else {
      out.push(undefined);
      i = skipValue(text, i);
    }
    i = skipWs(text, i);
    if (text[i] !== ',') return out;
    i++;
  }
}

/** Scans an object starting at `{`; returns the raw text of a numeric `id` member and the end index. */
function scanObject(text: string, start: number): { id: string | undefined; end: number } {
  let id: string | undefined;
  let i = skipWs(text, start + 1);
  if (text[i] === '}') return { id, end: i + 1 };
  for (;;) {
    i = skipWs(text, i);
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    i = skipWs(text, keyEnd) + 1; // past ':'
    i = skipWs(text, i);
    const valueEnd = skipValue(text, i);
    if (key === '"id"' || (key.includes('\\') && JSON.parse(key) === 'id')) {
      const c = text.charCodeAt(i);
      id = c === 0x2d || (c >= 0x30 && c <= 0x39) ? text.slice(i, valueEnd) : undefined;
    }
    i = skipWs(text, valueEnd);
    if (text[i] !== ',') return { id, end: i + 1 };
    i++;
  }
}

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `i` is at an opening quote; returns the index after the closing one. */
function skipString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Returns the index after the value starting at `i` (string, container, number or literal). */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '"') {
        i = skipString(text, i);
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < text.length) {
    const ch = text[i];
    if (ch === ',' || ch === '}' || ch === ']' || ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') return i;
    i++;
  }
  return i;
}
