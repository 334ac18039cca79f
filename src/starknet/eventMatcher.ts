import type { StoredEvent } from './eventRecord.js';
import { bytesToHex64, trustedFeltToHex64 } from './felt.js';

/**
 * Event matching for `starknet_getEvents`: a filter's addresses and keys in the form the planner
 * and the matcher use, and the predicate that decides whether a stored event matches. Spec:
 * starkware-libs/starknet-specs `api/starknet_api_openrpc.json`, `EVENT_FILTER`.
 */

/**
 * A filter's constraints, normalised: felts as 64-digit hex, each list deduplicated in
 * first-seen order; `keys[i]` = accepted values of an event's i-th key, empty = any.
 */
export interface EventConstraints {
  /** Contracts; empty = any. */
  addresses: string[];
  /** Ends with a constrained position: trailing wildcards are dropped. */
  keys: string[][];
}

/**
 * Normalises a filter's addresses and keys. Trailing wildcards are dropped because they
 * constrain nothing: an event need not have those keys.
 */
export function eventConstraints(addresses: readonly Uint8Array[], keys: readonly (readonly Uint8Array[])[]): EventConstraints {
  const normalised = keys.map(uniqueFelts);
  while (normalised.length > 0 && normalised[normalised.length - 1].length === 0) normalised.pop();
  return { addresses: uniqueFelts(addresses), keys: normalised };
}

/** Distinct felts, as 64-digit hex, in first-seen order. */
function uniqueFelts(felts: readonly Uint8Array[]): string[] {
  return [...new Set(felts.map(bytesToHex64))];
}

/**
 * The predicate of the whole filter on stored events. Plans may read a superset of the matches
 * (an index on one constraint), so every event read is checked against all of them.
 */
export function eventMatcher({ addresses, keys }: EventConstraints): (ev: StoredEvent) => boolean {
  const addressSet = addresses.length > 0 ? new Set(addresses) : undefined;
  const keySets = keys.map((k) => (k.length > 0 ? new Set(k) : undefined));
  return (ev) => {
    if (addressSet && !addressSet.has(trustedFeltToHex64(ev.fromAddress))) return false;
    // An event with fewer keys than a constrained position does not match (trailing wildcards
    // were dropped, so keySets ends with a constraint).
    if (ev.keys.length < keySets.length) return false;
    for (let i = 0; i < keySets.length; i++) {
      const set = keySets[i];
      if (set && !set.has(trustedFeltToHex64(ev.keys[i]))) return false;
    }
    return true;
  };
}
