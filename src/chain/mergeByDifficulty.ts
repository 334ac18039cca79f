import { Common, Mainnet } from '@ethereumjs/common';
import type { BatchOp, Level } from '../db/database.js';
import { decodeNumber, encodeNumber, META } from '../db/keys.js';

/**
 * A chain that merges by total difficulty (EIP-3675), as geth reads a genesis `config` with a
 * `terminalTotalDifficulty` above 0 and no block or time fork after the merge: a block whose
 * parent's total difficulty has reached it is the first of proof of stake, whatever its number.
 * @ethereumjs/common schedules forks by block number and time only, so the importer finds that
 * block as it comes, schedules Paris at its number in the chain's Common (every copy shares the
 * schedule), and records the number in the datadir (META.mergeBlock) with the block, for every
 * later open. A side chain that would reach the terminal total difficulty at another height is
 * held to the merge block of the chain that reached it first.
 */

/** The terminal total difficulty of `config` when the chain still awaits its merge in `common` (no Paris scheduled), else undefined. */
export function pendingMergeDifficulty(config: Record<string, unknown>, common: Common): bigint | undefined {
  const ttd = config.terminalTotalDifficulty;
  let value: bigint | undefined;
  if (typeof ttd === 'number' && Number.isSafeInteger(ttd)) value = BigInt(ttd);
  else if (typeof ttd === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(ttd)) value = BigInt(ttd);
  if (value === undefined || value === 0n) return undefined;
  const paris = common.hardforks().find((hf) => hf.name === 'paris');
  return paris === undefined || (paris.block === null && paris.timestamp === undefined) ? value : undefined;
}

/** What {@link scheduleMerge} changes in a Common: its schedule and the hardfork specs in that order (a protected field of @ethereumjs/common 10.1.3). */
interface Schedulable {
  hardforks(): Array<{ name: string; block: number | null; timestamp?: number | string | null }>;
  HARDFORK_CHANGES?: Array<[string, unknown]>;
}

/** The specs of Paris and of the fork @ethereumjs names after it, from a Common of a chain that has both. */
function mergeSpecs(): Array<[string, unknown]> {
  const changes = (new Common({ chain: Mainnet }) as unknown as Schedulable).HARDFORK_CHANGES;
  const specs = changes?.filter(([name]) => name === 'paris' || name === 'mergeNetsplitBlock');
  if (specs?.length !== 2) throw new Error('@ethereumjs/common no longer keeps HARDFORK_CHANGES as 10.1.3 does: update chain/mergeByDifficulty.ts');
  return specs;
}

/**
 * Schedules the merge at block `number` in `common`'s fork schedule (Paris and the merge netsplit
 * block, as @ethereumjs names the fork after it): its `hardforks()` list and the hardfork specs
 * kept in the same order, both shared by every copy of it. Returns what undoes it.
 */
export function scheduleMerge(common: Common, number: bigint): () => void {
  const target = common as unknown as Schedulable;
  const schedule = target.hardforks();
  const changes = target.HARDFORK_CHANGES;
  if (!Array.isArray(changes) || changes.length !== schedule.length) {
    throw new Error('@ethereumjs/common no longer keeps HARDFORK_CHANGES as 10.1.3 does: update chain/mergeByDifficulty.ts');
  }
  const before = { schedule: [...schedule], changes: [...changes] };
  const names = ['paris', 'mergeNetsplitBlock'];
  for (const list of [schedule, changes]) {
    for (let i = list.length - 1; i >= 0; i--) {
      const entry = list[i] as { name?: string } | [string, unknown];
      if (names.includes(Array.isArray(entry) ? entry[0] : (entry.name ?? ''))) list.splice(i, 1);
    }
  }
  // Among the forks by block, before the first one after it and before every fork by time.
  const found = schedule.findIndex(
    (hf) => (hf.timestamp !== undefined && hf.timestamp !== null) || (typeof hf.block === 'number' && BigInt(hf.block) > number),
  );
  const at = found < 0 ? schedule.length : found;
  schedule.splice(at, 0, ...names.map((name) => ({ name, block: Number(number) })));
  changes.splice(at, 0, ...mergeSpecs());
  return () => {
    schedule.splice(0, schedule.length, ...before.schedule);
    changes.splice(0, changes.length, ...before.changes);
  };
}

/** The write that records the merge block with the block itself. */
export function mergeBlockOp(number: bigint): BatchOp {
  return { type: 'put', key: META.mergeBlock, value: encodeNumber(number) };
}

/** The merge block recorded in the datadir, if any. */
export async function readMergeBlock(level: Level): Promise<bigint | undefined> {
  const bytes = await level.get(META.mergeBlock);
  return bytes === undefined ? undefined : decodeNumber(bytes);
}
