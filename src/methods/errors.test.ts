import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BeforeArchiveStartError } from '../chain/archiveStart.js';
import { OpBlockError } from '../chain/op/baseFee.js';
import { DepositDecodeError } from '../chain/op/depositTx.js';
import { NotInitialisedError } from '../chain/open.js';
import { SchemaError } from '../db/schema.js';
import { SnapshotError } from '../db/snapshot.js';
import type { DomainError, DomainErrorName } from '../errors/domainError.js';
import { SystemCallError } from '../execution/blockRun.js';
import { CallError, CallTimeoutError, ExecutionFailedError, MessageError } from '../execution/callResult.js';
import { SimulateError } from '../execution/simulate/errors.js';
import { GenesisAnchorError } from '../follow/anchor.js';
import { BlockFromRpcError } from '../follow/blockFromRpc.js';
import { FollowStoppedError } from '../follow/followLoop.js';
import { UpstreamError, UpstreamRpcError } from '../follow/upstream.js';
import { InvalidBlockError } from '../import/validate.js';
import * as live from '../live/errors.js';
import * as starknet from '../starknet/errors.js';
import { FeltError } from '../starknet/felt.js';
import { StarknetImportError } from '../starknet/importBlocks.js';
import { DatadirKindError } from '../starknet/store.js';
import { SiblingSearchError } from '../state/fetchOnMiss.js';
import { MissingCodeError, MissingTrieNodeError, RemoteStateError } from '../state/stateSource.js';
import { TraceTimeoutError } from '../tracing/debug/harness.js';
import { TraceTooLargeError } from '../tracing/debug/structLogger.js';
import { JobAbortedError, PoolBusyError, PoolClosedError, WorkerCrashedError } from '../workers/pool.js';
import { toRpcError } from './errors.js';

type Wire = { code: number; message: string; data?: unknown } | 'internal';

const HASH = new Uint8Array(32).fill(0xab);
const HASH_HEX = `0x${'ab'.repeat(32)}`;

/**
 * One instance of every domain error and what a client is told when a handler lets it through.
 * Typed by {@link DomainErrorName}: a new domain error does not compile until it has a line here
 * (as it does not compile until `methods/errors.ts` maps it). Codes and texts: geth's for the call
 * engine and pruned state (`internal/ethapi`, `core/history`), Infura's -32005 for caps, EIP-1474's
 * -32002 for state to fetch again later, the Starknet spec's codes (24, 31–34, 20, 27–29).
 */
