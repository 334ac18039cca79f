import type { z } from 'zod';
import { HexError } from '../codec/hex.js';
import { cutString } from '../codec/quote.js';
import { directDecoder } from '../codec/schemas.js';
import { InvalidParamsError, type RpcError } from './errors.js';

/** How a request arrived. */
export type Transport = 'http' | 'ws';

/** Who is asking: what the transport learnt of the client, and the key it authenticated with. */
export interface SessionInfo {
  /** The API key's non-secret id, for logs and metrics (never the key). */
  readonly keyId: string;
  /** The network the Host header chose. */
  readonly network: string;
  readonly transport: Transport;
  readonly remoteAddress: string | undefined;
  readonly origin: string | undefined;
  readonly userAgent: string | undefined;
  /**
   * Where this session's notifications go (`eth_subscription`): present on a WebSocket session,
   * absent over HTTP, where a method that needs it answers `notifications not supported`.
   */
  readonly notifications?: NotificationChannel;
}

/**
 * A connection's outgoing notifications, as the transport offers them to subscription methods.
 * Frames are whole JSON-RPC messages, serialized by the caller (shared between subscribers).
 */
export interface NotificationChannel {
  /** Sends one frame; false when the connection is closed (or was just closed for its backlog). */
  send(frame: string): boolean;
  /** Runs `fn` once when the connection closes (its subscriptions end with it); at once if it has. */
  onClose(fn: () => void): void;
  /** Whether the connection is still open. */
  isOpen(): boolean;
}

/**
 * What a handler knows of the request it serves, besides its network's context: the session, a
 * signal that fires when the client goes away (long scans stop), and the head of the chain as
 * this request sees it — read once, on first use, so that every part of an answer agrees even if
 * the head moves meanwhile.
 */
export interface RequestContext<Head = unknown> {
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  /** The same event as `signal`, without an AbortController: what the EVM workers' queue listens to. */
  readonly gone: ClientSignal;
  /** The head of the network's chain as this request sees it; its type is the network's ({@link HeadOf} its context). */
  head(): Promise<Head | undefined>;
}

