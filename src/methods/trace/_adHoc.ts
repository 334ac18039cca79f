import type { TraceTypeName } from '../../codec/schemas.js';
import { MethodNotSupportedError } from '../../rpc/errors.js';
import type { TraceTypes } from '../../tracing/parityResults.js';

/**
 * What the ad-hoc trace methods share: the trace types they accept. `vmTrace` is refused
 * (docs/methods.md#ad-hoc-tracing): its per-opcode record (costs, gas left, pushed stack items,
 * memory and storage writes) needs an every-opcode hook and has corner cases not built here, so it
 * is not offered rather than offered inexact (Infura does not offer it either).
 */
export function traceTypes(types: ReadonlySet<TraceTypeName>): TraceTypes {
  if (types.has('vmTrace')) {
    throw new MethodNotSupportedError('trace type vmTrace is not supported; ask for "trace" and/or "stateDiff"');
  }
  return { trace: types.has('trace'), stateDiff: types.has('stateDiff') };
}
