import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RpcEmittedEvent } from '../../src/methods/starknet/getEvents.js';

/**
 * The Starknet fixtures (`fixtures/starknet/`) as tests read them, and the event filter's
 * semantics written independently of the implementation, to compute what `starknet_getEvents`
 * must answer.
 */

export const STARKNET_FIXTURES = resolve(import.meta.dirname, '../../fixtures/starknet');
export const STARKNET_NETWORKS = ['mainnet', 'sepolia-integration'] as const;
export type StarknetNetwork = (typeof STARKNET_NETWORKS)[number];

/** An event as the fixture's recorded answers carry it (the spec's EMITTED_EVENT). */
export type FixtureEvent = RpcEmittedEvent;

/** A sample filter of a fixture's `*-expected.json`, with its expected count. */
export interface SampleFilter {
  name: string;
  filter: { from_block?: number; to_block?: number; address?: string; keys?: string[][] };
  expected_count: number;
}

/** A `starknet_getBlockWithReceipts` result as the fixture holds it (the fields tests read). */
export interface FixtureBlock {
  block_number: number;
  block_hash: string;
  parent_hash: string;
  transactions: Array<{ receipt: { transaction_hash: string; events: Array<{ from_address: string; keys: string[]; data: string[] }> } }>;
  [field: string]: unknown;
}

/** The blocks of a fixture file, in file order. */
export function fixtureBlocks(network: StarknetNetwork): FixtureBlock[] {
  return readFileSync(join(STARKNET_FIXTURES, `${network}-blocks.ndjson`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FixtureBlock);
}

/** The sample filters of a fixture's `*-expected.json`. */
export function sampleFilters(network: StarknetNetwork): SampleFilter[] {
  return JSON.parse(readFileSync(join(STARKNET_FIXTURES, `${network}-expected.json`), 'utf8')).sample_filters;
}

/** Every event of `blocks`, in block/tx/event order. */
export function eventsOf(blocks: readonly FixtureBlock[]): FixtureEvent[] {
  const out: FixtureEvent[] = [];
  for (const b of blocks) {
    b.transactions.forEach((t, ti) => {
      t.receipt.events.forEach((e, ei) => {
        out.push({
          from_address: e.from_address,
          keys: e.keys,
          data: e.data,
          block_hash: b.block_hash,
          block_number: b.block_number,
          transaction_hash: t.receipt.transaction_hash,
          transaction_index: ti,
          event_index: ei,
        });
      });
    });
  }
  return out;
}

/** Every event of a fixture file, read straight from the NDJSON. */
export function fixtureEvents(network: StarknetNetwork): FixtureEvent[] {
  return eventsOf(fixtureBlocks(network));
}

/** The README's semantics, written independently of the implementation (felts compared by value). */
export function referenceMatch(f: SampleFilter['filter'], e: FixtureEvent): boolean {
  const eq = (a: string, b: string) => BigInt(a) === BigInt(b);
  if (f.from_block !== undefined && e.block_number < f.from_block) return false;
  if (f.to_block !== undefined && e.block_number > f.to_block) return false;
  if (f.address !== undefined && !eq(f.address, e.from_address)) return false;
  const keys = f.keys ?? [];
  let last = keys.length;
  while (last > 0 && keys[last - 1].length === 0) last--;
  if (e.keys.length < last) return false;
  for (let i = 0; i < last; i++) if (keys[i].length > 0 && !keys[i].some((k) => eq(k, e.keys[i]))) return false;
  return true;
}

/** A README sample filter in spec form (the README writes block numbers bare). */
export function specFilter(f: SampleFilter['filter']): Record<string, unknown> {
  const out: Record<string, unknown> = { ...f };
  if (f.from_block !== undefined) out.from_block = { block_number: f.from_block };
  if (f.to_block !== undefined) out.to_block = { block_number: f.to_block };
  return out;
}