/** The client going away, with an AbortSignal's `aborted` and listeners (an AbortSignal fits). */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * How much of the node one call of a method may take, declared by the method next to its name
 * (as reth's trace and blocking-task permits are acquired by the methods themselves):
 *
 * - `cheap`: reads that cost about what a state, block or receipt lookup costs (tens of µs to a
 *   few ms, answered on the request thread from caches and LevelDB). Counted by a key's rate and
 *   quota only. A method that declares nothing is cheap, and so is a name no table serves (it is
 *   answered -32601 anyway). `eth_getFilterLogs` and `starknet_getEvents` also scan blocks, under
 *   their own range and page caps; they were never counted as heavy and are declared cheap.
 * - `heavy`: a call whose cost grows with what the client asks: one that runs the EVM (`eth_call`,
 *   `eth_estimateGas`, `eth_createAccessList`, `eth_simulateV1`, every `trace_*` and
 *   `debug_trace*`) or scans a range of blocks (`eth_getLogs`). Besides the rate and quota, the
 *   pipeline counts it against the key's `maxConcurrentHeavy`: a call past the cap is refused at
 *   once (-32005, HTTP 429) rather than queued without bound.
 */
export type MethodCost = 'cheap' | 'heavy';

/** What a method declares about its cost, as the pipeline reads it (defaults applied). */
export interface MethodDeclaration {
  readonly cost: MethodCost;
  /**
   * Whether a call may run on an EVM worker (`workers/`): it then waits in the pool's one bounded
   * queue, and answers -32005 `node is busy` when that queue is full. A method that runs the EVM
   * is heavy ({@link createMethodTable} refuses one declared cheap). The pipeline passes it on to
   * middleware with the call; the per-key cap counts by `cost`.
   */
  readonly evm: boolean;
}

/**
 * A JSON-RPC method as the dispatcher sees it: a wire name, its declared cost, and one function
 * that validates the raw `params` and runs the handler. Built with {@link defineMethod} (or
 * written by hand: `cost` and `evm` may be left out, for a cheap method off the EVM). `req` is
 * absent when a method is called outside a request (tests, internal callers).
 *
 * Its type carries the contract a caller sees: the wire name `Name`, the wire arguments `Params`
 * (a tuple, optional ones marked) and the result `Result` before JSON encoding. {@link defineMethod}
 * infers all three from the spec, so a change to a handler's result changes the type of every
 * caller that reads it ({@link MethodApi}: the typed clients of the tests are derived from it).
 */
export interface MethodDefinition<
  Ctx,
  Name extends string = string,
  Params extends readonly unknown[] = readonly unknown[],
  Result = unknown,
  Raises extends string = string,
> {
  readonly name: Name;
  /** The method's cost class (default `cheap`); see {@link MethodCost}. */
  readonly cost?: MethodCost;
  /** Whether it runs on an EVM worker (default false); see {@link MethodDeclaration.evm}. */
  readonly evm?: boolean;
  /**
   * The domain errors (by name) its handler may let through, which the table's `mapError`
   * answers: pathfinder's per-method error sets. The dispatcher logs a warning for one it does
   * not declare (answered all the same); absent, nothing is checked.
   */
  readonly raises?: readonly Raises[];
  call(ctx: Ctx, params: unknown, req?: RequestContext<HeadOf<Ctx>>): Promise<Result>;
  /** Types only, never set: the wire arguments and the result, for {@link MethodApi}. */
  readonly '~types'?: { readonly params: Params; readonly result: Result };
}

/** The domain error names the definitions `Defs` declare (`raises`), as one union. */
export type RaisesOf<Defs extends readonly MethodDefinition<never>[]> = NonNullable<Defs[number]['raises']>[number];

/**
 * The head type of a network whose methods take a `Ctx`: a context names it with a `'~head'`
 * field that exists only in its type, never set (`EthContext` names the chain store's head).
 * Unknown for a context that names none.
 */
export type HeadOf<Ctx> = Ctx extends { readonly '~head'?: infer H } ? H : unknown;

/**
 * The API a list of definitions serves, by wire name: each method's wire arguments, result and
 * the domain errors it declares.
 * What typed clients are built from (`MethodApi<typeof ethereumDefinitions>`).
 */
export type MethodApi<Defs extends readonly MethodDefinition<never>[]> = {
  [D in Defs[number] as D['name']]: D extends MethodDefinition<never, string, infer P, infer R, infer E>
    ? { readonly params: P; readonly result: R; readonly raises: E }
    : never;
};

/**
 * A network's served methods, by wire name. A name absent from it is "method not found".
 * `declaration` gives what a name's definition declares, defaults applied (an unknown name is
 * cheap). `mapError` turns what the handlers' domain layers throw into wire errors (the
 * dispatcher applies it only when a call fails, so a successful call costs nothing more).
 */
export interface MethodTable<Ctx> extends ReadonlyMap<string, MethodDefinition<Ctx>> {
  declaration(name: string): MethodDeclaration;
  readonly mapError?: (err: unknown) => RpcError | undefined;
}

// The four declarations there are, shared: reading one allocates nothing on the request path.
const DECLARATIONS: Readonly<Record<MethodCost, readonly [MethodDeclaration, MethodDeclaration]>> = {
  cheap: [Object.freeze({ cost: 'cheap', evm: false }), Object.freeze({ cost: 'cheap', evm: true })],
  heavy: [Object.freeze({ cost: 'heavy', evm: false }), Object.freeze({ cost: 'heavy', evm: true })],
};

/** What `def` declares, with the defaults (`cheap`, off the EVM) for what it leaves out or for no method. */
export function declarationOf(def: Pick<MethodDefinition<never>, 'cost' | 'evm'> | undefined): MethodDeclaration {
  return DECLARATIONS[def?.cost ?? 'cheap'][def?.evm === true ? 1 : 0];
}

type Outputs<S extends readonly z.ZodType[]> = { -readonly [K in keyof S]: z.output<S[K]> };

/** What a client sends for a schema: the wire type it names (`Wired`, `codec/schemas.ts`), else zod's input type. */
type WireOf<T extends z.ZodType> = T extends { readonly '~wire'?: infer W } ? (unknown extends W ? z.input<T> : W) : z.input<T>;

/**
 * The wire arguments of schemas `S` of which the first `R` are required: a tuple whose later
 * elements are optional and may be null, as {@link defineMethod} accepts them.
 */
export type WireParams<S extends readonly z.ZodType[], R extends number, Seen extends readonly unknown[] = []> = S extends readonly [
  infer H extends z.ZodType,
  ...infer T extends readonly z.ZodType[],
]
  ? Seen['length'] extends R
    ? { -readonly [K in keyof S]?: WireOf<S[K]> | null }
    : [WireOf<H>, ...WireParams<T, R, [...Seen, H]>]
  : [];

export interface MethodSpec<Ctx, Name extends string, S extends readonly z.ZodType[], R extends number, Result, Raises extends string> {
  /** Wire name, e.g. `eth_getStorageAt`. */
  name: Name;
  /** One schema per positional argument; each decodes wire JSON into domain values. */
  params: S;
  /** How many leading arguments are required (default: all). Later ones may be omitted or null. */
  required?: R;
  /** Names of the arguments, so that by-name params (a JSON object) are accepted too. */
  names?: readonly string[];
  /** Cost class (default `cheap`): `heavy` for a method that runs the EVM or scans blocks; see {@link MethodCost}. */
  cost?: MethodCost;
  /** Whether it runs on an EVM worker (default false); see {@link MethodDeclaration.evm}. */
  evm?: boolean;
  /** The domain errors its handler may let through; see {@link MethodDefinition.raises}. */
  raises?: readonly Raises[];
  handler: (ctx: Ctx, args: Outputs<S>, req: RequestContext<HeadOf<Ctx>> | undefined) => Result | PromiseLike<Result>;
}

/**
 * Defines a method with geth's argument rules (ethereum/go-ethereum `rpc/json.go`):
 * `params` omitted or null means no arguments; a non-array is `non-array args` unless the method
 * accepts names; too few is `missing value for required argument <i>`; too many is
 * `too many arguments, want at most <n>`; a bad one is `invalid argument <i>: <detail>`.
 */
export function defineMethod<
  Ctx,
  const Name extends string,
  const S extends readonly z.ZodType[],
  Result,
  const R extends number = S['length'],
  const Raises extends string = never,
>(spec: MethodSpec<Ctx, Name, S, R, Result, Raises>): MethodDefinition<Ctx, Name, WireParams<S, R>, Awaited<Result>, Raises> {
  const required = spec.required ?? spec.params.length;
  const direct = spec.params.map(directDecoder);
  return {
    name: spec.name,
    cost: spec.cost ?? 'cheap',
    evm: spec.evm ?? false,
    raises: spec.raises,
    async call(ctx: Ctx, params: unknown, req?: RequestContext<HeadOf<Ctx>>): Promise<Awaited<Result>> {
      const raw = positional(params, spec.names);
      if (raw.length > spec.params.length) {
        throw new InvalidParamsError(`too many arguments, want at most ${spec.params.length}`);
      }
      const args: unknown[] = [];
      for (let i = 0; i < spec.params.length; i++) {
        const value = raw[i];
        if (value === undefined || (value === null && i >= required)) {
          if (i < required) throw new InvalidParamsError(`missing value for required argument ${i}`);
          args.push(undefined);
          continue;
        }
        const decode = direct[i];
        if (decode !== undefined) {
          // The same value and message as safeParse would give, without zod's machinery.
          try {
            args.push(decode(value));
          } catch (err) {
            if (err instanceof HexError) throw new InvalidParamsError(`invalid argument ${i}: ${err.message}`);
            throw err;
          }
          continue;
        }
        const parsed = spec.params[i].safeParse(value);
        if (!parsed.success) throw new InvalidParamsError(`invalid argument ${i}: ${describeZodError(parsed.error)}`);
        args.push(parsed.data);
      }
      return await spec.handler(ctx, args as Outputs<S>, req);
    },
  };
}

function positional(params: unknown, names: readonly string[] | undefined): unknown[] {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  if (names && typeof params === 'object') {
    const obj = params as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (!names.includes(key)) throw new InvalidParamsError(`unknown argument name: ${cutString(key)}`);
    }
    const out = names.map((n) => obj[n]);
    while (out.length > 0 && out[out.length - 1] === undefined) out.pop();
    return out;
  }
  throw new InvalidParamsError('non-array args');
}

/** One readable line from a zod error: the first issue, with its path inside the argument. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid value';
  const path = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${path}${issue.message}`;
}

/**
 * Builds a method table from definitions, refusing duplicate names and a method that runs the
 * EVM but declares itself cheap. `mapError` travels with the table: the dispatcher passes it
 * whatever a call throws and sends the wire error it returns. That is how a network's domain
 * errors become wire errors without this layer knowing them: the table's builder passes
 * `toRpcError` (`methods/errors.ts`).
 */
export function createMethodTable<Ctx>(defs: readonly MethodDefinition<Ctx>[], mapError?: (err: unknown) => RpcError | undefined): MethodTable<Ctx> {
  const table = new Map<string, MethodDefinition<Ctx>>();
  for (const def of defs) {
    if (table.has(def.name)) throw new Error(`duplicate method ${def.name}`);
    const declared = declarationOf(def);
    if (declared.evm && declared.cost !== 'heavy') throw new Error(`method ${def.name} runs on an EVM worker but is declared ${declared.cost}`);
    table.set(def.name, def);
  }
  const declaration = (name: string): MethodDeclaration => declarationOf(table.get(name));
  return mapError ? Object.assign(table, { declaration, mapError }) : Object.assign(table, { declaration });
}
