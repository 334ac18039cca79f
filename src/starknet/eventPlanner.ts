import type { Level } from '../db/database.js';
import { MergeCursor } from './eventCursors.js';
import type { EventConstraints } from './eventMatcher.js';
import { hex64ToBytes } from './felt.js';
import { comparePositions, type EventPosition, streamPrefix } from './keys.js';

/**
 * The `starknet_getEvents` planner: which index streams (or the block scan) a query reads to
 * list a superset of its matches in position order. Indexes and their keys are in `keys.ts`.
 */

/**
 * How a page is read. `scan` walks every event of the range (`E`); the others merge index
 * streams: `address` (`A`, one stream per contract), `key<i>` (`K`, one per value of `keys[i]`),
 * `addressKey0` (`C`, one per contract × first-key pair).
 */
export type PlanName = 'scan' | 'address' | 'addressKey0' | `key${number}`;

/** A way to enumerate a superset of the matches in position order. `prefixes` null = scan. */
export interface Plan {
  name: PlanName;
  /** The prefixes of the index streams to merge (`keys.ts`, `streamPrefix`); null = scan `E`. */
  prefixes: Uint8Array[] | null;
}

/**
 * Most index streams one plan may merge (e.g. 8 addresses × 8 selectors = 64 contract+selector
 * streams). Each stream is one LevelDB iterator; past this a plan is not considered and a coarser
 * index (or the block scan) is used instead.
 */
export const MAX_INDEX_STREAMS = 64;

/**
 * Positions read from each candidate index to compare them when several apply. Reading 256 keys
 * costs well under a millisecond and tells a stream with 10 matches from one with 100,000.
 */
const PROBE_POSITIONS = 256;

const SCAN: Plan = { name: 'scan', prefixes: null };

/**
 * The plan for a query from position `from` to the end of block `to`: `forced` when given (tests
 * and the benchmark; it must apply to the filter), else the planner's choice
 * ({@link choosePlan} among {@link candidatePlans}).
 */
export async function planQuery(level: Level, constraints: EventConstraints, from: EventPosition, to: number, forced?: PlanName): Promise<Plan> {
  const plans = applicablePlans(constraints);
  if (forced === undefined) return choosePlan(level, candidatePlans(plans), from, to);
  const plan = forced === 'scan' ? SCAN : plans.find((p) => p.name === forced);
  if (!plan) throw new Error(`plan ${forced} does not apply to this filter`);
  return plan;
}

/** Every index plan that applies to a filter (any of them lists a superset of the matches). */
function applicablePlans({ addresses, keys }: EventConstraints): Plan[] {
  const plans: Plan[] = [];
  const k0 = keys[0] ?? [];
  if (addresses.length > 0 && k0.length > 0 && addresses.length * k0.length <= MAX_INDEX_STREAMS) {
    const prefixes: Uint8Array[] = [];
    for (const a of addresses) for (const k of k0) prefixes.push(streamPrefix.addressKey0(hex64ToBytes(a), hex64ToBytes(k)));
    plans.push({ name: 'addressKey0', prefixes });
  }
  if (addresses.length > 0 && addresses.length <= MAX_INDEX_STREAMS) {
    plans.push({ name: 'address', prefixes: addresses.map((a) => streamPrefix.address(hex64ToBytes(a))) });
  }
  for (let i = 0; i < keys.length; i++) {
    if (keys[i].length > 0 && keys[i].length <= MAX_INDEX_STREAMS) {
      plans.push({ name: `key${i}`, prefixes: keys[i].map((k) => streamPrefix.key(i, hex64ToBytes(k))) });
    }
  }
  return plans;
}

/**
 * The plans worth comparing: contract + first key, when it applies, lists a subset of both the
 * contract-only and the first-key-only streams, so it replaces them.
 */
function candidatePlans(plans: Plan[]): Plan[] {
  if (!plans.some((p) => p.name === 'addressKey0')) return plans;
  return plans.filter((p) => p.name !== 'address' && p.name !== 'key0');
}

/**
 * Picks the sparsest index plan. With one candidate it is taken (an index read costs in
 * proportion to its entries, a scan in proportion to the range). With several, each is probed
 * for {@link PROBE_POSITIONS} positions from the start position: a plan that runs out first has
 * the fewest entries left; otherwise the one whose last probed position lies furthest ahead is
 * the sparsest. No candidate → scan.
 */
async function choosePlan(level: Level, plans: Plan[], from: EventPosition, to: number): Promise<Plan> {
  if (plans.length === 0) return SCAN;
  if (plans.length === 1) return plans[0];
  let best: { plan: Plan; exhausted: boolean; count: number; last: EventPosition | undefined } | undefined;
  for (const plan of plans) {
    const cursor = new MergeCursor(level, plan.prefixes!, from, to);
    let positions: EventPosition[];
    try {
      positions = await cursor.next(PROBE_POSITIONS);
    } finally {
      await cursor.close();
    }
    const probe = { plan, exhausted: positions.length < PROBE_POSITIONS, count: positions.length, last: positions[positions.length - 1] };
    if (!best) best = probe;
    else if (probe.exhausted && (!best.exhausted || probe.count < best.count)) best = probe;
    else if (!probe.exhausted && !best.exhausted && comparePositions(probe.last!, best.last!) > 0) best = probe;
  }
  return best!.plan;
}
