import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, importFixtureChain, tempDir } from '../../test/helpers/chains.js';
import { testConfig } from '../../test/helpers/testConfig.js';
import { wireError } from '../../test/helpers/wireError.js';
import type { EthereumChain } from '../chain/open.js';
import { bytesToData } from '../codec/hex.js';
import { callMethods } from '../methods/callMethods.js';
import { createEthContext, type EthContext } from '../methods/context.js';

/** An endless loop: JUMPDEST PUSH1 0 JUMP. */
const LOOP = '0x5b600056';
const LOOPER = '0x00000000000000000000000000000000000100a0';
const ethCall = callMethods.find((m) => m.name === 'eth_call')!;

const tmp = tempDir();
let chain: EthereumChain;
let ctx: EthContext;
beforeAll(async () => {
  chain = await importFixtureChain(join(FIXTURES, 'uncle-chains', 'twoUncle_London'), tmp.dir);
  // a short deadline so the test is quick; by default execution.callTimeoutMs is 5 s, geth's
  ctx = await createEthContext(chain, 'test', testConfig({ execution: { callTimeoutMs: 200 } }));
});
afterAll(async () => {
  await chain.close();
  tmp.cleanup();
});

const callError = (params: unknown[]) => wireError(ethCall.call(ctx, params));

describe('eth_call deadline', () => {
  it('an endless loop with a huge gas budget is aborted with geth’s error', async () => {
    // The loop has no end but the deadline: the answer is the proof it was cut.
    const error = await callError([{ to: LOOPER, gas: '0x3b9aca00' }, 'latest', { [LOOPER]: { code: LOOP } }]);
    expect(error).toEqual({ code: -32000, message: 'execution aborted (timeout = 0.2s)' });
  });

  it('the engine still answers afterwards (the interrupted EVM was dropped, not reused)', async () => {
    const code = await ethCall.call(ctx, [{ to: LOOPER }, 'latest', { [LOOPER]: { code: '0x60ff60005260206000f3' } }]);
    expect(code).toBe(bytesToData(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 0xff : 0))));
  });

  it('a loop that runs out of gas first is out of gas, not a timeout', async () => {
    // 30,000 gas: ~750 iterations after the intrinsic 21,000, milliseconds even on a loaded machine.
    expect(await callError([{ to: LOOPER, gas: '0x7530' }, 'latest', { [LOOPER]: { code: LOOP } }])).toEqual({ code: -32000, message: 'out of gas' });
  });
});

describe('eth_simulateV1 deadline', () => {
  const simulateV1 = callMethods.find((m) => m.name === 'eth_simulateV1')!;
  // 1,200,000 gas of JUMPDEST PUSH1 JUMP: ~100,000 iterations
  const block = { stateOverrides: { [LOOPER]: { code: LOOP } }, calls: [{ to: LOOPER, gas: '0x124f80' }] };

  it('one deadline covers all blocks: blocks each well within it still time out together', async () => {
    // how long one block takes here, with no deadline to speak of: the fastest of three runs once
    // the worker is warm (a first, slower run made the deadline so long that the 20 blocks, run
    // faster later, fit under it: seen once in a full suite)
    const relaxed = await createEthContext(chain, 'test', testConfig({ execution: { callTimeoutMs: 60_000 } }));
    await simulateV1.call(relaxed, [{ blockStateCalls: [block] }]); // starts the worker
    await simulateV1.call(relaxed, [{ blockStateCalls: [block] }]);
    let perBlock = Number.POSITIVE_INFINITY;
    let one: Array<{ calls: Array<{ error?: { message: string } }> }> = [];
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      one = (await simulateV1.call(relaxed, [{ blockStateCalls: [block] }])) as typeof one;
      perBlock = Math.min(perBlock, performance.now() - started);
    }
    await relaxed.evm.close();
    expect(one[0]!.calls[0]!.error?.message).toBe('out of gas');
    // a deadline of 3 blocks' time, 20 blocks (24M gas, within the budget and the chain's cap): the
    // whole request is over 6 deadlines at the fastest, each block a third of one; the watchdog's
    // grace is long, so only the simulation's own deadline can stop it. (With 5 blocks' time the
    // margin was 4×, and a block measured while the other test files loaded both cores once made
    // the deadline long enough for all 20 run later on quiet cores: seen in two full suites.)
    const timeoutMs = Math.max(10, Math.ceil(perBlock * 3));
    const strict = await createEthContext(chain, 'test', testConfig({ execution: { callTimeoutMs: timeoutMs, evmWatchdogGraceMs: 120_000 } }));
    try {
      const error = await wireError(simulateV1.call(strict, [{ blockStateCalls: Array.from({ length: 20 }, () => block) }]));
      expect(error).toEqual({ code: -32000, message: `execution aborted (timeout = ${timeoutMs / 1000}s)` });
    } finally {
      await strict.evm.close();
    }
  });
});
