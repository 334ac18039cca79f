import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES, importFixtureChain, tempDir } from '../../../test/helpers/chains.js';
import { testConfig } from '../../../test/helpers/testConfig.js';
import { wireError } from '../../../test/helpers/wireError.js';
import type { EthereumChain } from '../../chain/open.js';
import { createEthContext, type EthContext, ethLimits } from '../context.js';
import { getLogs } from './getLogs.js';

// The execution-apis chain (54 blocks; 383 logs, block 54 alone has more than 300).
let chain: EthereumChain;
let ctx: EthContext;
let cleanup: () => void;
beforeAll(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  chain = await importFixtureChain(join(FIXTURES, 'execution-apis'), tmp.dir);
  ctx = await createEthContext(chain, 'test', testConfig());
});
afterAll(async () => {
  await chain?.close();
  cleanup?.();
});

describe('eth_getLogs', () => {
  it('default: both bounds are latest', async () => {
    const logs = (await getLogs.call(ctx, [{}])) as { blockNumber: string }[];
    expect(logs.length).toBeGreaterThan(0);
    expect(new Set(logs.map((l) => l.blockNumber))).toEqual(new Set(['0x36']));
  });
  it('logIndex counts across the block, in order', async () => {
    const logs = (await getLogs.call(ctx, [{ fromBlock: '0x36', toBlock: '0x36' }])) as { logIndex: string }[];
    expect(logs.map((l) => Number(l.logIndex))).toEqual(logs.map((_, i) => i));
  });
  it('the bloom pre-filter keeps a range scan from reading receipts of blocks that cannot match', async () => {
    const spy = vi.spyOn(chain.store, 'receipts');
    const logs = await getLogs.call(ctx, [{ fromBlock: 'earliest', toBlock: 'latest', address: `0x${'ab'.repeat(20)}` }]);
    expect(logs).toEqual([]);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
  it('error: more results than the cap → -32005', async () => {
    const small: EthContext = {
      ...ctx,
      limits: ethLimits(testConfig({ rpc: { getLogsMaxResults: 5 } })),
    };
    expect(await wireError(getLogs.call(small, [{ fromBlock: '0x0' }]))).toEqual({ code: -32005, message: 'query returned more than 5 results' });
  });
  it('error: wider range than the cap → -32005', async () => {
    const narrow: EthContext = {
      ...ctx,
      limits: ethLimits(testConfig({ rpc: { getLogsMaxBlockRange: 10 } })),
    };
    expect(await getLogs.call(narrow, [{ fromBlock: '0x1', toBlock: '0xa', address: `0x${'ab'.repeat(20)}` }])).toEqual([]);
    expect(await wireError(getLogs.call(narrow, [{ fromBlock: '0x1', toBlock: '0xb' }]))).toEqual({
      code: -32005,
      message: 'query exceeds max block range of 10 blocks (asked for 11)',
    });
  });
  it.each([
    [{ fromBlock: '0x32', toBlock: '0x2f' }, -32602, 'invalid block range params'],
    [{ fromBlock: '0x32', toBlock: '0x38' }, -32602, 'block range extends beyond current head block'],
    [{ fromBlock: '0x40' }, -32602, 'invalid block range params'],
    [{ blockHash: `0x${'00'.repeat(31)}01` }, -32000, 'unknown block'],
    [{ topics: [null, null, null, null, null] }, -32602, 'exceed max topics'],
  ])('error: %j', async (filter, code, message) => {
    expect(await wireError(getLogs.call(ctx, [filter]))).toEqual({ code, message });
  });
});
