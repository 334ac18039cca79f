import { readFileSync } from 'node:fs';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { expect, it } from 'vitest';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { rawCall, rawResult as rpc, usePeerPair } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'anvil differential tests (debug tracers)');

/**
 * geth's debug tracers against an independent peer: the `traces` scenario of
 * scripts/anvilChain.ts (every call kind, creations at top level and nested, reverts caught at
 * depth, out of gas in a subcall, SELFDESTRUCT, value transfers, precompiles, logs at depth) mined
 * on anvil 1.7.1 and imported into tracenode; debug_traceTransaction with callTracer (withLog),
 * prestateTracer and prestateTracer diffMode for every transaction, and debug_traceCall of every
 * transaction's call on its parent block, must equal anvil's, except where anvil differs from
 * geth (the reference), each allowance checked against an independent value:
 *
 * - callTracer's top frame: geth gives the transaction's gas limit as `gas` and the receipt's gas
 *   as `gasUsed`; anvil the gas after intrinsic gas and the gas before refunds. Ours is checked
 *   against the transaction and the receipt, then anvil's values are put in for the comparison.
 * - callTracer log `index`: geth's is the log's index in the block (a receipt's `logIndex`);
 *   anvil counts from 0 in each transaction. Ours is checked against the receipt.
 * - A precompile's failure: geth's error text (`mismatched versioned hash` for the point
 *   evaluation precompile); anvil says `precompiled failed`.
 * - 4byteTracer: geth leaves out calls to precompiles, anvil counts them; both are checked
 *   against the selectors of anvil's own call tree.
 * - prestateTracer: current geth adds `codeHash` to accounts with code (anvil does not; ours is
 *   checked to be the keccak of the code); geth drops accounts that did not exist before the
 *   transaction (no balance, nonce or code), anvil lists them.
 */

interface CallFrame {
  gas: string;
  gasUsed: string;
  to?: string;
  error?: string;
  calls?: CallFrame[];
  logs?: Array<{ index: string }>;
  [k: string]: unknown;
}
type Accounts = Record<string, { balance?: string; nonce?: number; code?: string; codeHash?: string; storage?: Record<string, string> }>;

const peers = usePeerPair('traces');
const isPrecompile = (a: string | undefined) => a !== undefined && /^0x0{38}(0[1-9a-f]|1[01])$/.test(a);

function logIndexes(f: CallFrame): number[] {
  return [...(f.logs ?? []).map((l) => Number(l.index)), ...(f.calls ?? []).flatMap(logIndexes)];
}

/** Ours with anvil's conventions where they differ (see above): log indexes from 0, precompile failures. */
function asAnvil(f: CallFrame, base: number, theirs: CallFrame | undefined): CallFrame {
  const out: CallFrame = { ...f };
  if (f.logs) out.logs = f.logs.map((l) => ({ ...l, index: `0x${(Number(l.index) - base).toString(16)}` }));
  if (f.error && isPrecompile(f.to) && theirs?.error === 'precompiled failed') out.error = theirs.error;
  if (f.calls) out.calls = f.calls.map((c, i) => asAnvil(c, base, theirs?.calls?.[i]));
  return out;
}

async function checkCodeHashes(url: string, accounts: Accounts): Promise<Accounts> {
  const out: Accounts = {};
  for (const [address, account] of Object.entries(accounts)) {
    const { codeHash, ...rest } = account;
    if (account.code !== undefined) expect(codeHash, address).toBe(await rpc(url, 'web3_sha3', [account.code])); // anvil's keccak
    out[address] = rest;
  }
  return out;
}

/** Anvil's answer without the accounts geth drops: those that did not exist before. */
function withoutEmpty(accounts: Accounts): Accounts {
  return Object.fromEntries(Object.entries(accounts).filter(([, a]) => !(BigInt(a.balance ?? '0x0') === 0n && !a.nonce && !a.code)));
}