const CASES: { readonly [K in DomainErrorName]: readonly [DomainError, Wire] } = {
  ExecutionFailedError: [
    new ExecutionFailedError({ returnValue: new Uint8Array([0xde, 0xad]), gasUsed: 21_000n, logs: [], failure: { kind: 'revert' } } as never),
    { code: 3, message: 'execution reverted', data: '0xdead' },
  ],
  SimulateError: [
    new SimulateError('nonceTooLow', 'nonce too low: next nonce 2, tx nonce 1'),
    { code: -38010, message: 'nonce too low: next nonce 2, tx nonce 1' },
  ],
  CallError: [new CallError('header not found'), { code: -32000, message: 'header not found' }],
  MessageError: [
    new MessageError('insufficient funds for gas * price + value', 30_000_000n),
    { code: -32000, message: 'err: insufficient funds for gas * price + value (supplied gas 30000000)' },
  ],
  CallTimeoutError: [new CallTimeoutError(5000), { code: -32000, message: 'execution aborted (timeout = 5s)' }],
  TraceTimeoutError: [new TraceTimeoutError(), { code: -32000, message: 'execution timeout' }],
  TraceTooLargeError: [new TraceTooLargeError(), { code: -32000, message: 'trace result too large' }],
  PoolBusyError: [new PoolBusyError('node is busy'), { code: -32005, message: 'node is busy' }],
  WorkerCrashedError: [new WorkerCrashedError('the EVM worker died'), { code: -32000, message: 'the EVM worker died' }],
  PoolClosedError: [new PoolClosedError('shutting down'), { code: -32000, message: 'shutting down' }],
  JobAbortedError: [new JobAbortedError('client went away'), { code: -32000, message: 'client went away' }],
  BeforeArchiveStartError: [
    new BeforeArchiveStartError('state', 5n, 100n),
    { code: -32000, message: 'missing trie node: the state of block 5 is not available, this archive starts at block 100', data: { archiveStart: '0x64' } },
  ],
  RemoteStateError: [
    new RemoteStateError('unreachable', 'the followed node did not answer'),
    { code: -32002, message: 'the followed node did not answer', data: { retryable: true } },
  ],
  SiblingSearchError: [new SiblingSearchError('sibling lies 7 nibbles deep'), { code: -32000, message: 'sibling lies 7 nibbles deep' }],
  MissingTrieNodeError: [new MissingTrieNodeError(HASH), { code: -32000, message: `missing trie node ${HASH_HEX}` }],
  MissingCodeError: [new MissingCodeError(HASH), { code: -32000, message: `missing code ${HASH_HEX}` }],
  BlockNotFoundError: [new starknet.BlockNotFoundError('number 7'), { code: 24, message: 'Block not found' }],
  PageSizeTooBigError: [new starknet.PageSizeTooBigError(2000, 1024), { code: 31, message: 'Requested page size is too big' }],
  NoBlocksError: [new starknet.NoBlocksError(), { code: 32, message: 'There are no blocks' }],
  InvalidContinuationTokenError: [
    new starknet.InvalidContinuationTokenError('not a number'),
    { code: 33, message: 'The supplied continuation token is invalid or unknown' },
  ],
  TooManyKeysInFilterError: [new starknet.TooManyKeysInFilterError(20, 16), { code: 34, message: 'Too many keys provided in a filter' }],
  TransactionNotFoundError: [new starknet.TransactionNotFoundError('0x1'), { code: 29, message: 'Transaction hash not found' }],
  InvalidTransactionIndexError: [new starknet.InvalidTransactionIndexError('number 7', 9), { code: 27, message: 'Invalid transaction index in a block' }],
  ContractNotFoundError: [new starknet.ContractNotFoundError('0x2', 7), { code: 20, message: 'Contract not found' }],
  ClassHashNotFoundError: [new starknet.ClassHashNotFoundError('0x3', 7), { code: 28, message: 'Class hash not found' }],
  NotHeldError: [new starknet.NotHeldError('no class definition: follow an upstream'), { code: -32000, message: 'no class definition: follow an upstream' }],
  StateSourceError: [new starknet.StateSourceError('the upstream timed out'), { code: -32000, message: 'the upstream timed out' }],
  FeltError: [new FeltError('felt above the field prime'), { code: -32602, message: 'felt above the field prime' }],
  TooManySubscriptionsError: [new live.TooManySubscriptionsError(100), { code: -32005, message: 'too many subscriptions on this connection (limit 100)' }],
  TooManyFiltersError: [new live.TooManyFiltersError(3), { code: -32005, message: 'too many filters for this key (limit 3); uninstall unused ones' }],
  FilterNotFoundError: [new live.FilterNotFoundError(), { code: -32000, message: 'filter not found' }],
  FilterStoreUnavailableError: [
    new live.FilterStoreUnavailableError(),
    { code: -32000, message: 'filters are unavailable: the shared filter store (Redis) does not answer' },
  ],
  FilterContendedError: [new live.FilterContendedError(), { code: -32000, message: 'filter polled too often at once; try again' }],
  NoHeadYetError: [new live.NoHeadYetError(), { code: -32000, message: 'no block yet' }],
  NoPendingTransactionsError: [new live.NoPendingTransactionsError('no pool'), 'internal'],
  SystemCallError: [new SystemCallError('system contract empty'), 'internal'],
  DepositDecodeError: [new DepositDecodeError('deposit: bad RLP'), 'internal'],
  OpBlockError: [new OpBlockError('Holocene extra data: denominator 0'), 'internal'],
  SchemaError: [new SchemaError('datadir schema 3, this build reads 4'), 'internal'],
  SnapshotError: [new SnapshotError('snapshot truncated'), 'internal'],
  NotInitialisedError: [new NotInitialisedError('run init first'), 'internal'],
  DatadirKindError: [new DatadirKindError('an Ethereum datadir'), 'internal'],
  StarknetImportError: [new StarknetImportError(3, 'bad felt'), 'internal'],
  InvalidBlockError: [new InvalidBlockError('state root mismatch'), 'internal'],
  UpstreamError: [new UpstreamError('timed out'), 'internal'],
  UpstreamRpcError: [new UpstreamRpcError(-32601, 'method not found'), 'internal'],
  BlockFromRpcError: [new BlockFromRpcError('hash mismatch'), 'internal'],
  GenesisAnchorError: [new GenesisAnchorError('another chain'), 'internal'],
  FollowStoppedError: [new FollowStoppedError('stopped'), 'internal'],
};

