import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { forEachTransport } from '../helpers/rpcClient.js';

// Bad arguments that are huge or deeply nested get a short -32602, never a -32603 from a
// recursive JSON.stringify (with a stack in the log) nor an error message as long as the argument.

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'execution-apis'));
});
afterAll(() => server.close());

const MIB = 1 << 20;
/** `[[[…]]]` nested 100,000 levels, as JSON text (JSON.stringify of it would overflow the stack). */
const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const X80 = (c: string) => c.repeat(80);

forEachTransport(
  'bounded error messages',
  () => server,
  (client) => {
    const error = async (method: string, paramsJson: string) =>
      JSON.parse((await client().send(`{"jsonrpc":"2.0","id":7,"method":"${method}","params":${paramsJson}}`)).text).error;

    it('trace_filter: `after` nested 100,000 levels', async () => {
      expect(await error('trace_filter', `[{"after":${DEEP}}]`)).toEqual({
        code: -32602,
        message: 'invalid argument 0: after: json: cannot unmarshal array into Go value of type uint64',
      });
    });
    it('trace_filter: `mode` nested 100,000 levels', async () => {
      expect(await error('trace_filter', `[{"mode":${DEEP}}]`)).toEqual({
        code: -32602,
        message: 'invalid argument 0: mode: unknown variant array, expected `union` or `intersection`',
      });
    });
    it('trace_filter: a 1 MiB `count` and a 1 MiB unknown key', async () => {
      expect(await error('trace_filter', `[{"count":"${'9'.repeat(MIB)}"}]`)).toEqual({
        code: -32602,
        message: 'invalid argument 0: count: json: cannot unmarshal string into Go value of type uint64',
      });
      const key = await error('trace_filter', `[{"${'k'.repeat(MIB)}":1}]`);
      expect(key.code).toBe(-32602);
      expect(key.message).toBe(
        `invalid argument 0: unknown field \`${X80('k')}…\`, expected one of \`fromBlock\`, \`toBlock\`, \`fromAddress\`, \`toAddress\`, \`mode\`, \`after\`, \`count\``,
      );
    });
    it('eth_getStorageAt: a 1 MiB storage key is quoted to 80 characters', async () => {
      const key = `0x${'1'.repeat(MIB)}`;
      expect(await error('eth_getStorageAt', `["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df","${key}","latest"]`)).toEqual({
        code: -32602,
        message: `storage key too long (want at most 32 bytes): "0x${'1'.repeat(78)}"…`,
      });
    });
    it('eth_feeHistory: a 1 MiB block count', async () => {
      expect(await error('eth_feeHistory', `["${'9'.repeat(MIB)}","latest",[]]`)).toEqual({
        code: -32602,
        message: `invalid argument 0: invalid hex or decimal integer "${X80('9')}"…`,
      });
    });
    it('a block parameter object with a 1 MiB unknown field', async () => {
      const e = await error('eth_getBalance', `["0x7dcd17433742f4c0ca53122ab541d0ba67fc27df",{"${'f'.repeat(MIB)}":1}]`);
      expect(e.code).toBe(-32602);
      expect(e.message.length).toBeLessThan(200);
      expect(e.message).toContain(`unknown field "${X80('f')}"…`);
    });
  },
);
