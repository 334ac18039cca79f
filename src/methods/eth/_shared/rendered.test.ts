import { describe, expect, it } from 'vitest';
import { logBytes, type RpcLog } from './formatLog.js';
import { RenderedByBlock } from './rendered.js';

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

/** A renderer of log `n` that counts its renders in `counter.renders`. */
const counting = (counter: { renders: number }) => (n: number) => () => {
  counter.renders++;
  return log(n);
};

describe('logs kept rendered (methods/eth/_shared/rendered.ts)', () => {
  it('a log is rendered once per block and position; another block or position is rendered', () => {
    const kept = new RenderedByBlock(1024 * 1024, logBytes);
    const counter = { renders: 0 };
    const render = counting(counter);
    const first = kept.item('aa', 3, render(3));
    expect(kept.item('aa', 3, render(99))).toBe(first);
    kept.item('aa', 4, render(4));
    kept.item('bb', 3, render(3));
    expect(counter.renders).toBe(3);
  });

  it('within the bytes given: a budget of a few logs keeps the last ones asked, 0 keeps none', () => {
    const kept = new RenderedByBlock(4 * 1024, logBytes);
    const counter = { renders: 0 };
    const counted = counting(counter);
    for (let block = 0; block < 200; block++) kept.item(`b${block}`, 0, counted(block));
    expect(counter.renders).toBe(200);
    kept.item('b199', 0, counted(199));
    expect(counter.renders).toBe(200); // the last one asked is kept
    kept.item('b0', 0, counted(0));
    expect(counter.renders).toBe(201); // the first one is long gone
    const off = new RenderedByBlock(0, logBytes);
    off.item('b', 0, counted(0));
    off.item('b', 0, counted(0));
    expect(counter.renders).toBe(203);
  });
});
