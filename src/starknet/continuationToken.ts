import { InvalidContinuationTokenError } from './errors.js';

/**
 * The `starknet_getEvents` continuation token: `"<block>-<offset>"`, pathfinder's format
 * (eqlabs/pathfinder `crates/rpc/src/method/get_events.rs`, `ContinuationToken`). It points at the
 * first event of the next page: the block that event is in, and the event's ordinal among *all*
 * events of that block (pathfinder counts only the filter's matches instead; resuming from a
 * position is one seek, where a match count has to be re-counted from the block's start on every
 * page). The spec calls the token opaque; clients only echo it.
 */
export interface ContinuationToken {
  block: number;
  offset: number;
}

/** Largest offset: an event's ordinal in its block is stored in 4 bytes. */
const MAX_OFFSET = 0xffffffff;

/** Longest token accepted: two 16-digit numbers and the dash. Longer input is garbage. */
const MAX_TOKEN_LENGTH = 33;

/** Canonical decimal: `0`, or no leading zero; no sign, no spaces. */
const TOKEN_SYNTAX = /^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/;

/** Formats a token. */
export function formatContinuationToken(token: ContinuationToken): string {
  return `${token.block}-${token.offset}`;
}

/**
 * Parses a token, throwing {@link InvalidContinuationTokenError} for anything that
 * {@link formatContinuationToken} cannot have produced: garbage, a sign, a negative number,
 * leading zeros, spaces, a block beyond 2^53 - 1 or an offset beyond 2^32 - 1. The parser never
 * throws anything else.
 */
export function parseContinuationToken(input: unknown): ContinuationToken {
  if (typeof input !== 'string' || input.length > MAX_TOKEN_LENGTH) throw new InvalidContinuationTokenError('not a token');
  const m = TOKEN_SYNTAX.exec(input);
  if (!m) throw new InvalidContinuationTokenError('not a token');
  const block = Number(m[1]);
  const offset = Number(m[2]);
  if (!Number.isSafeInteger(block) || offset > MAX_OFFSET) throw new InvalidContinuationTokenError('number out of range');
  return { block, offset };
}
