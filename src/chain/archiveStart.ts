import { bytesToHex } from '@ethereumjs/util';
import type { BatchOp, Level } from '../db/database.js';
import { decodeNumber, encodeNumber, META } from '../db/keys.js';
import { DomainError } from '../errors/domainError.js';

/**
 * An archive that starts at block N (`tracenode init --from-node URL --at N`, `serve --follow URL
 * --from N`): the datadir holds block N and what comes after it, and no state up front. Its state
 * at any block M ≥ N is filled from the followed node as it is read (`state/remoteState.ts`);
 * nothing below N is served. Block N's header was checked by its hash (the upstream's, or the
 * operator's `--checkpoint-hash`), so its state root is the root every fetched node is checked
 * against. The start is recorded once (META.archiveStart) and never moves.
 */

/** The first block of a partial archive. */
export interface ArchiveStart {
  number: bigint;
  hash: Uint8Array;
}

/** The datadir's archive start, or undefined for a datadir that holds the chain from its genesis. */
export async function readArchiveStart(level: Level): Promise<ArchiveStart | undefined> {
  const value = await level.get(META.archiveStart);
  if (value === undefined) return undefined;
  if (value.length !== 40) throw new Error(`database corrupt: the archive start has ${value.length} bytes, not 40`);
  return { number: decodeNumber(value), hash: value.slice(8) };
}

/** The write that records an archive's start (init). */
export function archiveStartOp(start: ArchiveStart): BatchOp {
  const value = new Uint8Array(40);
  value.set(encodeNumber(start.number), 0);
  value.set(start.hash, 8);
  return { type: 'put', key: META.archiveStart, value };
}

/** How many blocks below the start BLOCKHASH can name: the 256 before a block from N. */
export const ANCESTOR_HASHES = 256n;

/**
 * The hash of block `number` below the archive's start, as recorded (META.archiveAncestors);
 * undefined when it is not recorded (a datadir whose follower has not fetched them yet) or
 * further below than {@link ANCESTOR_HASHES}.
 */
export async function recordedAncestorHash(level: Level, start: ArchiveStart, number: bigint): Promise<Uint8Array | undefined> {
  if (number >= start.number || number < 0n) return undefined;
  const value = await level.get(META.archiveAncestors);
  if (value === undefined) return undefined;
  const count = BigInt(value.length / 32);
  const i = number - (start.number - count);
  return i < 0n ? undefined : value.slice(Number(i) * 32, Number(i + 1n) * 32);
}

/** The write that records the hashes of the blocks below the start, lowest first, the last the start's parent. */
export function ancestorHashesOp(hashes: readonly Uint8Array[]): BatchOp {
  const value = new Uint8Array(hashes.length * 32);
  for (const [i, hash] of hashes.entries()) value.set(hash, i * 32);
  return { type: 'put', key: META.archiveAncestors, value };
}

/**
 * A block below an archive's start was asked for. `state`: the state of a block before N (state
 * methods, eth_call, a trace that replays a block on its parent's state); `history`: a block,
 * its transactions or its receipts (block getters, log and trace ranges). `methods/errors.ts`
 * gives each its wire error.
 */
export class BeforeArchiveStartError extends DomainError {
  override readonly name = 'BeforeArchiveStartError';
  constructor(
    readonly kind: 'state' | 'history',
    readonly number: bigint,
    readonly start: bigint,
  ) {
    super(
      kind === 'state'
        ? `the state of block ${number} is not available: this archive starts at block ${start}`
        : `block ${number} is not available: this archive starts at block ${start}`,
    );
  }
}

/** Throws {@link BeforeArchiveStartError} when `number` is below the archive's start (never for a full archive). */
export function checkArchiveStart(start: ArchiveStart | undefined, number: bigint, kind: 'state' | 'history'): void {
  if (start !== undefined && number < start.number) throw new BeforeArchiveStartError(kind, number, start.number);
}

/** `archive from block N (0x…)`, for the startup line and logs. */
export function describeArchiveStart(start: ArchiveStart): string {
  return `archive from block ${start.number} (${bytesToHex(start.hash)})`;
}
