import type { Block, BlockHeader } from '@ethereumjs/block';
import type { EVM, EVMResult } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, bigIntToUnpaddedBytes, bytesToHex, type DB, eoaCode7702RecoverAuthority, generateAddress } from '@ethereumjs/util';
import type { EthereumChain } from '../../chain/open.js';
import type { AccountOverride, BlockOverrides, CallRequest } from '../../execution/callArgs.js';
import type { CallEngine } from '../../execution/callEngine.js';
import { CallError, type CallResult } from '../../execution/callResult.js';
import { overriddenState } from '../../execution/stateOverrides.js';
import type { PreparedCall } from '../../execution/transition.js';
import { raceFetchOnMiss } from '../../state/fetchOnMiss.js';
import type { StateReadCache } from '../../state/readCache.js';
import { runOnVm, vmOnParent } from '../replay.js';
import { CallTracer, FourByteTracer } from './callTracer.js';
import { TraceHarness } from './harness.js';
import { PrestateTracer } from './prestateTracer.js';
import { StructLogger, TraceTooLargeError } from './structLogger.js';
import { type DebugTraceOptions, type StateView, stateView, type Tracer, type TracerSpec, type TxStart } from './tracer.js';

/**
 * Running geth's debug tracers in an EVM worker: over a stored block (debug_traceBlockBy*, and
 * debug_traceTransaction, which stops after its transaction) or over a call (debug_traceCall).
 * A block runs again on its parent's state over a write overlay, as trace replays do
 * (`replay.ts`); only the traced transactions have a tracer attached. Each traced transaction
 * runs under the request's timeout, and the answer's JSON is bounded by `maxResultBytes`.
 */

/** One transaction's trace in a block answer, as geth's `txTraceResult`. */
export interface TxTraceResult {
  txHash: string;
  result: unknown;
}

/** A block's traces and the bytes of their JSON (what a cache of answers counts). */
export interface BlockTraceOutput {
  results: TxTraceResult[];
  bytes: number;
}

/** The tracer a spec names. `budget`: the bytes its answer may still use. */
function createTracer(spec: TracerSpec, budget: number): Tracer {
  switch (spec.name) {
    case 'structLogger':
      return new StructLogger(spec, budget);
    case 'callTracer':
      return new CallTracer(spec);
    case 'prestateTracer':
      return new PrestateTracer(spec);
    case '4byteTracer':
      return new FourByteTracer();
  }
}

function tracerOpcodes(spec: TracerSpec): number[] {
  return [...(createTracer(spec, Number.POSITIVE_INFINITY).opcodes ?? [])];
}

/** The error when an answer outgrows `tracing.debugMaxResultBytes`. */
export function tooLarge(max: number): CallError {
  return new CallError(
    `trace result exceeds ${max} bytes (tracing.debugMaxResultBytes): narrow it with limit, disableStack, disableStorage or a smaller block`,
  );
}

const STOP = Symbol('stop');

/** The struct logger's overflow as the wire error naming the setting. */
function named(err: unknown, opts: DebugTraceOptions): unknown {
  return err instanceof TraceTooLargeError ? tooLarge(opts.maxResultBytes) : err;
}

/**
 * Traces the transactions of `block` (only the one at `txIndex` when given), each with a fresh
 * tracer, on the state after its parent. Throws when the parent is unknown.
 */
export async function traceBlock(
  chain: EthereumChain,
  stateDb: DB<string, string | Uint8Array>,
  block: Block,
  txIndex: number | undefined,
  opts: DebugTraceOptions,
): Promise<BlockTraceOutput> {
  if (block.transactions.length === 0) return { results: [], bytes: 2 };
  const vm = await vmOnParent(chain, stateDb, block, 'trace');
  const evm = vm.evm as EVM;
  const harness = new TraceHarness(evm, tracerOpcodes(opts.tracer));
  const view = stateView(vm.stateManager);
  const results: TxTraceResult[] = [];
  let index = -1;
  let logsBefore = 0;
  let traced = false;
  let used = 0;
  let stop = false;
  let failure: unknown;
  let current: Tracer | undefined;

  vm.events.on('beforeTx', (tx: TypedTransaction, resolve?: (result?: unknown) => void) => {
    if (stop) throw STOP;
    index++;
    traced = txIndex === undefined || index === txIndex;
    if (!traced) {
      resolve?.();
      return;
    }
    const tracer = createTracer(opts.tracer, opts.maxResultBytes - used);
    current = tracer;
    harness.begin(tracer, txStart(tx, block.header, evm, logsBefore), view, view, opts.timeoutMs).then(
      () => resolve?.(),
      (err) => {
        failure = err;
        stop = true;
        harness.detach();
        resolve?.();
      },
    );
  });
  vm.events.on(
    'afterTx',
    (
      event: { transaction: TypedTransaction; totalGasSpent: bigint; execResult: EVMResult['execResult']; receipt: { logs: unknown[] } },
      resolve?: (result?: unknown) => void,
    ) => {
      logsBefore += event.receipt.logs.length;
      if (!traced || failure !== undefined) {
        resolve?.();
        return;
      }
      traced = false;
      harness
        .end({ gasUsed: event.totalGasSpent, result: { execResult: event.execResult } as EVMResult }, view)
        .then((result) => {
          used += current?.size?.() ?? resultBytes(result);
          if (used > opts.maxResultBytes) throw tooLarge(opts.maxResultBytes);
          results.push({ txHash: bytesToHex(event.transaction.hash()), result });
          if (txIndex !== undefined) stop = true;
        })
        .catch((err) => {
          failure = err;
          stop = true;
        })
        .finally(() => resolve?.());
    },
  );

  try {
    await raceFetchOnMiss(vm.stateManager, runOnVm(chain, vm, block));
  } catch (err) {
    if (err !== STOP) throw named(err, opts);
  } finally {
    harness.detach();
  }
  if (failure !== undefined) throw named(failure, opts);
  return { results, bytes: used };
}

