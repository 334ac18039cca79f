import type { TraceTypeName } from '../../codec/schemas.js';
import { MethodNotSupportedError } from '../../rpc/errors.js';
import type { TraceTypes } from '../../tracing/parityResults.js';

/**
 * What the ad-hoc trace methods share: the trace types they accept. `vmTrace` is refused
 * (docs/methods.md#ad-hoc-tracing): its per-opcode record (memory and stack deltas, storage
 * writes, gas costs as OpenEthereum computed them) cannot be checked against an independent source
 * here (anvil serves an empty one, Infura none), so it is not offered rather than offered inexact.
 */
export function traceTypes(types: ReadonlySet<TraceTypeName>): TraceTypes {
  if (types.has('vmTrace')) {
    throw new MethodNotSupportedError('trace type vmTrace is not supported; ask for "trace" and/or "stateDiff"');
  }
  return { trace: types.has('trace'), stateDiff: types.has('stateDiff') };
}
