import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM } from '@ethereumjs/evm';
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { Address, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { useFastOpcodes } from './fastOpcodes.js';
import { opcodeTable } from './opcodeTable.js';

const A = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'));
const WORD = Array.from({ length: 32 }, (_, i) => (i + 1).toString(16).padStart(2, '0')).join('');
/** MSTOREs of 2^256-1 at 1, 0 at 3 (over it), 0x0102…20 at 0x25, 0x2a at 0x40 and 1 at 0x61; RETURN 0x80 bytes of memory. */
const CODE = `0x7f${'ff'.repeat(32)}600152 6000600352 7f${WORD}602552 602a604052 6001606152 60a06000f3`.replace(/ /g, '');

async function run(fast: boolean): Promise<{ evm: EVM; result: Awaited<ReturnType<EVM['runCall']>> }> {
  const sm = new SimpleStateManager();
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }), stateManager: sm });
  await sm.putCode(A, hexToBytes(CODE as `0x${string}`));
  if (fast) useFastOpcodes(evm);
  const result = await evm.runCall({ to: A, gasLimit: 100_000n });
  return { evm, result };
}

describe('fast opcodes', () => {
  it('MSTORE writes the same memory, at the same gas, as the original', async () => {
    const plain = await run(false);
    const fast = await run(true);
    expect(opcodeTable(fast.evm)[0x52].opHandler).not.toBe(opcodeTable(plain.evm)[0x52].opHandler);
    expect(fast.result.execResult.exceptionError).toBeUndefined();
    expect(fast.result.execResult.returnValue).toEqual(plain.result.execResult.returnValue);
    expect(fast.result.execResult.executionGasUsed).toBe(plain.result.execResult.executionGasUsed);
    // exact bytes: 0xff at 1–2, zeros 3–0x24 (the second MSTORE), 0x0102… from 0x25, 0x2a at 0x5f, 1 at 0x80
    const memory = fast.result.execResult.returnValue;
    expect([...memory.subarray(0, 4)]).toEqual([0, 0xff, 0xff, 0]);
    expect([...memory.subarray(0x25, 0x40)]).toEqual(Array.from({ length: 27 }, (_, i) => i + 1)); // 0x40 on: the next word
    expect(memory[0x5f]).toBe(0x2a);
    expect(memory[0x80]).toBe(1);
  });

  it('is idempotent and leaves the other opcodes alone', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }) });
    const before = opcodeTable(evm).map((e) => e.opHandler);
    useFastOpcodes(evm);
    const once = opcodeTable(evm).map((e) => e.opHandler);
    useFastOpcodes(evm);
    expect(opcodeTable(evm).map((e) => e.opHandler)).toEqual(once);
    expect(once.filter((h, i) => h !== before[i]).length).toBe(1);
  });
});
