import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { Account, Address, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { hexKey } from '../../codec/hex.js';
import { keccak256 } from '../../codec/keccak.js';
import type { StateReadCache } from '../../state/readCache.js';
import { OverlayState } from '../overlayDb.js';
import { type JumpAnalysis, loadInterpreter } from './interpreter.js';
import { codeArrayAnalyzer, JumpAnalysisCache, noteCodeHash } from './jumpAnalysis.js';
import { type OpcodeEntry, opcodeTable } from './opcodeTable.js';

/** PUSH1 4, JUMP, INVALID, JUMPDEST, PUSH2 0x5b5b (no JUMPDEST inside), PUSH32 truncated by the end. */
const CODE_A = hexToBytes('0x600456fe5b615b5b7f0102');
/** The same shape with other immediates and a JUMPDEST moved. */
const CODE_B = hexToBytes('0x6005565b5b615b5b60ff00');

async function table(hardfork = 'cancun'): Promise<OpcodeEntry[]> {
  return opcodeTable(await createEVM({ common: new Common({ chain: Mainnet, hardfork }) }));
}

/** The interpreter's own analysis of `code` with `table`, computed afresh. */
async function fresh(code: Uint8Array, t: OpcodeEntry[], hardfork = 'cancun'): Promise<JumpAnalysis> {
  const Interpreter = await loadInterpreter();
  const common = new Common({ chain: Mainnet, hardfork });
  const self = { lookupOpInfo: (op: number) => t[op], common };
  return (Interpreter.prototype as unknown as { _getValidJumpDestinations(this: unknown, code: Uint8Array): JumpAnalysis })._getValidJumpDestinations.call(
    self,
    code,
  );
}

/** An analyzer call that records whether it had to analyse. */
function analyse(cache: JumpAnalysisCache, code: Uint8Array, t: OpcodeEntry[], analysis: JumpAnalysis): { result: JumpAnalysis; analysed: boolean } {
  let analysed = false;
  const result = cache.analyzer(code, t, () => {
    analysed = true;
    return analysis;
  });
  return { result, analysed };
}

describe('jump analysis cache', () => {
  it('a cached analysis equals a fresh analysis of the same code, and is served without analysing again', async () => {
    const t = await table();
    const cache = new JumpAnalysisCache();
    const code = CODE_A.slice();
    noteCodeHash(code, hexKey(keccak256(code)));
    const first = analyse(cache, code, t, await fresh(code, t));
    expect(first.analysed).toBe(true);
    const second = analyse(cache, code, t, await fresh(code, t));
    expect(second.analysed).toBe(false);
    expect(second.result).toBe(first.result);
    const expected = await fresh(CODE_A, t);
    expect(second.result.jumps).toEqual(expected.jumps);
    expect(second.result.pushes).toEqual(expected.pushes);
    expect(second.result.opcodesCached).toEqual(expected.opcodesCached);
    // exact values: the JUMPDEST at 4 only (0x5b bytes inside PUSH2 are data), and the PUSH values
    expect([...second.result.jumps.keys()].filter((i) => second.result.jumps[i] === 1)).toEqual([4]);
    expect(second.result.pushes).toEqual({ 1: 4n, 6: 0x5b5bn, 9: 0x0102n << 240n });
  });

  it('another array with the same code hash hits; a different code hash misses and gets its own analysis', async () => {
    const t = await table();
    const cache = new JumpAnalysisCache();
    const a1 = CODE_A.slice();
    const a2 = CODE_A.slice();
    const b = CODE_B.slice();
    noteCodeHash(a1, hexKey(keccak256(CODE_A)));
    noteCodeHash(a2, hexKey(keccak256(CODE_A)));
    noteCodeHash(b, hexKey(keccak256(CODE_B)));
    const first = analyse(cache, a1, t, await fresh(a1, t));
    expect(analyse(cache, a2, t, await fresh(a2, t))).toEqual({ result: first.result, analysed: false });
    const other = analyse(cache, b, t, await fresh(b, t));
    expect(other.analysed).toBe(true);
    expect(other.result).not.toBe(first.result);
    expect(other.result).toEqual(await fresh(CODE_B, t));
    expect([...other.result.jumps.keys()].filter((i) => other.result.jumps[i] === 1)).toEqual([3, 4]);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 2, entries: 2 });
  });

  it("another EVM's opcode table misses (its entries carry that EVM's hooks and fork)", async () => {
    const t1 = await table();
    const t2 = await table('prague');
    const cache = new JumpAnalysisCache();
    const code = CODE_A.slice();
    noteCodeHash(code, hexKey(keccak256(code)));
    analyse(cache, code, t1, await fresh(code, t1));
    const second = analyse(cache, code, t2, await fresh(code, t2, 'prague'));
    expect(second.analysed).toBe(true);
    expect(second.result.opcodesCached[0]).toBe(t2[0x60]);
  });

  it('code without a known hash (brought by the call) is analysed every time', async () => {
    const t = await table();
    const cache = new JumpAnalysisCache();
    const code = CODE_B.slice();
    expect(analyse(cache, code, t, await fresh(code, t)).analysed).toBe(true);
    expect(analyse(cache, code, t, await fresh(code, t)).analysed).toBe(true);
    expect(cache.stats().entries).toBe(0);
  });

  it('is bounded by the code bytes of its entries', async () => {
    const t = await table();
    const cache = new JumpAnalysisCache(64);
    for (let i = 0; i < 40; i++) {
      const code = new Uint8Array(11);
      code.set(CODE_A);
      code[10] = i; // a different code each time
      noteCodeHash(code, hexKey(keccak256(code)));
      analyse(cache, code, t, await fresh(code, t));
    }
    // 11 bytes each: at most 64 bytes' worth, plus one entry over half the budget
    expect(cache.stats().entries).toBeLessThanOrEqual(7);
    expect(cache.stats().entries).toBeGreaterThanOrEqual(2);
  });

  it('the call overlay labels code read from the archived state with its hash; code a call puts is not labelled', async () => {
    const t = await table();
    const stored = CODE_A.slice();
    const codeHash = keccak256(CODE_A);
    const reads = {
      account: async () => new Account(0n, 0n, KECCAK256_RLP, codeHash),
      code: async () => stored,
    } as unknown as StateReadCache;
    const overlay = new OverlayState(reads, new Uint8Array(32));
    const address = new Address(new Uint8Array(20).fill(1));
    const code = await overlay.getCode(address);
    expect(code).toBe(stored);
    const cache = new JumpAnalysisCache();
    analyse(cache, code, t, await fresh(code, t));
    expect(analyse(cache, await overlay.getCode(address), t, await fresh(code, t)).analysed).toBe(false);

    const other = new Address(new Uint8Array(20).fill(2));
    const own = CODE_B.slice();
    await overlay.putCode(other, own);
    expect(await overlay.getCode(other)).toBe(own);
    expect(analyse(cache, own, t, await fresh(own, t)).analysed).toBe(true);
    expect(analyse(cache, own, t, await fresh(own, t)).analysed).toBe(true);
  });

  it('a block VM’s analyzer keeps one analysis per code array and table: the same array analysed once, another array or table anew', async () => {
    const analyzer = codeArrayAnalyzer();
    const cancun = await table('cancun');
    const prague = await table('prague');
    let runs = 0;
    const analyze = (code: Uint8Array, t: OpcodeEntry[]) =>
      analyzer(code, t, () => {
        runs++;
        return { jumps: new Uint8Array(code.length), pushes: {}, opcodesCached: [] } as unknown as JumpAnalysis;
      });
    const first = analyze(CODE_A, cancun);
    expect(analyze(CODE_A, cancun)).toBe(first);
    expect(runs).toBe(1);
    analyze(CODE_A.slice(), cancun); // the same bytes in another array
    analyze(CODE_A, prague);
    analyze(CODE_B, cancun);
    expect(runs).toBe(4);
  });
});