describe('domain errors on the wire (methods/errors.ts)', () => {
  it('every domain error has its wire answer, and each instance names itself by its class', () => {
    for (const [name, [err, wire]] of Object.entries(CASES)) {
      expect(err.name, name).toBe(name);
      expect(toRpcError(err)?.toJSON() ?? 'internal', name).toEqual(wire);
    }
  });

  it('anything that is not a domain error is not its business', () => {
    expect(toRpcError(new Error('a bug'))).toBeUndefined();
    expect(toRpcError('a string')).toBeUndefined();
    expect(toRpcError(undefined)).toBeUndefined();
  });
});

const SRC = resolve(import.meta.dirname, '..');

/** The layers below `methods/` whose errors are domain errors. */
const DOMAIN_ERROR_LAYERS = ['db', 'chain', 'state', 'execution', 'tracing', 'workers', 'starknet', 'import', 'follow', 'live'];

interface ErrorClass {
  module: string;
  cls: string;
  parent: string;
  /** The literal its `name` field is initialised with, if any. */
  name: string | undefined;
}

/** The classes of `modules` (path → text) that extend something named `…Error`, with the literal their `name` is given. */
function errorClasses(modules: ReadonlyMap<string, string>): ErrorClass[] {
  const out: ErrorClass[] = [];
  for (const [module, text] of modules) {
    for (const m of text.matchAll(/\bclass (\w+) extends ([\w.]*Error)\b[^{]*\{/g)) {
      const end = text.indexOf('\n}', m.index);
      const body = text.slice(m.index, end < 0 ? undefined : end);
      const name = /readonly name(?::[^=]+)?\s*=\s*'(\w+)'/.exec(body)?.[1];
      out.push({ module, cls: m[1], parent: m[2].replace(/^.*\./, ''), name });
    }
  }
  return out;
}

/**
 * What breaks the closed set, as `module: Class …`: a class of a domain layer that extends plain
 * `Error`, or a descendant of DomainError whose `name` is not its class's name (the wire table
 * finds a class by that name).
 */
function domainErrorViolations(classes: readonly ErrorClass[]): string[] {
  const domain = new Set(['DomainError']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of classes) {
      if (domain.has(c.parent) && !domain.has(c.cls)) {
        domain.add(c.cls);
        grew = true;
      }
    }
  }
  const out: string[] = [];
  for (const c of classes) {
    const layer = c.module.split('/')[0];
    if (c.parent === 'Error' && DOMAIN_ERROR_LAYERS.includes(layer)) out.push(`${c.module}: ${c.cls} extends Error, not DomainError`);
    if (domain.has(c.cls) && c.cls !== 'DomainError' && c.name !== c.cls) out.push(`${c.module}: ${c.cls} names itself ${c.name ?? 'nothing'}`);
  }
  return out;
}

function sourceModules(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceModules(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.set(relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8'));
  }
  return out;
}

describe('the closed set of domain errors', () => {
  const classes = errorClasses(sourceModules(SRC));

  it('every error class of a domain layer is a DomainError named by its class', () => {
    expect(classes.filter((c) => c.parent === 'DomainError').length).toBeGreaterThanOrEqual(40);
    expect(domainErrorViolations(classes)).toEqual([]);
    // …and each of them has a line above: the set in errors/domainError.ts is the set of classes.
    const names = classes.filter((c) => c.name !== undefined && c.name in CASES).map((c) => c.name);
    expect(new Set(names)).toEqual(new Set(Object.keys(CASES)));
  });

  it('the check finds a plain Error in a domain layer and a misnamed DomainError, and leaves other layers alone', () => {
    const planted = new Map([
      ['state/a.ts', "export class LostError extends Error {\n  override readonly name = 'LostError';\n}"],
      ['follow/b.ts', "class OddError extends DomainError {\n  override readonly name = 'OtherError';\n}\nclass SubError extends OddError {}"],
      ['cli/c.ts', "export class UsageError extends Error {\n  override readonly name = 'UsageError';\n}"],
    ]);
    expect(domainErrorViolations(errorClasses(planted))).toEqual([
      'state/a.ts: LostError extends Error, not DomainError',
      'follow/b.ts: OddError names itself OtherError',
      'follow/b.ts: SubError names itself nothing',
    ]);
  });
});
