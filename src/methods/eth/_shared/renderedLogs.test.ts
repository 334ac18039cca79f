import { describe, expect, it } from 'vitest';
import type { RpcLog } from './formatLog.js';
import { RenderedLogs } from './renderedLogs.js';

const log = (n: number): RpcLog => ({
  address: `0x${'11'.repeat(20)}`,
  topics: [`0x${n.toString(16).padStart(64, '0')}`],
  data: '0x',
  blockNumber: '0x1',
  transactionHash: `0x${'22'.repeat(32)}`,
  transactionIndex: '0x0',
  blockHash: `0x${'33'.repeat(32)}`,
  blockTimestamp: '0x5',
  logIndex: `0x${n.toString(16)}`,
  removed: false,
});

describe('logs kept rendered (methods/eth/_shared/renderedLogs.ts)', () => {
  it('a log is rendered once per block and position; another block or position is rendered', () => {
    const kept = new RenderedLogs(1024 * 1024);
    let renders = 0;
    const render = (n: number) => () => {
      renders++;
      return log(n);
    };
    const first = kept.log('aa', 3, render(3));
    expect(kept.log('aa', 3, render(99))).toBe(first);
    kept.log('aa', 4, render(4));
    kept.log('bb', 3, render(3));
    expect(renders).toBe(3);
  });

  it('within the bytes given: a budget of a few logs keeps the last ones asked, 0 keeps none', () => {
    const kept = new RenderedLogs(4 * 1024);
    let renders = 0;
    const counted = (n: number) => () => {
      renders++;
      return log(n);
    };
    for (let block = 0; block < 200; block++) kept.log(`b${block}`, 0, counted(block));
    expect(renders).toBe(200);
    kept.log('b199', 0, counted(199));
    expect(renders).toBe(200); // the last one asked is kept
    kept.log('b0', 0, counted(0));
    expect(renders).toBe(201); // the first one is long gone
    const off = new RenderedLogs(0);
    off.log('b', 0, counted(0));
    off.log('b', 0, counted(0));
    expect(renders).toBe(203);
  });
});