describeWithAnvil('debug tracers vs anvil on an anvil-mined chain', () => {
  const hashes = (): string[] => {
    const expected = JSON.parse(readFileSync(peers().built.expectedPath, 'utf8')) as { blocks: Array<{ txHashes: string[] }> };
    return expected.blocks.flatMap((b) => b.txHashes);
  };

  it('callTracer (withLog) of every transaction equals anvil’s', async () => {
    const { ours, theirs } = peers();
    let logs = 0;
    let frames = 0;
    for (const hash of hashes()) {
      const config = { tracer: 'callTracer', tracerConfig: { withLog: true } };
      const got = (await rpc(ours, 'debug_traceTransaction', [hash, config])) as CallFrame;
      const want = (await rpc(theirs, 'debug_traceTransaction', [hash, config])) as CallFrame;
      const tx = (await rpc(ours, 'eth_getTransactionByHash', [hash])) as { gas: string };
      const receipt = (await rpc(ours, 'eth_getTransactionReceipt', [hash])) as { gasUsed: string; logs: Array<{ logIndex: string }> };
      expect(got.gas, hash).toBe(tx.gas);
      expect(got.gasUsed, hash).toBe(receipt.gasUsed);
      const indexes = logIndexes(got).sort((a, b) => a - b);
      expect(indexes, hash).toEqual(receipt.logs.map((l) => Number(l.logIndex)));
      const base = receipt.logs.length > 0 ? Number(receipt.logs[0].logIndex) : 0;
      expect({ ...asAnvil(got, base, want), gas: want.gas, gasUsed: want.gasUsed }, hash).toEqual(want);
      logs += indexes.length;
      frames += JSON.stringify(got).split('"type"').length - 1;
    }
    expect(logs).toBeGreaterThan(5);
    expect(frames).toBeGreaterThan(100);
  });

  it('prestateTracer of every transaction equals anvil’s', async () => {
    const { ours, theirs } = peers();
    let accounts = 0;
    for (const hash of hashes()) {
      const got = (await rpc(ours, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])) as Accounts;
      const want = (await rpc(theirs, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])) as Accounts;
      expect(await checkCodeHashes(theirs, got), hash).toEqual(withoutEmpty(want));
      accounts += Object.keys(got).length;
    }
    expect(accounts).toBeGreaterThan(100);
  });

  it('prestateTracer diffMode of every transaction equals anvil’s', async () => {
    const { ours, theirs } = peers();
    let changed = 0;
    for (const hash of hashes()) {
      const config = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } };
      const got = (await rpc(ours, 'debug_traceTransaction', [hash, config])) as { pre: Accounts; post: Accounts };
      const want = (await rpc(theirs, 'debug_traceTransaction', [hash, config])) as { pre: Accounts; post: Accounts };
      const post = Object.fromEntries(Object.entries(got.post).map(([a, { codeHash, ...rest }]) => [a, rest]));
      expect({ pre: await checkCodeHashes(theirs, got.pre), post }, hash).toEqual({ pre: withoutEmpty(want.pre), post: want.post });
      changed += Object.keys(got.post).length;
    }
    expect(changed).toBeGreaterThan(80);
  });

  it('4byteTracer of every transaction equals the selectors of anvil’s call tree; anvil also counts precompile calls', async () => {
    const { ours, theirs } = peers();
    let selectors = 0;
    for (const hash of hashes()) {
      const tree = (await rpc(theirs, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])) as CallFrame;
      const count = (withPrecompiles: boolean): Record<string, number> => {
        const ids: Record<string, number> = {};
        const visit = (f: CallFrame): void => {
          const input = f.input as string;
          const callKind = ['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'].includes(f.type as string);
          if (callKind && input.length >= 10 && (withPrecompiles || !isPrecompile(f.to))) {
            const key = `${input.slice(0, 10)}-${(input.length - 10) / 2}`;
            ids[key] = (ids[key] ?? 0) + 1;
          }
          for (const c of f.calls ?? []) visit(c);
        };
        visit(tree);
        return ids;
      };
      const got = (await rpc(ours, 'debug_traceTransaction', [hash, { tracer: '4byteTracer' }])) as Record<string, number>;
      expect(got, hash).toEqual(count(false));
      expect(await rpc(theirs, 'debug_traceTransaction', [hash, { tracer: '4byteTracer' }]), hash).toEqual(count(true));
      selectors += Object.keys(got).length;
    }
    expect(selectors).toBeGreaterThan(40);
  });

  it('a block trace with a transaction past the timeout fails whole with geth’s error, as geth’s native tracers do', async () => {
    const { ours } = peers();
    const head = peers().built.blocks.at(-1)!.number;
    let failed = 0;
    let answered = 0;
    for (let n = 1; n <= head; n++) {
      const block = `0x${n.toString(16)}`;
      const hashes = ((await rpc(ours, 'eth_getBlockByNumber', [block, false])) as { transactions: string[] }).transactions;
      // 1 ns: a transaction is stopped at its first deadline check (a sub-call, or 1,024 JUMP/JUMPI).
      const answers = await Promise.all(hashes.map((h) => rawCall(ours, 'debug_traceTransaction', [h, { tracer: 'callTracer', timeout: '1ns' }])));
      const whole = await rawCall(ours, 'debug_traceBlockByNumber', [block, { tracer: 'callTracer', timeout: '1ns' }]);
      if (answers.some((a) => a.error)) {
        for (const a of answers) if (a.error) expect(a.error).toEqual({ code: -32000, message: 'execution timeout' });
        expect(whole.error, block).toEqual({ code: -32000, message: 'execution timeout' });
        failed++;
      } else {
        expect(whole.result, block).toEqual(hashes.map((txHash, i) => ({ txHash, result: answers[i].result })));
        answered++;
      }
    }
    expect(failed).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(0);
  });

  it('debug_getRawReceipts of every block makes anvil’s receiptsRoot, its failed transactions’ receipts among them', async () => {
    const { ours, theirs } = peers();
    const head = Number(await rpc(theirs, 'eth_blockNumber', []));
    let failed = 0;
    for (let n = 1; n <= head; n++) {
      const number = `0x${n.toString(16)}`;
      const raws = (await rpc(ours, 'debug_getRawReceipts', [number])) as `0x${string}`[];
      const header = (await rpc(theirs, 'eth_getBlockByNumber', [number, false])) as { receiptsRoot: string };
      expect(bytesToHex(orderedTrieRoot(raws.map((r) => hexToBytes(r)))), `block ${n}`).toBe(header.receiptsRoot);
      const receipts = (await rpc(ours, 'eth_getBlockReceipts', [number])) as Array<{ status: string }>;
      failed += receipts.filter((r) => r.status === '0x0').length;
    }
    expect(failed).toBeGreaterThan(0);
  });

  it('debug_traceCall of every transaction’s call on its parent block equals anvil’s (callTracer, prestateTracer)', async () => {
    const { ours, theirs } = peers();
    let compared = 0;
    for (const hash of hashes()) {
      const tx = (await rpc(ours, 'eth_getTransactionByHash', [hash])) as {
        from: string;
        to: string | null;
        input: string;
        value: string;
        gas: string;
        blockNumber: string;
      };
      const call = { from: tx.from, to: tx.to ?? undefined, input: tx.input, value: tx.value, gas: tx.gas };
      const parent = `0x${(Number(tx.blockNumber) - 1).toString(16)}`;
      const config = { tracer: 'callTracer', tracerConfig: { withLog: true } };
      const got = (await rpc(ours, 'debug_traceCall', [call, parent, config])) as CallFrame;
      const want = (await rpc(theirs, 'debug_traceCall', [call, parent, config])) as CallFrame;
      expect(got.gas).toBe(tx.gas);
      expect({ ...asAnvil(got, 0, want), gas: want.gas, gasUsed: want.gasUsed }, hash).toEqual(want);
      const pre = (await rpc(ours, 'debug_traceCall', [call, parent, { tracer: 'prestateTracer' }])) as Accounts;
      const theirPre = (await rpc(theirs, 'debug_traceCall', [call, parent, { tracer: 'prestateTracer' }])) as Accounts;
      expect(await checkCodeHashes(theirs, pre), hash).toEqual(withoutEmpty(theirPre));
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });
});
