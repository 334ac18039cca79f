import { afterAll, describe, expect, it } from 'vitest';
import { plants } from '../../test/helpers/plants.js';

const planted = plants('methods');
afterAll(() => planted.remove());

/**
 * #40: a method's contract is checked by the compiler. `defineMethod` carries the wire name, the
 * wire arguments (from the schemas' wire types, the optional ones marked) and the result; the
 * network's API type (`EthereumApi`) and the tests' typed clients are derived from the tables;
 * a handler's `req.head()` is the network's head. Each plant is what a careless change or test
 * could write, and must fail to compile with the error named.
 */
describe('the method contract is checked by the compiler', () => {
  it('a wrong result type, a wrong or missing argument, an unknown name, a result that changed shape, an untyped head', async () => {
    const up = planted.up;
    // The numbered comments give the plant's line each refusal is expected on.
    const lines = [
      `import { defineMethod, type MethodApi, createMethodTable } from '${up}/src/rpc/method.js';`,
      `import { Address, Quantity } from '${up}/src/codec/schemas.js';`,
      `import { BlockNumberOrHash } from '${up}/src/codec/blockId.js';`,
      `import type { EthContext } from '${up}/src/methods/context.js';`,
      `import { type EthereumApi, ethereumMethods } from '${up}/src/methods/ethereum.js';`,
      `import { methodsOf } from '${up}/test/helpers/typedClient.js';`,
      'declare const ctx: EthContext;',
      'const eth = methodsOf<EthereumApi, EthContext>(ethereumMethods, ctx);',
      'export async function plant(): Promise<void> {',
      // 10: eth_blockNumber answers a hex string, not a number
      "  const n: number = await eth.request('eth_blockNumber', []);",
      // 11: an address is a hex string
      "  await eth.request('eth_getBalance', [1]);",
      // 12: the address is required
      "  await eth.request('eth_getBalance', []);",
      // 13: no such method
      "  await eth.request('eth_getBalanceOf', ['0x00', 'latest']);",
      // 14: a block may be null; read as if never
      "  const hash: string = (await eth.request('eth_getBlockByNumber', ['latest', false])).hash;",
      '  void n; void hash;',
      '}',
      // A method whose result changed shape: its readers no longer compile.
      'const v2 = defineMethod({',
      "  name: 'x_balance',",
      '  params: [Address, Quantity, BlockNumberOrHash],',
      '  required: 2,',
      '  handler: async (_ctx: EthContext, [_a, _q]) => ({ wei: 1n }),',
      '});',
      'const defs = [v2] as const;',
      'const table = createMethodTable<EthContext>(defs);',
      'export async function reader(): Promise<bigint> {',
      "  const r = await methodsOf<MethodApi<typeof defs>, EthContext>(table, ctx).request('x_balance', ['0x00', '0x1']);",
      // 27: the result is { wei }, no longer { balance }
      '  return r.balance;',
      '}',
      // The head a request sees is the chain store's, with a bigint number.
      'export const headReader = defineMethod({',
      "  name: 'x_head',",
      '  params: [],',
      '  handler: async (_ctx: EthContext, [], req) => {',
      // 33: head().number is a bigint
      '    const n: string = (await req!.head())!.number;',
      '    return n;',
      '  },',
      '});',
    ];
    const errors = await planted.compile({ 'contract.ts': lines.join('\n') });
    const at = (line: number) => errors.filter((e) => e.startsWith(`contract.ts(${line},`));
    expect(at(10)).toEqual([expect.stringMatching(/error TS2322: Type 'string' is not assignable to type 'number'/)]);
    expect(at(11)).toEqual([expect.stringMatching(/error TS2322: Type 'number' is not assignable to type 'string'/)]);
    expect(at(12)).toEqual([expect.stringMatching(/error TS2345: .*'\[\]' is not assignable to parameter of type '\[string, /)]);
    expect(at(13)).toEqual([expect.stringMatching(/error TS2345: Argument of type '"eth_getBalanceOf"' is not assignable/)]);
    expect(at(14)).toEqual([expect.stringMatching(/error TS2531: Object is possibly 'null'/)]);
    expect(at(27)).toEqual([expect.stringMatching(/error TS2339: Property 'balance' does not exist on type '\{ wei: bigint; \}'/)]);
    expect(at(33)).toEqual([expect.stringMatching(/error TS2322: Type 'bigint' is not assignable to type 'string'/)]);
    expect(errors).toHaveLength(7);
  }, 120_000);

  it('the same plants, written correctly, compile', async () => {
    const up = planted.up;
    const errors = await planted.compile({
      'fine.ts': [
        `import type { EthContext } from '${up}/src/methods/context.js';`,
        `import { type EthereumApi, ethereumMethods } from '${up}/src/methods/ethereum.js';`,
        `import { methodsOf } from '${up}/test/helpers/typedClient.js';`,
        'declare const ctx: EthContext;',
        'const eth = methodsOf<EthereumApi, EthContext>(ethereumMethods, ctx);',
        'export async function plant(): Promise<string | undefined> {',
        "  const n: string = await eth.request('eth_blockNumber', []);",
        "  await eth.request('eth_getBalance', ['0x00']);",
        "  await eth.request('eth_getBalance', ['0x00', { blockHash: '0x00', requireCanonical: true }]);",
        "  await eth.request('eth_getBalance', ['0x00', null]);",
        "  return (await eth.request('eth_getBlockByNumber', ['latest', false]))?.hash ?? n;",
        '}',
      ].join('\n'),
    });
    expect(errors).toEqual([]);
  }, 120_000);
});
