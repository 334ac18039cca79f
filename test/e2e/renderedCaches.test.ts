import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Blocks, receipts and logs kept rendered with their JSON text (`methods/eth/_shared/rendered.ts`,
 * `codec/keptJson.ts`) answer byte for byte what a node without those caches answers, the first time
 * and every time after: the execution-apis chain (Prague) served twice, caches on and off, every
 * block in both forms, every receipt by hash and by block, and the whole chain's logs.
 */
describe('rendered answers kept: the same bytes as rendered each time', () => {
  let kept: EthTestServer;
  let fresh: EthTestServer;
  const dir = join(FIXTURES, 'execution-apis-prague');

  beforeAll(async () => {
    kept = await startEthServer(dir, testConfig());
    fresh = await startEthServer(dir, testConfig({ caches: { renderedLogsBytes: 0, renderedReceiptsBytes: 0, renderedBlocksBytes: 0 } }));
  }, 120_000);
  afterAll(async () => {
    await kept?.close();
    await fresh?.close();
  });

  const ask = async (server: EthTestServer, method: string, params: unknown[]): Promise<string> => {
    const res = await fetch(`${server.url}/v3/${server.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    return res.text();
  };

  /** The kept server's first and second answers, and the fresh server's: all the same text. */
  const same = async (method: string, params: unknown[]): Promise<string> => {
    const first = await ask(kept, method, params);
    const again = await ask(kept, method, params);
    const rendered = await ask(fresh, method, params);
    expect(first, `${method} ${JSON.stringify(params)}`).toBe(rendered);
    expect(again, `${method} ${JSON.stringify(params)} asked again`).toBe(rendered);
    return rendered;
  };

  it('every block, receipt and log', async () => {
    const head = Number(JSON.parse(await ask(fresh, 'eth_blockNumber', [])).result);
    expect(head).toBeGreaterThan(10);
    let receipts = 0;
    let logs = 0;
    for (let n = 0; n <= head; n++) {
      const number = `0x${n.toString(16)}`;
      const block = JSON.parse(await same('eth_getBlockByNumber', [number, false])).result as { hash: string; transactions: string[] };
      await same('eth_getBlockByNumber', [number, true]);
      await same('eth_getBlockByHash', [block.hash, true]);
      await same('eth_getBlockReceipts', [number]);
      for (const hash of block.transactions) {
        const receipt = JSON.parse(await same('eth_getTransactionReceipt', [hash])).result as { logs: unknown[] };
        receipts++;
        logs += receipt.logs.length;
      }
    }
    const all = JSON.parse(await same('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).result as unknown[];
    // The head block's logs asked again, after the wider query rendered them.
    await same('eth_getLogs', [{ fromBlock: `0x${head.toString(16)}`, toBlock: 'latest' }]);
    expect(all.length).toBe(logs);
    expect(receipts).toBeGreaterThan(20);
    expect(logs).toBeGreaterThan(5);
  }, 120_000);
});