/** Traces a call on the state after `header` with the request's overrides (debug_traceCall). */
export async function traceCall(
  engine: CallEngine,
  reads: StateReadCache,
  header: BlockHeader,
  request: CallRequest,
  overrides: { state?: AccountOverride[]; block?: BlockOverrides },
  opts: DebugTraceOptions,
): Promise<unknown> {
  const tracer = createTracer(opts.tracer, opts.maxResultBytes);
  let harness: TraceHarness | undefined;
  let result: CallResult;
  let evm: EVM;
  let prepared: PreparedCall;
  try {
    ({ result, evm, prepared } = await engine.instrumentedCall(header, request, overrides, async (e, p) => {
      harness = new TraceHarness(e, tracer.opcodes ?? []);
      const before = stateView(await overriddenState(reads, p.ctx.header.stateRoot, p.state));
      const now = lazyView(e);
      const { msg, ctx } = p;
      const sender = await before.account(msg.from);
      const tx: TxStart = {
        from: msg.from,
        to: msg.to,
        created: msg.to === undefined ? generateAddress(msg.from, bigIntToBytes(sender.nonce)) : undefined,
        gasLimit: msg.gasLimit,
        value: msg.value,
        input: msg.data,
        coinbase: ctx.coinbase,
        authorities: (msg.authorizations ?? []).flatMap((a) => recoverAuthority(a)),
        logIndexBase: 0,
        cancun: ctx.fork.common.isActivatedEIP(6780),
        prague: ctx.fork.common.isActivatedEIP(7702),
        precompiles: new Set(e.precompiles.keys()),
      };
      await harness.begin(tracer, tx, before, now, opts.timeoutMs);
    }));
  } catch (err) {
    harness?.detach();
    throw named(err, opts);
  }
  // geth's state transition ends by refunding the unused gas and paying the coinbase its tip
  // (skipped for a call that pays nothing); the call engine stops before, so it happens here.
  const { msg, ctx } = prepared;
  const payer = !(msg.feeCap === 0n && msg.tipCap === 0n && msg.gasPrice === 0n);
  if (payer && tracer instanceof PrestateTracer) {
    const sm = evm.stateManager;
    const from = new Address(msg.from);
    const account = await sm.getAccount(from);
    if (account) {
      account.balance += (msg.gasLimit - result.gasUsed) * msg.gasPrice;
      await sm.putAccount(from, account);
    }
    const london = ctx.fork.common.isActivatedEIP(1559);
    let tip = msg.gasPrice;
    if (london) {
      const room = msg.feeCap - (ctx.baseFee ?? 0n);
      tip = msg.tipCap < room ? msg.tipCap : room;
    }
    if (tip > 0n) {
      const coinbase = new Address(ctx.coinbase);
      const next = (await sm.getAccount(coinbase)) ?? new Account();
      next.balance += result.gasUsed * tip;
      await sm.putAccount(coinbase, next);
    }
  }
  const answer = await harness!.end({ gasUsed: result.gasUsed, result: undefined }, lazyView(evm)).catch((err) => {
    throw named(err, opts);
  });
  if (resultBytes(answer) > opts.maxResultBytes) throw tooLarge(opts.maxResultBytes);
  return answer;
}

function txStart(tx: TypedTransaction, header: BlockHeader, evm: EVM, logIndexBase: number): TxStart {
  const from = tx.getSenderAddress().bytes;
  const common = evm.common;
  const list = (tx as { authorizationList?: unknown[] }).authorizationList ?? [];
  const authorities: Uint8Array[] = [];
  for (const item of list) {
    try {
      authorities.push(eoaCode7702RecoverAuthority(item as never).bytes);
    } catch {
      // geth skips an authorization whose signature does not recover.
    }
  }
  return {
    from,
    to: tx.to?.bytes,
    created: tx.to === undefined ? generateAddress(from, bigIntToBytes(tx.nonce)) : undefined,
    gasLimit: tx.gasLimit,
    value: tx.value,
    input: tx.data,
    coinbase: header.coinbase.bytes,
    authorities,
    logIndexBase,
    cancun: common.isActivatedEIP(6780),
    prague: common.isActivatedEIP(7702),
    precompiles: new Set(evm.precompiles.keys()),
  };
}

function recoverAuthority(a: { chainId: bigint; address: Uint8Array; nonce: bigint; yParity: bigint; r: bigint; s: bigint }): Uint8Array[] {
  try {
    const item = [
      bigIntToUnpaddedBytes(a.chainId),
      a.address,
      bigIntToUnpaddedBytes(a.nonce),
      bigIntToUnpaddedBytes(a.yParity),
      bigIntToUnpaddedBytes(a.r),
      bigIntToUnpaddedBytes(a.s),
    ];
    return [eoaCode7702RecoverAuthority(item as never).bytes];
  } catch {
    return [];
  }
}

/** The EVM's current state (it is re-pointed when the run starts). */
function lazyView(evm: EVM): StateView {
  return {
    account: (address) => stateView(evm.stateManager).account(address),
    storage: (address, key) => stateView(evm.stateManager).storage(address, key),
  };
}

/** An answer's JSON size (a struct log's entries were counted as they were made). */
function resultBytes(result: unknown): number {
  return JSON.stringify(result)?.length ?? 0;
}
