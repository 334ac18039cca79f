import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlockFromRPC, createBlockHeader, genTransactionsTrieRoot } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { privateKeyToAccount, signAuthorization } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilProcess, startAnvil } from '../../scripts/anvilChain.js';
import { createChainCommon } from '../../src/chain/genesis.js';
import type { EthereumChain } from '../../src/chain/open.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { BlockFromRpcError, blockFromRpc } from '../../src/follow/blockFromRpc.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * blockFromRpc (src/follow/blockFromRpc.ts): every block of the fixture chains, rendered by
 * tracenode's own eth_getBlockByNumber (full transactions) and eth_getUncleByBlockHashAndIndex,
 * rebuilt and compared byte for byte with the block's RLP in the fixture's chain.rlp (geth's
 * export, independent of tracenode). Then the refusals: tampered fields, missing transactions,
 * garbage input.
 */

type Json = Record<string, unknown>;
type Tx = Json & { hash: string; type: string; v: string; yParity?: string; nonce: string; authorizationList?: Json[] };
type RpcBlock = Json & { hash: string; number: string; transactions: Tx[]; uncles: string[]; withdrawals?: Json[] };

const UNCLE_CHAINS = readdirSync(join(FIXTURES, 'uncle-chains'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The blocks of a chain.rlp (geth export: block RLPs one after another), as their own bytes. */
function chainRlpBlocks(dir: string): Uint8Array[] {
  let rest: Uint8Array = readFileSync(join(dir, 'chain.rlp'));
  const blocks: Uint8Array[] = [];
  while (rest.length > 0) {
    const { remainder } = RLP.decode(rest, true);
    blocks.push(rest.subarray(0, rest.length - remainder.length));
    rest = remainder;
  }
  return blocks;
}

async function call(ctx: EthContext, method: string, params: unknown[]): Promise<unknown> {
  return ethereumMethods.get(method)!.call(ctx, params);
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

async function rpcBlock(ctx: EthContext, n: number): Promise<{ json: RpcBlock; uncles: Json[] }> {
  const json = (await call(ctx, 'eth_getBlockByNumber', [hex(n), true])) as RpcBlock;
  const uncles: Json[] = [];
  for (let i = 0; i < json.uncles.length; i++) uncles.push((await call(ctx, 'eth_getUncleByBlockHashAndIndex', [json.hash, hex(i)])) as Json);
  return { json, uncles };
}

/** A deep copy, to tamper with. */
const copy = <T>(value: T): T => structuredClone(value);

/** The error blockFromRpc throws for this input (fails the test when it throws none). */
function refusal(json: unknown, uncles: unknown[], chain: EthereumChain): BlockFromRpcError {
  try {
    blockFromRpc(json, uncles, chain.common);
  } catch (err) {
    expect(err).toBeInstanceOf(BlockFromRpcError);
    return err as BlockFromRpcError;
  }
  throw new Error('blockFromRpc accepted the input');
}

interface Opened {
  chain: EthereumChain;
  ctx: EthContext;
  close(): Promise<void>;
}

async function open(dir: string): Promise<Opened> {
  const tmp = tempDir('tracenode-blockfromrpc-');
  const chain = await importFixtureChain(dir, tmp.dir);
  const ctx = await createEthContext(chain, 'test', testConfig());
  return {
    chain,
    ctx,
    close: async () => {
      await ctx.evm.close();
      await chain.close();
      tmp.cleanup();
    },
  };
}

/** Rebuilds every block 0..head and checks it byte for byte; returns what it saw. */
async function rebuildAll(dir: string, { chain, ctx }: Opened) {
  const raw = chainRlpBlocks(dir);
  const head = Number((await chain.store.head())!.number);
  expect(head).toBe(raw.length);
  const seen = { blocks: 0, uncles: 0, withdrawals: 0, txTypes: new Map<number, number>(), legacyUnprotected: 0 };
  const hardforkBefore = chain.common.hardfork();
  for (let n = 0; n <= head; n++) {
    const { json, uncles } = await rpcBlock(ctx, n);
    const rebuilt = blockFromRpc(json, uncles, chain.common);
    // Block 0 is not in chain.rlp: compare it with the genesis tracenode stored.
    const expected = n === 0 ? (await chain.store.blockByNumber(0n))!.serialize() : raw[n - 1];
    expect(bytesToHex(rebuilt.serialize()), `block ${n}`).toBe(bytesToHex(expected));
    expect(bytesToHex(rebuilt.hash())).toBe(json.hash);
    seen.blocks++;
    seen.uncles += rebuilt.uncleHeaders.length;
    seen.withdrawals += rebuilt.withdrawals?.length ?? 0;
    for (const tx of rebuilt.transactions) {
      seen.txTypes.set(tx.type, (seen.txTypes.get(tx.type) ?? 0) + 1);
      if (tx.type === 0 && (tx.v === 27n || tx.v === 28n)) seen.legacyUnprotected++;
    }
  }
  expect(chain.common.hardfork()).toBe(hardforkBefore);
  return seen;
}

/** Counts in the raw chain.rlp: transactions by type (first byte of a typed one), uncles, withdrawals. */
function rawCounts(dir: string) {
  const txTypes = new Map<number, number>();
  let uncles = 0;
  let withdrawals = 0;
  for (const bytes of chainRlpBlocks(dir)) {
    const [, txs, ommers, wds] = RLP.decode(bytes) as unknown as [unknown, Array<Uint8Array | unknown[]>, unknown[], unknown[] | undefined];
    for (const tx of txs) {
      const type = tx instanceof Uint8Array ? tx[0] : 0;
      txTypes.set(type, (txTypes.get(type) ?? 0) + 1);
    }
    uncles += ommers.length;
    withdrawals += wds?.length ?? 0;
  }
  return { txTypes, uncles, withdrawals };
}

describe('blockFromRpc: the execution-apis chain (Frontier → Osaka/BPO2), every block', () => {
  const dir = join(FIXTURES, 'execution-apis');
  let opened: Opened;
  beforeAll(async () => {
    opened = await open(dir);
  }, 120_000);
  afterAll(async () => opened?.close());

  it('rebuilds all 55 blocks (genesis and 1-54) to chain.rlp byte for byte, with every transaction type', async () => {
    const seen = await rebuildAll(dir, opened);
    const raw = rawCounts(dir);
    expect(seen.blocks).toBe(55);
    // fixtures/execution-apis/README.md: 249 transactions, 18 uncles (blocks 3, 4, 6, ... 34).
    expect([...seen.txTypes.values()].reduce((a, b) => a + b, 0)).toBe(249);
    expect(seen.uncles).toBe(18);
    expect(seen.uncles).toBe(raw.uncles);
    expect(seen.withdrawals).toBe(raw.withdrawals);
    expect(seen.withdrawals).toBeGreaterThan(0);
    expect(Object.fromEntries(seen.txTypes)).toEqual(Object.fromEntries(raw.txTypes));
    for (const type of [0, 1, 2, 3, 4]) expect(seen.txTypes.get(type), `type ${type}`).toBeGreaterThan(0);
    // Blocks 1-5 are before EIP-155 (eip155Block 6): their legacy transactions have v = 27/28.
    expect(seen.legacyUnprotected).toBeGreaterThan(0);
  }, 120_000);

  /** The first block with a transaction that `matches`, and the index of that transaction. */
  async function blockWith(matches: (tx: Tx) => boolean): Promise<{ json: RpcBlock; uncles: Json[]; index: number }> {
    for (let n = 1; n <= 54; n++) {
      const { json, uncles } = await rpcBlock(opened.ctx, n);
      const index = json.transactions.findIndex(matches);
      if (index >= 0) return { json, uncles, index };
    }
    throw new Error('no such transaction');
  }
  const blockWithTxType = (type: string) => blockWith((tx) => tx.type === type);

  it('refuses a tampered header field (gasUsed + 1) with both hashes, the rebuilt one computed independently', async () => {
    const { json, uncles } = await rpcBlock(opened.ctx, 40);
    const tampered = copy(json);
    tampered.gasUsed = hex(BigInt(json.gasUsed as string) + 1n);
    const err = refusal(tampered, uncles, opened.chain);
    const stored = (await opened.chain.store.blockByNumber(40n))!.header;
    const independent = bytesToHex(
      createBlockHeader({ ...stored.toJSON(), gasUsed: stored.gasUsed + 1n }, { common: opened.chain.common, setHardfork: true }).hash(),
    );
    expect(err.blockNumber).toBe(40n);
    expect(err.upstreamHash).toBe(json.hash);
    expect(err.rebuiltHash).toBe(independent);
    expect(independent).not.toBe(json.hash);
    expect(err.message).toBe(`block 40 (${json.hash}): rebuilt header hash ${independent} is not the upstream's ${json.hash}`);
  });

  it('refuses a transaction whose nonce was changed: by its own hash, and without one by the transactions root', async () => {
    const { json, uncles, index } = await blockWithTxType('0x2');
    const tampered = copy(json);
    const tx = tampered.transactions[index];
    tx.nonce = hex(BigInt(tx.nonce) + 1n);
    const err = refusal(tampered, uncles, opened.chain);
    expect(err.upstreamHash).toBe(json.transactions[index].hash);
    expect(err.rebuiltHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(err.rebuiltHash).not.toBe(err.upstreamHash);
    expect(err.message).toContain(`rebuilt transaction ${index} has hash ${err.rebuiltHash}, the upstream's is ${tx.hash}`);

    // Without the transaction's hash only the header's transactionsRoot can tell.
    for (const t of tampered.transactions) delete (t as Json).hash;
    const byRoot = refusal(tampered, uncles, opened.chain);
    expect(byRoot.upstreamHash).toBe(json.transactionsRoot);
    expect(byRoot.message).toContain(
      `transactionsRoot of its ${json.transactions.length} transaction(s) is ${byRoot.rebuiltHash}, the header's is ${json.transactionsRoot}`,
    );
  });

  it('refuses a block with a transaction missing (the header hash alone would accept it)', async () => {
    const { json, uncles } = await rpcBlock(opened.ctx, 2); // 59 transactions
    expect(json.transactions.length).toBe(59);
    const dropped = copy(json);
    dropped.transactions.pop();
    // createBlockFromRPC itself builds it, and its hash is the header's.
    expect(bytesToHex(createBlockFromRPC(dropped as never, [], { common: opened.chain.common, setHardfork: true }).hash())).toBe(json.hash);
    const err = refusal(dropped, uncles, opened.chain);
    expect(err.message).toContain(`transactionsRoot of its 58 transaction(s)`);
    expect(err.upstreamHash).toBe(json.transactionsRoot);
    // One dropped from the middle: the positions the JSON gives say so.
    const middle = copy(json);
    middle.transactions.splice(10, 1);
    expect(refusal(middle, uncles, opened.chain).message).toContain('transaction 10 says it is at index 0xb');
  });

  it('refuses changed withdrawals, a missing fork field (named), and wrong or missing uncles', async () => {
    let post = await rpcBlock(opened.ctx, 39); // Shanghai's first block
    while ((post.json.withdrawals ?? []).length === 0) post = await rpcBlock(opened.ctx, Number(post.json.number) + 1);
    const wd = copy(post.json);
    wd.withdrawals![0].amount = hex(BigInt(wd.withdrawals![0].amount as string) + 1n);
    expect(refusal(wd, [], opened.chain).message).toContain(`withdrawalsRoot of its ${post.json.withdrawals!.length} withdrawal(s)`);

    const prague = await rpcBlock(opened.ctx, 50);
    expect(prague.json.parentBeaconBlockRoot).toBeDefined();
    expect(prague.json.requestsHash).toBeDefined();
    const noBeaconRoot = copy(prague.json);
    delete noBeaconRoot.parentBeaconBlockRoot;
    delete noBeaconRoot.requestsHash;
    expect(refusal(noBeaconRoot, [], opened.chain).message).toContain(`(the JSON lacks parentBeaconBlockRoot, requestsHash, filled with the fork's defaults)`);

    const { json, uncles } = await rpcBlock(opened.ctx, 3);
    expect(json.uncles.length).toBe(1);
    expect(refusal(json, [], opened.chain).message).toContain('the block names 1 uncle(s) but 0 uncle header(s) were given');
    const badUncle = copy(uncles);
    badUncle[0].gasUsed = hex(BigInt(badUncle[0].gasUsed as string) + 1n);
    const err = refusal(json, badUncle, opened.chain);
    expect(err.upstreamHash).toBe(json.uncles[0]);
    expect(err.message).toContain(`rebuilt uncle 0 has hash ${err.rebuiltHash}, the block names ${json.uncles[0]}`);
  });

  it("rebuilds typed transactions that give only yParity (createBlockFromRPC signs them off) and authorizations with 'v'", async () => {
    const { json, uncles, index } = await blockWithTxType('0x4');
    const onlyParity = copy(json);
    for (const tx of onlyParity.transactions) if (tx.type !== '0x0') delete (tx as Json).v;
    // Unfixed, the typed transactions lose their v and come out unsigned, with other hashes.
    const unfixed = createBlockFromRPC(onlyParity as never, [], { common: opened.chain.common, setHardfork: true });
    expect(unfixed.transactions[index].isSigned()).toBe(false);
    expect(() => unfixed.transactions[index].hash()).toThrow('Cannot call hash method if transaction is not signed');
    expect(bytesToHex(blockFromRpc(onlyParity, uncles, opened.chain.common).serialize())).toBe(
      bytesToHex((await opened.chain.store.blockByNumber(BigInt(json.number)))!.serialize()),
    );

    const authV = copy(json);
    const auths = authV.transactions[index].authorizationList!;
    expect(auths.length).toBeGreaterThan(0);
    for (const auth of auths) {
      auth.v = auth.yParity;
      delete auth.yParity;
    }
    expect(bytesToHex(blockFromRpc(authV, uncles, opened.chain.common).hash())).toBe(json.hash);

    const disagree = copy(json);
    disagree.transactions[index].v = disagree.transactions[index].yParity === '0x0' ? '0x1' : '0x0';
    expect(refusal(disagree, uncles, opened.chain).message).toContain('which disagree');
  });

  it('accepts a printed chainId on an unprotected legacy transaction and refuses one that contradicts an EIP-155 v', async () => {
    const early = await rpcBlock(opened.ctx, 1);
    const unprotected = early.json.transactions.findIndex((tx) => tx.v === '0x1b' || tx.v === '0x1c');
    expect(unprotected).toBeGreaterThanOrEqual(0);
    const printed = copy(early.json);
    printed.transactions[unprotected].chainId = hex(opened.chain.common.chainId());
    expect(bytesToHex(blockFromRpc(printed, early.uncles, opened.chain.common).hash())).toBe(early.json.hash);

    const { json, uncles, index } = await blockWith((tx) => tx.type === '0x0' && tx.chainId !== undefined);
    expect(json.transactions[index].chainId).toBe(hex(opened.chain.common.chainId()));
    const wrong = copy(json);
    wrong.transactions[index].chainId = '0x1';
    expect(refusal(wrong, uncles, opened.chain).message).toContain(`transaction ${index} (legacy) has chainId 0x1 but v`);
  });

  it('takes a decimal difficulty exactly, and leaves the caller’s Common alone', async () => {
    const { json, uncles } = await rpcBlock(opened.ctx, 10);
    const decimal = copy(json);
    decimal.difficulty = BigInt(json.difficulty as string).toString(10);
    const hardfork = opened.chain.common.hardfork();
    expect(bytesToHex(blockFromRpc(decimal, uncles, opened.chain.common).hash())).toBe(json.hash);
    expect(opened.chain.common.hardfork()).toBe(hardfork);
  });

  it('refuses garbage with a BlockFromRpcError, never a TypeError', async () => {
    const { json } = await rpcBlock(opened.ctx, 2);
    const hashesOnly = (await call(opened.ctx, 'eth_getBlockByNumber', ['0x2', false])) as Json;
    const noTxs = copy(json) as Json;
    delete noTxs.transactions;
    const noHash = copy(json) as Json;
    delete noHash.hash;
    const noNumber = copy(json) as Json;
    delete noNumber.number;
    const txNull = copy(json) as Json;
    (txNull.transactions as unknown[])[0] = null;
    const txNoR = copy(json);
    delete (txNoR.transactions[0] as Json).r;
    const zeroR = copy(json);
    zeroR.transactions[0].r = '0x0';
    const badType = copy(json);
    badType.transactions[0].type = '0x99';
    const cases: Array<[unknown, unknown[], string]> = [
      [null, [], 'block JSON must be an object, got null'],
      ['0x1234', [], 'block JSON must be an object, got the string "0x1234"'],
      [42, [], 'block JSON must be an object, got a number'],
      [[], [], 'block JSON must be an object, got an array'],
      [{}, [], 'block JSON has no number (a hex quantity), got nothing'],
      [noNumber, [], 'block JSON has no number'],
      [noHash, [], 'block 2: JSON has no hash (32 bytes of hex), got nothing'],
      [noTxs, [], `block 2 (${json.hash}): JSON has no transactions array, got nothing`],
      [hashesOnly, [], 'transaction 0 must be an object, got the string'],
      [txNull, [], 'transaction 0 must be an object, got null'],
      [txNoR, [], 'transaction 0 has no signature r, got nothing'],
      [zeroR, [], 'cannot be checked: Cannot call hash method if transaction is not signed'],
      [badType, [], 'cannot be rebuilt: Tx instantiation with type 0x99 not supported'],
      [json, [null], 'the block names 0 uncle(s) but 1 uncle header(s) were given'],
      [json, 'nope' as unknown as unknown[], 'uncle headers must be an array'],
    ];
    for (const [input, uncles, message] of cases) {
      expect(refusal(input, uncles, opened.chain).message, message).toContain(message);
    }
  });
});

describe('blockFromRpc: the demo chain (PoW with uncles → PoS), every block', () => {
  const dir = join(FIXTURES, 'demo');
  let opened: Opened;
  beforeAll(async () => {
    opened = await open(dir);
  }, 120_000);
  afterAll(async () => opened?.close());

  it('rebuilds all 65 blocks to chain.rlp byte for byte', async () => {
    const seen = await rebuildAll(dir, opened);
    expect(seen.blocks).toBe(65);
    // fixtures/demo/README.md: 7 uncles in blocks 1-19.
    expect(seen.uncles).toBe(7);
    expect(Object.fromEntries(seen.txTypes)).toEqual(Object.fromEntries(rawCounts(dir).txTypes));
  }, 120_000);
});

describe('blockFromRpc: the uncle chains (ethereum/tests bcUncleTest, Frontier → London), every block', () => {
  it('lists the 11 chains', () => {
    expect(UNCLE_CHAINS.length).toBe(11);
  });
  for (const name of UNCLE_CHAINS) {
    it(`${name}: every block and uncle rebuilds byte for byte`, async () => {
      const dir = join(FIXTURES, 'uncle-chains', name);
      const opened = await open(dir);
      try {
        const seen = await rebuildAll(dir, opened);
        const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { blocks: Array<{ uncles: unknown[] }> };
        expect(seen.blocks).toBe(expected.blocks.length + 1);
        expect(seen.uncles).toBe(expected.blocks.reduce((sum, b) => sum + b.uncles.length, 0));
        expect(seen.uncles).toBeGreaterThan(0);
      } finally {
        await opened.close();
      }
    }, 60_000);
  }
});

describe('orderedTrieRoot', () => {
  it("equals @ethereumjs/block's async trie root for 0 to 300 entries, values of 1-3 bytes (inline nodes) and of up to 40", async () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (const count of [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 255, 256, 300]) {
      for (const maxLength of [3, 40]) {
        const values = Array.from({ length: count }, () => Uint8Array.from({ length: 1 + (next() % maxLength) }, () => next() % 256));
        const txLike = values.map((value) => ({ serialize: () => value }));
        const expected = await genTransactionsTrieRoot(txLike as never);
        expect(bytesToHex(orderedTrieRoot(values)), `${count} values up to ${maxLength} bytes`).toBe(bytesToHex(expected));
      }
    }
  });

  it('is the transactionsRoot of a real block (59 transactions)', () => {
    const [header, txs] = RLP.decode(chainRlpBlocks(join(FIXTURES, 'execution-apis'))[1]) as unknown as [Uint8Array[], Array<Uint8Array | Uint8Array[]>];
    const serialized = txs.map((tx) => (tx instanceof Uint8Array ? tx : RLP.encode(tx)));
    expect(serialized.length).toBe(59);
    expect(bytesToHex(orderedTrieRoot(serialized))).toBe(bytesToHex(header[4]));
  });
});

const ANVIL_KEYS = {
  // anvil's first two dev accounts (the well-known "test test … junk" mnemonic).
  sender: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  authority: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const;
const ANVIL_CHAIN_ID = 31337;

describeWithFoundry(['anvil'], 'blockFromRpc against anvil')('blockFromRpc: blocks mined by anvil (Prague)', () => {
  let anvil: AnvilProcess;
  beforeAll(async () => {
    anvil = await startAnvil(['--hardfork', 'prague', '--chain-id', String(ANVIL_CHAIN_ID)]);
  }, 60_000);
  afterAll(async () => anvil?.stop());

  it('rebuilds every block to anvil’s hash: legacy (EIP-155 and unprotected), 2930, 1559 and 7702 transactions', async () => {
    const sender = privateKeyToAccount(ANVIL_KEYS.sender);
    const authority = privateKeyToAccount(ANVIL_KEYS.authority);
    const to = authority.address;
    const base = { to, value: 1n, gas: 100_000n };
    const authorization = await signAuthorization({ privateKey: ANVIL_KEYS.authority, chainId: ANVIL_CHAIN_ID, address: sender.address, nonce: 0 });
    const signed = [
      await sender.signTransaction({ ...base, type: 'legacy', nonce: 0, gasPrice: 10_000_000_000n, chainId: ANVIL_CHAIN_ID }),
      await sender.signTransaction({ ...base, type: 'legacy', nonce: 1, gasPrice: 10_000_000_000n }),
      await sender.signTransaction({
        ...base,
        type: 'eip2930',
        nonce: 2,
        gasPrice: 10_000_000_000n,
        chainId: ANVIL_CHAIN_ID,
        accessList: [{ address: to, storageKeys: [`0x${'00'.repeat(31)}01`] }],
      }),
      await sender.signTransaction({ ...base, type: 'eip1559', nonce: 3, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, chainId: ANVIL_CHAIN_ID }),
      await sender.signTransaction({
        ...base,
        type: 'eip7702',
        nonce: 4,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 2n,
        chainId: ANVIL_CHAIN_ID,
        authorizationList: [authorization],
      }),
    ];
    // One block per transaction (anvil automines), then one with the last three together.
    for (const raw of signed) await rawResult(anvil.url, 'eth_sendRawTransaction', [raw]);
    await rawResult(anvil.url, 'evm_setAutomine', [false]);
    const together = [
      await sender.signTransaction({ ...base, type: 'eip2930', nonce: 5, gasPrice: 10_000_000_000n, chainId: ANVIL_CHAIN_ID }),
      await sender.signTransaction({ ...base, type: 'eip1559', nonce: 6, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1n, chainId: ANVIL_CHAIN_ID }),
      await sender.signTransaction({ ...base, type: 'legacy', nonce: 7, gasPrice: 10_000_000_000n, chainId: ANVIL_CHAIN_ID }),
    ];
    for (const raw of together) await rawResult(anvil.url, 'eth_sendRawTransaction', [raw]);
    await rawResult(anvil.url, 'evm_mine', []);

    const common = await createChainCommon({
      config: {
        chainId: ANVIL_CHAIN_ID,
        ...Object.fromEntries(
          ['homestead', 'eip150', 'eip155', 'eip158', 'byzantium', 'constantinople', 'petersburg', 'istanbul', 'berlin', 'london'].map((f) => [`${f}Block`, 0]),
        ),
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        blobSchedule: {
          cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
          prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
        },
      },
      alloc: {},
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
      nonce: '0x0',
      extraData: '0x',
      timestamp: '0x0',
    });
    const head = Number(await rawResult(anvil.url, 'eth_blockNumber', []));
    expect(head).toBe(6);
    const types: string[] = [];
    for (let n = 0; n <= head; n++) {
      const json = (await rawResult(anvil.url, 'eth_getBlockByNumber', [hex(n), true])) as RpcBlock;
      const block = blockFromRpc(json, [], common);
      expect(bytesToHex(block.hash()), `block ${n}`).toBe(json.hash);
      expect(block.transactions.map((tx) => bytesToHex(tx.hash()))).toEqual(json.transactions.map((tx) => tx.hash));
      types.push(...json.transactions.map((tx) => tx.type));
    }
    expect(types).toEqual(['0x0', '0x0', '0x1', '0x2', '0x4', '0x1', '0x2', '0x0']);
    // The 7702 transaction's authorization took effect: the authority's code is the delegation designator.
    expect(await rawResult(anvil.url, 'eth_getCode', [authority.address, 'latest'])).toBe(`0xef0100${sender.address.slice(2).toLowerCase()}`);
  }, 60_000);
});
