import type { Block } from '@ethereumjs/block';
import type { z } from 'zod';
import { HexError } from '../../codec/hex.js';
import { quoteString } from '../../codec/quote.js';
import { decoderSchema, jsonType } from '../../codec/schemas.js';
import type { AccountOverride, BlockOverrides } from '../../execution/callArgs.js';
import { ServerError } from '../../rpc/errors.js';
import type { TracerSpec } from '../../tracing/debug/tracer.js';
import type { EthContext, EthRequest } from '../context.js';
import { BlockOverrideSet, StateOverrideSet } from '../eth/_shared/callArgs.js';
import { evmRequest } from '../evmRequest.js';

/**
 * What the debug_trace* methods share: geth's `TraceConfig` (and `TraceCallConfig`) decoded with
 * geth's errors, the tracer it names, and the block tracing every method but debug_traceCall
 * runs (ethereum/go-ethereum `eth/tracers/api.go`).
 */

/** A decoded trace config. */
export interface TraceConfig {
  tracer: TracerSpec | { name: 'unknown'; code: string };
  tracerConfig: unknown;
  /** The `timeout` string, parsed when the trace starts (geth fails it there, as -32000). */
  timeout: string | undefined;
  state?: AccountOverride[];
  block?: BlockOverrides;
  txIndex?: bigint;
}

const BOOLS = ['disableStorage', 'disableStack', 'enableMemory', 'enableReturnData', 'debug'] as const;

function fieldError(struct: string, field: string, value: unknown, type: string): HexError {
  return new HexError(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${struct}.${field} of type ${type}`);
}

/** geth's `TraceConfig` (`withCall`: `TraceCallConfig`, which adds the overrides and `txIndex`). */
function decodeTraceConfig(value: unknown, withCall: boolean): TraceConfig {
  const struct = withCall ? 'TraceCallConfig' : 'TraceConfig';
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type tracers.${struct}`);
  const o = value as Record<string, unknown>;
  const get = (name: string): unknown => {
    // Go's decoder matches field names case-insensitively.
    const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
    const v = key === undefined ? undefined : o[key];
    return v === null ? undefined : v;
  };
  const str = (name: string): string | undefined => {
    const v = get(name);
    if (v !== undefined && typeof v !== 'string') throw fieldError(struct, name, v, 'string');
    return v;
  };
  const logger: Record<string, boolean> = {};
  for (const name of BOOLS) {
    const v = get(name);
    if (v !== undefined && typeof v !== 'boolean') throw fieldError(struct, name, v, 'bool');
    logger[name] = v === true;
  }
  const limit = get('limit');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit))) throw fieldError(struct, 'limit', limit, 'int');
  const name = str('tracer');
  const tracerConfig = get('tracerConfig');
  let tracer: TraceConfig['tracer'];
  if (name === undefined) {
    tracer = {
      name: 'structLogger',
      disableStack: logger.disableStack,
      disableStorage: logger.disableStorage,
      enableMemory: logger.enableMemory,
      enableReturnData: logger.enableReturnData,
      limit: typeof limit === 'number' && limit > 0 ? limit : 0,
    };
  } else tracer = { name: 'unknown', code: name };
  const config: TraceConfig = { tracer, tracerConfig, timeout: str('timeout') };
  if (withCall) {
    const nested = <T>(schema: z.ZodType<T>, field: string): T | undefined => {
      const v = get(field);
      if (v === undefined) return undefined;
      const parsed = schema.safeParse(v);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      const path = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
      throw new HexError(`${field}: ${path}${issue?.message ?? 'invalid value'}`);
    };
    config.state = nested(StateOverrideSet, 'stateOverrides');
    config.block = nested(BlockOverrideSet, 'blockOverrides');
    const txIndex = get('txIndex');
    if (txIndex !== undefined) {
      if (typeof txIndex !== 'string') throw fieldError(struct, 'txIndex', txIndex, 'hexutil.Uint');
      if (!/^0x(0|[1-9a-f][0-9a-f]*)$/i.test(txIndex))
        throw new HexError(`json: cannot unmarshal hex string into Go struct field ${struct}.txIndex of type hexutil.Uint`);
      config.txIndex = BigInt(txIndex);
    }
  }
  return config;
}

/** The trace config argument of debug_traceTransaction and debug_traceBlockBy*. */
export const TraceConfigParam = decoderSchema((value) => decodeTraceConfig(value, false));
/** The trace config argument of debug_traceCall. */
export const TraceCallConfigParam = decoderSchema((value) => decodeTraceConfig(value, true));

