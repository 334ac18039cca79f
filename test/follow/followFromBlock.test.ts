import { join } from 'node:path';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToUnprefixedHex, type DB, hexToBytes, ValueEncoding } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { encodeAbiParameters, getContractAddress, type Hex, parseGwei } from 'viem';
import { privateKeyToAccount, signAuthorization } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnvilProcess, startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { walkKey } from '../../src/state/trieWalk.js';
import { rawCall, rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { caughtUpTo, expectSameState, type PartialArchive, readerCall, type StateSample, startPartialArchive } from './partialArchive.js';

/**
 * Following from block N (issue 26, part B) a plain anvil (Prague, its defaults): it serves no
 * debug_executionWitness, so each block's state comes from a prestateTracer trace and batched
 * eth_getProof at its parent, and the rest is fetched as the block reads it. The chain, made here:
 * a contract with 2,000 slots (set before N), and after N a slot deleted whose branch collapses
 * onto an untouched sibling, an EIP-7702 delegation and its clearing (the delegated code writing
 * and clearing the account's own slots), CREATE2 of a contract that self-destructs as it is
 * created (with value: the account emptied), then redeployed at the same address, a CREATE2
 * colliding with a live contract, 0 wei sent to a fresh address, slots set to zero. The archive
 * starts at a middle block, follows to the head, then live. At every block from N the state
 * methods, eth_getProof and eth_call answer as anvil does over accounts and slots touched and
 * untouched since N; trace_block and debug_traceBlockByNumber replay every block after N; below
 * N the documented errors.
 */

const KEYS: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
];
const [alice, bob, eve, untouchedEoa] = KEYS.map((k) => privateKeyToAccount(k));
/** Writes calldata's 64-byte pairs (slot, value) to storage, in order. */
const SLOTS_RUNTIME = '60005b3681101560185780602001358135556040016002565b00';
/** CREATE2 with salt calldata[0:32] of the init code calldata[32:], with the call's value. */
const FACTORY_RUNTIME = '366020900380602060003760003590600034f500';
const BENEFICIARY = '0x00000000000000000000000000000000000be4ef';
const FRESH = '0x000000000000000000000000000000000000f4e5';
const NEVER = '0x00000000000000000000000000000000000a0b5e';
/** Init code that self-destructs to BENEFICIARY as it is created. */
const DOOMED_INIT = `0x73${BENEFICIARY.slice(2)}ff` as Hex;
const DEEP_SLOTS = 2000;

