import { expect, it } from 'vitest';
import { rawCall as rpc, usePeerPair } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'anvil differential tests (eth_call)');

/**
 * eth_call against an independent peer: every transaction of the anvil-mined `traces` and `state`
 * chains is replayed as an eth_call at its parent block and at the head (from, to, input, value,
 * gas as sent), on anvil and on tracenode. Successes must return the same bytes; reverts the same
 * code 3 and revert data. Messages are geth's here and anvil's own there (docs/peers.md: anvil appends
 * its decoded text and reports out-of-gas as -32603), so for failures the test compares data only
 * and checks that tracenode's message is geth's form.
 */
const chains = [usePeerPair('traces'), usePeerPair('state')];

describeWithAnvil('eth_call vs anvil: every mined transaction replayed as a call', () => {
  it('same return data, same revert data, at the parent block and at the head', async () => {
    let successes = 0;
    let reverts = 0;
    for (const pair of chains) {
      const { built, ours } = pair();
      const head = built.blocks.at(-1)!.number;
      for (let n = 1; n <= head; n++) {
        const block = (await rpc(built.anvil!.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])).result as {
          transactions: Array<{ from: string; to: string | null; input: string; value: string; gas: string }>;
        };
        for (const tx of block.transactions) {
          if (tx.to === null) continue; // creations: covered by the unit tests (runtime code returned)
          const call = { from: tx.from, to: tx.to, input: tx.input, value: tx.value, gas: tx.gas };
          for (const at of [`0x${(n - 1).toString(16)}`, 'latest']) {
            const a = await rpc(built.anvil!.url, 'eth_call', [call, at]);
            const t = await rpc(ours, 'eth_call', [call, at]);
            const label = JSON.stringify([call, at]);
            if (a.error === undefined) {
              expect(t, label).toEqual({ jsonrpc: '2.0', id: 1, result: a.result });
              successes++;
            } else if (a.error.code === 3) {
              expect(t.error?.code, label).toBe(3);
              expect(t.error?.data, label).toBe(a.error.data ?? '0x');
              expect(t.error?.message, label).toMatch(/^execution reverted(: .+)?$/);
              reverts++;
            } else {
              // anvil's non-revert failures (e.g. out of gas: -32603 "EVM error OutOfGas") vs geth's -32000 texts
              expect(t.error?.code, `${label} anvil said ${JSON.stringify(a.error)}`).toBe(-32000);
            }
          }
        }
      }
    }
    expect(successes).toBeGreaterThan(50);
    expect(reverts).toBeGreaterThan(2);
  });
});