/** The tracers served, by geth's names. */
const TRACERS = new Set(['callTracer', 'prestateTracer', '4byteTracer']);

/**
 * The tracer a config names, with its `tracerConfig` decoded as geth decodes it (unknown fields
 * ignored; a wrong type is the tracer's construction error, -32000). A name geth does not know is
 * taken as JavaScript by geth and compiled; this node runs no JavaScript, so such a tracer (code or
 * an unknown name) is refused with a -32000 that says so.
 */
export function resolveTracer(config: TraceConfig): TracerSpec {
  const t = config.tracer;
  if (t.name !== 'unknown') return t;
  const name = t.code;
  if (!TRACERS.has(name)) {
    if (/^[A-Za-z_$][\w$]*$/.test(name))
      throw new ServerError(
        `tracer not found: ${quoteString(name)} is not a tracer this node serves (callTracer, prestateTracer, 4byteTracer, or no tracer for the struct logger)`,
      );
    throw new ServerError('JavaScript tracers are not supported: use callTracer, prestateTracer, 4byteTracer, or no tracer for the struct logger');
  }
  const raw = config.tracerConfig ?? {};
  const struct = name === 'callTracer' ? 'native.callTracerConfig' : name === 'prestateTracer' ? 'native.PrestateTracerConfig' : '';
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    if (name === '4byteTracer') return { name };
    throw new ServerError(`json: cannot unmarshal ${jsonType(raw)} into Go value of type ${struct}`);
  }
  const o = raw as Record<string, unknown>;
  const flag = (field: string): boolean => {
    const key = Object.keys(o).find((k) => k.toLowerCase() === field.toLowerCase());
    const v = key === undefined ? undefined : o[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean')
      throw new ServerError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${struct.split('.')[1]}.${field} of type bool`);
    return v;
  };
  if (name === 'callTracer') return { name, onlyTopCall: flag('onlyTopCall'), withLog: flag('withLog') };
  if (name === 'prestateTracer') {
    const spec = {
      name,
      diffMode: flag('diffMode'),
      disableCode: flag('disableCode'),
      disableStorage: flag('disableStorage'),
      includeEmpty: flag('includeEmpty'),
    } as const;
    if (spec.diffMode && spec.includeEmpty) throw new ServerError('cannot use diffMode with includeEmpty');
    return spec;
  }
  return { name: '4byteTracer' };
}

const UNITS: ReadonlyMap<string, number> = new Map([
  ['ns', 1e-6],
  ['us', 1e-3],
  ['µs', 1e-3],
  ['μs', 1e-3],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
]);

/** Go's `time.ParseDuration`, in milliseconds, with its error texts (geth answers them as -32000). */
export function parseDuration(input: string): number {
  const bad = () => new ServerError(`time: invalid duration ${quoteString(input)}`);
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw bad();
  let total = 0;
  while (s !== '') {
    const number = /^(\d*)(\.(\d*))?/.exec(s);
    if (!number || (number[1] === '' && (number[3] ?? '') === '')) throw bad();
    s = s.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') throw new ServerError(`time: missing unit in duration ${quoteString(input)}`);
    const scale = UNITS.get(unit);
    if (scale === undefined) throw new ServerError(`time: unknown unit ${quoteString(unit)} in duration ${quoteString(input)}`);
    s = s.slice(unit.length);
    total += Number(`${number[1] || '0'}.${number[3] || '0'}`) * scale;
  }
  return sign * total;
}

/** The timeout a config asks for (undefined: the node's default). */
export function requestedTimeout(config: TraceConfig | undefined): number | undefined {
  return config?.timeout === undefined ? undefined : parseDuration(config.timeout);
}

/** geth's answer for a block: each transaction's trace with its hash. */
export async function traceWholeBlock(ctx: EthContext, block: Block, config: TraceConfig | undefined, req?: EthRequest): Promise<unknown> {
  if (block.header.number === 0n) throw new ServerError('genesis is not traceable');
  const tracer = resolveTracer(config ?? absentTraceConfig());
  const timeoutMs = requestedTimeout(config);
  return ctx.evm.debug.traceBlock(block, undefined, { tracer, timeoutMs }, evmRequest(req));
}

/**
 * The trace config of a request that gives none: geth's struct logger with its defaults. A wire
 * default (what an absent parameter means), not a setting of this node.
 */
export function absentTraceConfig(): TraceConfig {
  return decodeTraceConfig({}, false);
}