const initcode = (runtime: string): Hex => {
  const n = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${n}600c60003960${n}6000f3${runtime}` as Hex;
};
const word = (n: bigint | number): Hex => encodeAbiParameters([{ type: 'uint256' }], [BigInt(n)]);
const pairs = (entries: Array<[bigint | number, bigint | number]>): Hex => `0x${entries.map(([s, v]) => word(s).slice(2) + word(v).slice(2)).join('')}` as Hex;

const describe = describeWithFoundry(['anvil'], 'following from block N: anvil');
const tmp = tempDir('tracenode-follow-from-');
let anvil: AnvilProcess;
let archive: PartialArchive;
const call = (method: string, params: unknown[] = []) => rawResult(anvil.url, method, params);
const nonces = new Map<string, number>();
let N = 0;
let head = 0;
let slots: Hex;
let slots2: Hex;
let factory: Hex;
/** The slot whose deletion collapses a branch onto an untouched sibling, and how deep that sibling lies. */
let collapsing: { slot: bigint; depth: number };
const sample = {} as StateSample;

async function send(key: Hex, tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint; authorizationList?: unknown[] }): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const nonce = nonces.get(account.address) ?? Number(BigInt((await call('eth_getTransactionCount', [account.address, 'pending'])) as string));
  nonces.set(account.address, nonce + 1);
  const fees = { chainId: 31337, nonce, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1') };
  const { authorizationList, ...rest } = tx;
  const raw = authorizationList
    ? await account.signTransaction({ ...fees, ...rest, type: 'eip7702', authorizationList: authorizationList as never })
    : await account.signTransaction({ ...fees, ...rest, type: 'eip1559' });
  return (await call('eth_sendRawTransaction', [raw])) as Hex;
}

async function mine(): Promise<number> {
  await call('evm_mine');
  head = Number(BigInt((await call('eth_blockNumber')) as string));
  return head;
}

/** A slot of the 2,000 whose leaf's branch has two children, the other a node held by hash (`2, 3, …` the values). */
async function findCollapsing(): Promise<{ slot: bigint; depth: number }> {
  const nodes = new Map<string, Uint8Array>();
  const db = {
    get: async (k: string) => nodes.get(k),
    put: async (k: string, v: Uint8Array) => void nodes.set(k, v),
    del: async () => undefined,
    batch: async (ops: Array<{ type: string; key: string; value?: Uint8Array }>) => {
      for (const op of ops) if (op.value) nodes.set(op.key, op.value);
    },
    shallowCopy: () => db,
    open: async () => undefined,
  } as unknown as DB<string, Uint8Array>;
  const trie = new MerklePatriciaTrie({ db, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });
  for (let i = 0; i < DEEP_SLOTS; i++)
    await trie.put(hexToBytes(word(i)), RLP.encode(hexToBytes(`0x${(i + 1).toString(16).padStart(4, '0')}`).subarray(i + 1 < 256 ? 1 : 0)));
  const lookup = async (h: Uint8Array) => nodes.get(bytesToUnprefixedHex(h));
  for (let i = 0; i < DEEP_SLOTS; i++) {
    const walk = await walkKey(lookup, trie.root(), keccak256(hexToBytes(word(i))));
    const branch = walk.steps.at(-2);
    if (branch?.items.length !== 17) continue;
    const children = branch.items.slice(0, 16).filter((c) => !(c instanceof Uint8Array && c.length === 0));
    if (children.length === 2 && children.every((c) => c instanceof Uint8Array && c.length === 32)) return { slot: BigInt(i), depth: branch.prefix.length + 1 };
  }
  throw new Error('no slot collapses its branch');
}

beforeAll(async () => {
  anvil = await startAnvil(['--no-mining']);
  // Before N: the contracts, 2,000 slots, a few blocks of transfers.
  await send(KEYS[0], { data: initcode(SLOTS_RUNTIME), gas: 200_000n });
  await send(KEYS[0], { data: initcode(FACTORY_RUNTIME), gas: 200_000n });
  await send(KEYS[1], { data: initcode(SLOTS_RUNTIME), gas: 200_000n });
  await mine();
  slots = getContractAddress({ from: alice.address, nonce: 0n }).toLowerCase() as Hex;
  factory = getContractAddress({ from: alice.address, nonce: 1n }).toLowerCase() as Hex;
  slots2 = getContractAddress({ from: bob.address, nonce: 0n }).toLowerCase() as Hex;
  const setStorage = Array.from({ length: DEEP_SLOTS }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'anvil_setStorageAt',
    params: [slots, word(i), word(i + 1)],
  }));
  await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(setStorage) });
  await send(KEYS[1], {
    to: slots2,
    data: pairs([
      [0, 10],
      [1, 11],
      [2, 12],
      [3, 13],
    ]),
    gas: 200_000n,
  });
  await mine();
  await send(KEYS[0], { to: bob.address, value: 10n ** 18n, gas: 21_000n });
  await mine();
  N = await mine(); // an empty block: the archive's first
  collapsing = await findCollapsing();
  Object.assign(sample, {
    accounts: [alice.address, bob.address, eve.address, untouchedEoa.address, slots, slots2, factory, BENEFICIARY, FRESH, NEVER],
    slots: [
      ...[collapsing.slot, 0n, 1n, 7n, 500n, 1999n, 2000n, 2001n].map((s): [string, string] => [slots, word(s)]),
      ...[0, 1, 3, 9].map((s): [string, string] => [slots2, word(s)]),
      ...[1, 2, 3].map((s): [string, string] => [eve.address, word(s)]),
    ],
    proofs: [slots, slots2, eve.address, alice.address, FRESH],
    calls: [readerCall([alice.address, slots, eve.address, BENEFICIARY, slots2])],
  });
  archive = await startPartialArchive(join(tmp.dir, 'data'), anvil.url, { at: String(N) });
}, 120_000);

afterAll(async () => {
  await archive?.close();
  await anvil?.stop();
  tmp.cleanup();
});

describe('following a plain anvil from block N (prestate source)', () => {
  it('executes the blocks after N on fetched state: a deletion that collapses a branch, 7702, CREATE2 redeploys, self-destructs, zeroed slots', async () => {
    // N+1: the slot whose deletion collapses its branch onto a sibling no block has read.
    await send(KEYS[0], { to: slots, data: pairs([[collapsing.slot, 0]]), gas: 100_000n });
    await send(KEYS[0], { to: bob.address, value: 1n, gas: 21_000n });
    await mine();
    // N+2: eve delegates to the slots contract, and her account writes its own slots.
    const delegate = await signAuthorization({ privateKey: KEYS[2], chainId: 31337, address: slots, nonce: 0 });
    await send(KEYS[0], {
      to: eve.address,
      data: pairs([
        [1, 21],
        [2, 22],
        [3, 23],
      ]),
      gas: 200_000n,
      authorizationList: [delegate],
    });
    await mine();
    // N+3: CREATE2 of a contract that self-destructs as it is created (1 ether, passed on), a CREATE2
    // that stays, 0 wei to a fresh address.
    await send(KEYS[0], { to: factory, value: 10n ** 18n, data: `${word(1)}${DOOMED_INIT.slice(2)}` as Hex, gas: 200_000n });
    await send(KEYS[0], { to: factory, data: `${word(2)}${initcode(SLOTS_RUNTIME).slice(2)}` as Hex, gas: 300_000n });
    await send(KEYS[1], { to: FRESH, value: 0n, gas: 21_000n });
    await mine();
    // N+4: the same CREATE2 again (redeployed where it was destroyed), one colliding with a live
    // contract, slots set to zero (the deep contract's and eve's) and others written.
    await send(KEYS[0], { to: factory, value: 5n, data: `${word(1)}${DOOMED_INIT.slice(2)}` as Hex, gas: 200_000n });
    await send(KEYS[0], { to: factory, data: `${word(2)}${initcode(SLOTS_RUNTIME).slice(2)}` as Hex, gas: 300_000n });
    await send(KEYS[0], {
      to: slots,
      data: pairs([
        [0, 0],
        [1, 0],
        [7, 70],
        [2000, 1],
        [2001, 2],
      ]),
      gas: 300_000n,
    });
    await send(KEYS[1], {
      to: eve.address,
      data: pairs([
        [1, 0],
        [3, 33],
      ]),
      gas: 200_000n,
    });
    await mine();
    // N+5: eve clears her delegation.
    const clear = await signAuthorization({ privateKey: KEYS[2], chainId: 31337, address: '0x0000000000000000000000000000000000000000', nonce: 1 });
    await send(KEYS[1], { to: eve.address, value: 3n, gas: 100_000n, authorizationList: [clear] });
    await mine();
    await caughtUpTo(archive, head);
    const status = archive.follower.status();
    expect(status.stateFetch?.source).toBe('prestate');
    expect(status.stateFetch?.blocks).toMatchObject({ prestate: head - N, witness: 0 });
    // The deletion's sibling was fetched through the proof of a key searched under its path.
    expect(status.stateFetch?.siblings).toBeGreaterThanOrEqual(1);
    expect(archive.lines.filter((l) => l.includes('state of followed blocks'))).toEqual([expect.stringContaining('prestateTracer')]);
    const metrics = await archive.metrics();
    expect(metrics).toContain(`tracenode_follow_state_blocks_total{network="mainnet",source="prestate"} ${head - N}`);
    expect(metrics).toMatch(/tracenode_follow_state_siblings_total\{network="mainnet"\} [1-9]/);
  });

  it('answers every state method at every block from N as anvil does, over accounts and slots touched and untouched', async () => {
    const child1 = getContractAddress({ opcode: 'CREATE2', from: factory, salt: word(1), bytecode: DOOMED_INIT }).toLowerCase();
    const child2 = getContractAddress({ opcode: 'CREATE2', from: factory, salt: word(2), bytecode: initcode(SLOTS_RUNTIME) }).toLowerCase();
    const wide = { ...sample, accounts: [...sample.accounts, child1, child2] };
    let compared = 0;
    for (let n = N; n <= head; n++) compared += await expectSameState(archive.url, anvil.url, `0x${n.toString(16)}`, wide);
    expect(compared).toBeGreaterThan(300);
    // The delegation, then its clearing, as anvil shows them.
    expect(await rawResult(archive.url, 'eth_getCode', [eve.address, `0x${(N + 2).toString(16)}`])).toBe(`0xef0100${slots.slice(2)}`);
    expect(await rawResult(archive.url, 'eth_getCode', [eve.address, 'latest'])).toBe('0x');
  });

  it('replays every block after N (trace_block, debug_traceBlockByNumber); below N the documented errors', async () => {
    for (let n = N + 1; n <= head; n++) {
      const hex = `0x${n.toString(16)}`;
      const block = (await rawResult(anvil.url, 'eth_getBlockByNumber', [hex, false])) as { transactions: string[] };
      const traces = (await rawResult(archive.url, 'trace_block', [hex])) as Array<{ transactionHash: string | null }>;
      expect(new Set(traces.map((t) => t.transactionHash).filter((h) => h !== null))).toEqual(new Set(block.transactions));
      const debug = (await rawResult(archive.url, 'debug_traceBlockByNumber', [hex, { tracer: 'callTracer' }])) as unknown[];
      expect(debug).toHaveLength(block.transactions.length);
    }
    const below = `0x${(N - 1).toString(16)}`;
    expect((await rawCall(archive.url, 'eth_getBalance', [alice.address, below])).error).toMatchObject({
      code: -32000,
      message: `missing trie node: the state of block ${N - 1} is not available, this archive starts at block ${N}`,
    });
    expect((await rawCall(archive.url, 'eth_getBlockByNumber', [below, false])).error).toMatchObject({ code: 4444 });
  });

  it('BLOCKHASH of blocks below N, in eth_call and debug_traceCall at blocks from N (the EVM workers), is the chain’s', async () => {
    // Creation code that returns a zero byte, then BLOCKHASH(k): PUSH2 k, BLOCKHASH, PUSH1 1, MSTORE,
    // PUSH1 33, PUSH0, RETURN. What a creation returns is the new contract's code: a hash starting
    // with 0xef on its own would be refused (EIP-3541, CreateContractStartingWithEF), 3 hashes in
    // 256 (seen once in a full suite: anvil's block hashes differ from run to run).
    const blockHashOf = (k: number) => `0x61${k.toString(16).padStart(4, '0')}4060015260215ff3`;
    for (const at of [N, N + 1, head]) {
      for (const k of [N - 1, N - 2, 1]) {
        const tx = { data: blockHashOf(k) };
        const tag = `0x${at.toString(16)}`;
        const { hash } = (await rawResult(anvil.url, 'eth_getBlockByNumber', [`0x${k.toString(16)}`, false])) as { hash: string };
        const want = `0x00${hash.slice(2)}`;
        expect(await rawResult(anvil.url, 'eth_call', [tx, tag]), `anvil, BLOCKHASH(${k}) at ${at}`).toBe(want);
        expect(await rawResult(archive.url, 'eth_call', [tx, tag]), `BLOCKHASH(${k}) at ${at}`).toBe(want);
        const traced = (await rawResult(archive.url, 'debug_traceCall', [tx, tag, { tracer: 'callTracer' }])) as { output: string };
        expect(traced.output, `traced BLOCKHASH(${k}) at ${at}`).toBe(want);
      }
    }
  });

  it('eth_simulateV1 at block N (the EVM workers fetch through the serving thread): writes to slots of the deep contract no block touched, its root computed', async () => {
    const before = await archive.metrics();
    const remote = (text: string) => Number(/tracenode_remote_state_fetches_total\{network="mainnet",kind="proof"\} (\d+)/.exec(text)?.[1] ?? 0);
    const calls = [
      {
        from: untouchedEoa.address,
        to: slots,
        data: pairs([
          [1500, 7],
          [1501, 0],
        ]),
        gas: '0x30000',
      },
    ];
    const [simulated] = (await rawResult(archive.url, 'eth_simulateV1', [{ blockStateCalls: [{ calls }] }, `0x${N.toString(16)}`])) as Array<{
      stateRoot: string;
      calls: Array<{ status: string }>;
    }>;
    expect(simulated.calls.map((c) => c.status)).toEqual(['0x1']);
    expect(simulated.stateRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(remote(await archive.metrics())).toBeGreaterThan(remote(before));
  });

  it('follows live: new blocks are executed as anvil mines them, and answer as anvil does', async () => {
    await send(KEYS[0], {
      to: slots,
      data: pairs([
        [collapsing.slot, 5],
        [3, 0],
        [1999, 0],
      ]),
      gas: 200_000n,
    });
    await send(KEYS[3], { to: slots2, data: pairs([[9, 9]]), gas: 100_000n });
    await mine();
    await mine();
    await caughtUpTo(archive, head);
    for (const n of [head - 1, head]) await expectSameState(archive.url, anvil.url, `0x${n.toString(16)}`, sample);
  });
});
