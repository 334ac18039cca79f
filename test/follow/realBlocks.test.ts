import { bytesToHex } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/codec/keccak.js';
import { loadRealBlocks, type RealBlock } from '../helpers/realBlocks.js';
import { executeRealBlock, mismatches } from '../helpers/realExecution.js';

/**
 * Real blocks of mainnet, Sepolia, Holesky and Hoodi (fixtures/real-blocks/), each executed by the
 * importer's own parts as an archive from block N executes it (test/helpers/realExecution.ts), on
 * the state each of the follower's sources gives: every block from its execution witness in
 * reth's shape (but one, 50 Mgas of zk checks, which the bench runs), two in geth's, seven from
 * proofs alone (bench/realBlocks.ts runs every block from every source). Every root of the header
 * is reproduced: state, receipts, logs bloom, gas, requests. Where a source cannot give what a
 * block needs, the run stops with an error that names the node and the block; it never computes a
 * root from a missing node read as empty.
 */

const blocks = await loadRealBlocks();
const label = (rb: RealBlock) => `${rb.json.network} ${rb.json.number}`;

/** A 50 Mgas mainnet block of zk-proof checks (BN254 pairings in JavaScript, ~20 s): bench/realBlocks.ts runs it. */
const BENCH_ONLY = new Set(['mainnet 23879620']);

describe('real blocks, from their execution witness (reth’s shape): every root reproduced', () => {
  // Four mainnet blocks (24628607, 24628608, 24647140, 25229957) once stopped here, at a branch a
  // deletion collapsed whose other child the witness does not hold: @ethereumjs wrote every SSTORE
  // through to the storage trie, so a slot zeroed and written again in one block collapsed a
  // branch for a moment. Storage now reaches the trie with each slot's last value only
  // (`execution/evm/storage.ts`, writeStorageBack), and they run from their witness like the rest.
  for (const rb of blocks.filter((b) => !BENCH_ONLY.has(label(b)))) {
    it(label(rb), async () => {
      const { block, result, stats } = await executeRealBlock(rb, 'witness-reth');
      expect(mismatches(block, result)).toEqual([]);
      expect(stats.proofs).toBe(0);
    }, 120_000);
  }
});

describe('real blocks, from their execution witness in geth’s shape (headers as JSON objects)', () => {
  // Two Prague blocks above 8192; the shape differs only in how the headers are written.
  for (const name of ['mainnet 23587691', 'hoodi 1265656']) {
    it(name, async () => {
      const rb = blocks.find((b) => label(b) === name)!;
      const { block, result } = await executeRealBlock(rb, 'witness-geth');
      expect(mismatches(block, result)).toEqual([]);
    }, 120_000);
  }
});

describe('real blocks, from proofs alone (eth_getProof and eth_getCode as each block reads them)', () => {
  // Mainnet blocks that delete a slot of a big token's storage (USDC, USDT) whose sibling lies 7
  // nibbles deep: 16^7 keccak256 to find a key under it, beyond follow.siblingSearchNibbles (two
  // of the five here; bench/realBlocks.ts runs every block from every source).
  const DEEP_SIBLING = new Set(['mainnet 23587691', 'mainnet 24341035']);
  // Holesky 2,971,845 is the block whose storage trie, opened again at a root it had made itself,
  // stopped the proof-only path; the others are Prague blocks of two networks.
  const FROM_PROOFS = new Set(['holesky 2971845', 'holesky 3990967', 'hoodi 690403', 'hoodi 974567', 'hoodi 1219705', 'hoodi 1265656', ...DEEP_SIBLING]);
  for (const rb of blocks) {
    const name = label(rb);
    if (!FROM_PROOFS.has(name)) continue;
    it(`${name}${DEEP_SIBLING.has(name) ? ': stops at a collapsed sibling beyond the search' : ''}`, async () => {
      const run = executeRealBlock(rb, 'proofs');
      if (DEEP_SIBLING.has(name)) {
        await expect(run).rejects.toThrow(
          /a deletion collapses a branch of the storage of 0x[0-9a-f]{40} whose other child 0x[0-9a-f]{64} is not held and lies 7 nibbles deep/,
        );
        return;
      }
      const { block, result, stats } = await run;
      expect(mismatches(block, result)).toEqual([]);
      expect(stats.proofs).toBeGreaterThan(0);
    }, 120_000);
  }
});

describe('planted faults: a missing node is never read as empty', () => {
  const rb = blocks.find((b) => label(b) === 'hoodi 1265656')!;
  // A child of the state root that the witness holds: the block reads it (a witness lists what a
  // block reads), so without it the run meets a hole.
  const rootNode = rb.witness.state.find((n) => bytesToHex(keccak256(n)) === bytesToHex(rb.parentStateRoot))!;
  const dropped = rb.witness.state.find((n) => n.length >= 32 && n !== rootNode && bytesToHex(rootNode).includes(bytesToHex(keccak256(n)).slice(2)))!;
  const droppedHash = bytesToHex(keccak256(dropped));

  it('a witness without one node the block reads, from an upstream that serves witnesses only: the run stops naming the node and the source', async () => {
    const run = executeRealBlock(rb, 'witness-reth', (state) => state.filter((n) => n !== dropped));
    await expect(run).rejects.toThrow(`missing trie node ${droppedHash}, on the path of 0x`);
    await expect(executeRealBlock(rb, 'witness-reth', (state) => state.filter((n) => n !== dropped))).rejects.toThrow(
      /the upstream serves execution witnesses only: no proof of 0x[0-9a-f]{40} for block 1265656$/,
    );
  }, 120_000);

  it('the same witness from an upstream that serves proofs: the node fetched, checked by its hash, and every root verifies', async () => {
    const { block, result, stats } = await executeRealBlock(rb, 'proofs', (state) => state);
    expect(mismatches(block, result)).toEqual([]);
    expect(stats.proofs).toBeGreaterThan(0);
  }, 120_000);
});
