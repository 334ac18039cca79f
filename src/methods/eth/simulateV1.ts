import { z } from 'zod';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { jsonType } from '../../codec/schemas.js';
import type { SimBlock, SimulateRequest } from '../../execution/simulate/simulate.js';
import { InvalidParamsError, RpcError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { evmRequest } from '../evmRequest.js';
import { SIMULATION } from '../raises.js';
import { BlockOverrideSet, CallObject, StateOverrideSet } from './_shared/callArgs.js';
import { formatSimulatedBlock } from './_shared/formatSimulatedBlock.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/** eth_simulateV1's options: the simulation, and how its blocks are rendered. */
type SimOptions = SimulateRequest & { returnFullTransactions: boolean };

/** geth's `simOpts`: keys matched case-insensitively, unknown keys ignored, null = absent. */
const SimOpts = z.unknown().transform((value, ctx): SimOptions => {
  const fail = (message: string, path: (string | number)[] = []) => {
    ctx.addIssue({ code: 'custom', message, path });
    return z.NEVER;
  };
  const membersOf = (v: unknown, goType: string, path: (string | number)[]): Map<string, unknown> | undefined => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      fail(`json: cannot unmarshal ${jsonType(v)} into Go value of type ${goType}`, path);
      return undefined;
    }
    return new Map(Object.entries(v).map(([k, x]) => [k.toLowerCase(), x]));
  };
  const sub = <T>(schema: z.ZodType<T>, v: unknown, path: (string | number)[]): T | undefined => {
    if (v === undefined || v === null) return undefined;
    const parsed = schema.safeParse(v);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(issue?.message ?? 'invalid value', [...path, ...((issue?.path ?? []) as (string | number)[])]);
      return undefined;
    }
    return parsed.data;
  };
  const flag = (v: unknown, name: string): boolean => {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') fail(`json: cannot unmarshal ${jsonType(v)} into Go struct field simOpts.${name} of type bool`, [name]);
    return v === true;
  };
  const m = membersOf(value, 'ethapi.simOpts', []);
  if (m === undefined) return z.NEVER;
  const rawBlocks = m.get('blockstatecalls');
  const blocks: SimBlock[] = [];
  if (rawBlocks !== undefined && rawBlocks !== null) {
    if (!Array.isArray(rawBlocks))
      return fail(`json: cannot unmarshal ${jsonType(rawBlocks)} into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock`);
    for (const [i, raw] of rawBlocks.entries()) {
      const path = ['blockStateCalls', i];
      // Go decodes null into a struct as its zero value: an empty block
      const b = raw === null ? new Map<string, unknown>() : membersOf(raw, 'ethapi.simBlock', path);
      if (b === undefined) return z.NEVER;
      const rawCalls = b.get('calls');
      const calls = [];
      if (rawCalls !== undefined && rawCalls !== null) {
        if (!Array.isArray(rawCalls))
          return fail(`json: cannot unmarshal ${jsonType(rawCalls)} into Go struct field simBlock.calls of type []ethapi.TransactionArgs`, path);
        for (const [j, c] of rawCalls.entries()) {
          const call = sub(CallObject, c ?? {}, [...path, 'calls', j]);
          if (call === undefined) return z.NEVER;
          calls.push(call);
        }
      }
      blocks.push({
        blockOverrides: sub(BlockOverrideSet, b.get('blockoverrides'), [...path, 'blockOverrides']),
        stateOverrides: sub(StateOverrideSet, b.get('stateoverrides'), [...path, 'stateOverrides']),
        calls,
      });
    }
  }
  return {
    blocks,
    traceTransfers: flag(m.get('tracetransfers'), 'traceTransfers'),
    validation: flag(m.get('validation'), 'validation'),
    returnFullTransactions: flag(m.get('returnfulltransactions'), 'returnFullTransactions'),
  };
});

/**
 * `eth_simulateV1(opts, block?)`: simulates a chain of blocks on top of `block` (default `latest`),
 * each with block overrides, state overrides and calls run as transactions, and answers each block
 * as geth does (ethereum/go-ethereum `internal/ethapi/simulate.go`): the block object with its
 * computed roots and hash (transaction hashes, or the transactions with `returnFullTransactions`),
 * and per call `returnData`, `logs`, `gasUsed`, `maxUsedGas`, `status` and `error` (code 3 revert,
 * -32015 other failures). `validation` checks nonces and base fees as for a transaction;
 * otherwise the base fee is 0 unless overridden. Limits: `execution.simulateMaxBlocks` (256),
 * `simulateMaxCallsPerBlock` (5000), `simulateMaxCalls` (10,000), gas `simulateGasBudget`
 * (50,000,000, geth's `--rpc.gascap`) across all calls. geth's codes: -38010/-38011 nonce,
 * -38012 base fee, -38013 intrinsic gas, -38014 funds, -38015 block gas limit, -38020/-38021
 * block order, -38026 limits.
 * https://github.com/ethereum/execution-apis (eth_simulateV1)
 */
export const simulateV1 = defineMethod({
  name: 'eth_simulateV1',
  raises: SIMULATION,
  cost: 'heavy', // runs the EVM
  evm: true,
  params: [SimOpts, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [opts, block], req) => {
    const { simulateMaxBlocks, simulateMaxCallsPerBlock, simulateMaxCalls } = ctx.limits;
    if (opts.blocks.length === 0) throw new InvalidParamsError('empty input');
    if (opts.blocks.length > simulateMaxBlocks) throw new RpcError(-38026, 'too many blocks');
    let total = 0;
    for (const b of opts.blocks) {
      if (b.calls.length > simulateMaxCallsPerBlock) throw new RpcError(-38026, `too many calls in block: ${b.calls.length} > ${simulateMaxCallsPerBlock}`);
      total += b.calls.length;
      if (total > simulateMaxCalls) throw new RpcError(-38026, `too many calls: ${total} > ${simulateMaxCalls}`);
    }
    const header = await resolveBlock(ctx, block, req);
    const { returnFullTransactions, ...simulation } = opts;
    const blocks = await ctx.execution.simulate(header, simulation, evmRequest(req));
    return blocks.map((b) => formatSimulatedBlock(b, returnFullTransactions));
  },
});
