import { join } from 'node:path';
import { hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES, importFixtureChain, tempDir } from '../../test/helpers/chains.js';
import { testConfig } from '../../test/helpers/testConfig.js';
import type { EthereumChain } from '../chain/open.js';
import { StateReader } from '../state/stateReader.js';
import type { AccountOverride, CallRequest } from './callArgs.js';
import { type CallEngine, createCallEngine } from './callEngine.js';
import { runMessage } from './transition.js';

// Every EVM run of the engine goes through runMessage: counted, to see which search ran.
vi.mock('./transition.js', async (original) => {
  const actual = await original<typeof import('./transition.js')>();
  return { ...actual, runMessage: vi.fn(actual.runMessage) };
});

/**
 * eth_estimateGas with the threshold shortcut (`estimate.ts` sameRunAbove) against the same search
 * run wholly on the EVM, on the execution-apis chain: calls the shortcut takes (plain code, storage
 * writes, refunds, loops) and calls it must leave alone (GAS read, an inner call, a precompile, a
 * fee, an SSTORE that the peak leaves with 2,300 gas or less), each answered the same both ways,
 * and each with the runs it should take: two (the cap, the peak) where the shortcut applies, the
 * plain search's where it must not, one more where the check at the peak refuses it.
 * Counting GAS and inner calls is what keeps the two cases after a refund right (taking the
 * shortcut for them answers 10 % higher than geth's search).
 */

const FIXTURE = join(FIXTURES, 'execution-apis');
const bytes = (hex: string) => hexToBytes(`0x${hex.replace(/ /g, '')}`);
/** Counter (genesis alloc): stores keccak(calldata) → counter and increments slot 0. */
const COUNTER = '7dcd17433742f4c0ca53122ab541d0ba67fc27df';
/** Returns 0xffee for input 0xff01, reverts otherwise. */
const CONTRACT = '17e7eedce4ac02ef114a7ed9fe6e2f33feba1667';
const X = bytes('00000000000000000000000000000000000000e0');
const FROM = bytes('00000000000000000000000000000000000000f0');
const word = (n: number) => bytes(n.toString(16).padStart(64, '0'));

let chain: EthereumChain;
let engine: CallEngine;
let cleanup: () => void;

beforeAll(async () => {
  const tmp = tempDir('tracenode-estimate-');
  cleanup = tmp.cleanup;
  chain = await importFixtureChain(FIXTURE, tmp.dir);
  const config = testConfig();
  engine = createCallEngine({ store: chain.store, common: chain.common, reads: new StateReader(chain.level, config.caches).reads, settings: config.execution });
});

afterAll(async () => {
  await chain?.close();
  cleanup?.();
});

/** X with `code` (hex) and slot 0 holding 5. */
const at = (code: string): AccountOverride[] => [{ address: X, code: bytes(code), stateDiff: [[word(0), word(5)]] }];

/** How the search must go: on the threshold (two runs), on the EVM, or on the EVM after a refused check (one run more). */
type Way = 'threshold' | 'evm' | 'refused';

const CASES: Array<[string, Way, CallRequest, AccountOverride[]?]> = [
  ['the chain counter (two cold SSTOREs)', 'threshold', { to: bytes(COUNTER), data: bytes('01') }],
  ['the chain contract returning 0xffee', 'threshold', { to: bytes(CONTRACT), data: bytes('ff01') }],
  ['a new slot written', 'threshold', { to: X }, at('6001 6001 55 00')],
  ['a slot cleared (a refund: gas used below the peak)', 'threshold', { to: X }, at('6000 6000 55 00')],
  ['a loop of 200 rounds', 'threshold', { to: X }, at('60c8 5b 6001 90 03 80 6002 57 00')],
  ['the same value written back last (2,300 gas or less left at the peak)', 'refused', { to: X }, at('6000 54 6000 55 00')],
  ['GAS read', 'evm', { to: X }, at('5a 50 6001 6001 55 00')],
  ['an inner call to the identity precompile', 'evm', { to: X }, at('6000 6000 6000 6000 6000 6004 5a f1 50 00')],
  ['an inner call to the counter', 'evm', { to: X }, at(`6000 6000 6001 6000 6000 73${COUNTER} 5a f1 50 00`)],
  // With a refund first, the search tries limits between the gas used and the peak, where these
  // take another path: the shortcut would answer near the peak, geth's search near the gas used.
  ['a refund, then GAS decides whether a new slot is written', 'evm', { to: X }, at('6000 6000 55 5a 620186a0 11 6013 57 6001 6001 55 5b 00')],
  ['a refund, then an inner call whose failure is ignored', 'evm', { to: X }, at(`6000 6000 55 6000 6000 6001 6000 6000 73${COUNTER} 5a f1 50 00`)],
  ['a creation', 'threshold', { data: bytes('6001 6000 55 600a 6000 f3') }],
  [
    'a fee the sender pays (its balance shows the limit)',
    'evm',
    { from: FROM, to: X, gasPrice: 30_000_000_000n },
    [...at('6001 6001 55 00'), { address: FROM, balance: 10n ** 18n }],
  ],
];

describe('eth_estimateGas: the threshold shortcut answers as the search on the EVM', () => {
  const runs = vi.mocked(runMessage);
  for (const [name, way, request, state] of CASES) {
    it(name, async () => {
      const header = (await chain.store.headHeader())!;
      runs.mockClear();
      const plain = await engine.estimateGas(header, request, { state }, { threshold: false });
      const plainRuns = runs.mock.calls.length;
      runs.mockClear();
      expect(await engine.estimateGas(header, request, { state })).toBe(plain);
      expect(plain).toBeGreaterThan(21_000n);
      expect(plainRuns).toBeGreaterThan(2);
      expect(runs.mock.calls.length).toBe(way === 'threshold' ? 2 : way === 'refused' ? plainRuns + 1 : plainRuns);
    });
  }
});
