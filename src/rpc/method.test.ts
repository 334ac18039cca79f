import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMethodTable, declarationOf, defineMethod, type MethodDefinition } from './method.js';

const handWritten = (name: string, declared: Pick<MethodDefinition<unknown>, 'cost' | 'evm'> = {}): MethodDefinition<unknown> => ({
  name,
  ...declared,
  call: async () => null,
});

describe('method declarations', () => {
  it('defineMethod carries the declared cost and EVM flag; cheap and off the EVM when absent', () => {
    const plain = defineMethod({ name: 'test_plain', params: [], handler: () => 1 });
    const heavy = defineMethod({ name: 'test_heavy', cost: 'heavy', evm: true, params: [z.number()], handler: (_ctx: unknown, [n]) => n });
    expect([plain.cost, plain.evm]).toEqual(['cheap', false]);
    expect([heavy.cost, heavy.evm]).toEqual(['heavy', true]);
  });

  it('the table gives each name its declaration, defaults applied; an unknown name is cheap', () => {
    const table = createMethodTable([
      handWritten('test_bare'),
      handWritten('test_scan', { cost: 'heavy' }),
      handWritten('test_evm', { cost: 'heavy', evm: true }),
    ]);
    expect(table.declaration('test_bare')).toEqual({ cost: 'cheap', evm: false });
    expect(table.declaration('test_scan')).toEqual({ cost: 'heavy', evm: false });
    expect(table.declaration('test_evm')).toEqual({ cost: 'heavy', evm: true });
    expect(table.declaration('eth_call')).toEqual({ cost: 'cheap', evm: false });
    expect(declarationOf(undefined)).toBe(table.declaration('nope'));
  });

  it('a table refuses a method that runs on an EVM worker but declares itself cheap', () => {
    expect(() => createMethodTable([handWritten('test_evm', { evm: true })])).toThrow('method test_evm runs on an EVM worker but is declared cheap');
    expect(() => createMethodTable([handWritten('test_evm', { cost: 'cheap', evm: true })])).toThrow(/declared cheap/);
  });
});
