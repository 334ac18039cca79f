import { join } from 'node:path';
import { type BlockHeader, createBlockHeaderFromRPC } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateReader } from '../../src/state/stateReader.js';
import { executionWitness } from '../../src/tracing/witness.js';
import { FIXTURES, tempDir } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { httpClient, type RpcClient } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { ASKING_BLOCK, buildBlockHashChain } from './blockHashChain.js';
import { runStateless, type Witness } from './statelessRun.js';

/**
 * debug_executionWitness is complete: for blocks of the execution-apis chain, the demo chain and a
 * chain whose block asks BLOCKHASH, the served answer alone (decoded from the wire) executes the
 * block on a fresh database holding nothing else, to the header's state root, receipts root and
 * gas used (`statelessRun.ts`). And it holds nothing the run does not read: without any one of
 * its trie nodes, the same run asks for that node and fails.
 */

interface WireWitness {
  headers: Array<Record<string, string | null>>;
  codes: string[];
  state: string[];
  keys: null;
}

/** The method's answer for `block`, and the witness decoded from it (each header checked by its `hash`). */
async function served(server: Served, block: string | object): Promise<{ wire: WireWitness; witness: Witness }> {
  const answer = await server.client.call('debug_executionWitness', [block]);
  if (answer.error) throw new Error(JSON.stringify(answer.error));
  const wire = answer.result as WireWitness;
  const headers = wire.headers.map((json) => decodeHeader(server, json));
  return {
    wire,
    witness: { nodes: wire.state.map((h) => hexToBytes(h as `0x${string}`)), codes: wire.codes.map((h) => hexToBytes(h as `0x${string}`)), headers },
  };
}

/** A header object of the answer as a header, whose hash must be the one the answer gives. */
function decodeHeader(server: Served, json: Record<string, string | null>): BlockHeader {
  const fields = Object.fromEntries(Object.entries(json).filter(([, v]) => v !== null));
  const header = createBlockHeaderFromRPC(fields as never, { common: server.s.chain.common.copy(), setHardfork: true });
  expect(bytesToHex(header.hash())).toBe(json.hash);
  return header;
}

interface Served {
  s: EthTestServer;
  client: RpcClient;
}

/** Figures of one proven block, for the log. */
const figures: string[] = [];

/**
 * Proves block `n` with its served witness: the stateless run reproduces the header, and each node
 * left out makes it ask for that node and fail. Returns the witness.
 */
async function proves(server: Served, n: bigint, label: string): Promise<Witness> {
  const block = (await server.s.chain.store.blockByNumber(n))!;
  const { witness } = await served(server, `0x${n.toString(16)}`);
  const run = await runStateless(server.s.chain.common, block, witness);
  expect(bytesToHex(run.stateRoot)).toBe(bytesToHex(block.header.stateRoot));
  expect(bytesToHex(run.receiptsRoot)).toBe(bytesToHex(block.header.receiptTrie));
  expect(run.gasUsed).toBe(block.header.gasUsed);

  for (const [i, node] of witness.nodes.entries()) {
    const lacking = { ...witness, nodes: witness.nodes.filter((_, j) => j !== i) };
    await expect(runStateless(server.s.chain.common, block, lacking), `block ${n} without node ${i}`).rejects.toThrow(
      `witness lacks node ${bytesToHex(keccak256(node))}`,
    );
  }
  const bytes = witness.nodes.reduce((sum, b) => sum + b.length, 0);
  const codeBytes = witness.codes.reduce((sum, b) => sum + b.length, 0);
  figures.push(
    `${label} block ${n}: ${witness.nodes.length} nodes (${bytes} bytes), ${witness.codes.length} codes (${codeBytes} bytes), ${witness.headers.length} headers`,
  );
  return witness;
}

function serve(fixtureDir: () => string): Served {
  const server = {} as Served;
  beforeAll(async () => {
    server.s = await startEthServer(fixtureDir());
    server.client = httpClient(server.s.url, server.s.key);
  }, 120_000);
  afterAll(async () => {
    await server.client?.close();
    await server.s?.close();
  });
  return server;
}

afterAll(() => {
  console.log(`debug_executionWitness figures:\n${figures.join('\n')}`);
});

describe('the execution-apis chain', () => {
  const server = serve(() => join(FIXTURES, 'execution-apis'));

  it('block 1 (four creations on the genesis state): one header, the genesis; no code read; the genesis root among the nodes', async () => {
    const { wire, witness } = await served(server, '0x1');
    expect(Object.keys(wire)).toEqual(['headers', 'codes', 'state', 'keys']);
    expect(wire.keys).toBeNull();
    expect(wire.codes).toEqual([]);
    expect(wire.headers).toHaveLength(1);
    const genesis = wire.headers[0];
    // geth's types.Header JSON: its fields in order, the forks' fields null, the hash last.
    expect(Object.keys(genesis)).toEqual([
      'parentHash',
      'sha3Uncles',
      'miner',
      'stateRoot',
      'transactionsRoot',
      'receiptsRoot',
      'logsBloom',
      'difficulty',
      'number',
      'gasLimit',
      'gasUsed',
      'timestamp',
      'extraData',
      'mixHash',
      'nonce',
      'baseFeePerGas',
      'withdrawalsRoot',
      'blobGasUsed',
      'excessBlobGas',
      'parentBeaconBlockRoot',
      'requestsHash',
      'blockAccessListHash',
      'slotNumber',
      'hash',
    ]);
    expect(genesis).toMatchObject({
      number: '0x0',
      hash: '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99',
      stateRoot: '0xdc43f460541a253c0f64b6943ef83fa3bd601699a255622f088d46f7fde359fc',
      gasLimit: '0x5f5e100',
      difficulty: '0x20000',
      baseFeePerGas: null,
      requestsHash: null,
    });
    // Sorted bytewise and distinct; the root node of the genesis state is one of them.
    expect([...wire.state].sort()).toEqual(wire.state);
    expect(new Set(wire.state).size).toBe(wire.state.length);
    const hashes = witness.nodes.map((node) => bytesToHex(keccak256(node)));
    expect(hashes).toContain(genesis.stateRoot);
    // By hash, the same answer.
    const one = (await server.client.call('eth_getBlockByNumber', ['0x1', false])).result as { hash: string };
    const byHash = await served(server, one.hash);
    expect(byHash.wire).toEqual(wire);
  });

  it('executes statelessly from the witness alone, and no node can be left out', async () => {
    await proves(server, 1n, 'execution-apis'); // four creations
    await proves(server, 2n, 'execution-apis'); // 59 transactions
    await proves(server, 39n, 'execution-apis'); // first Shanghai block: a withdrawal
    const prague = await proves(server, 45n, 'execution-apis'); // Prague: EIP-7702 delegation, system calls
    await proves(server, 54n, 'execution-apis'); // the head (BPO2)
    // The system contracts of Prague ran (EIP-4788, -2935, -7002, -7251), and the delegation was read.
    const codes = prague.codes.map(bytesToHex);
    expect(codes.some((c) => c.startsWith('0xef0100'))).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(5);
  });

  it("answers geth's errors for an unknown block and for the genesis (-32000)", async () => {
    const error = async (param: unknown) => (await server.client.call('debug_executionWitness', [param])).error;
    expect(await error('0x1000')).toEqual({ code: -32000, message: 'block {0x1000 <nil> false} not found' });
    const unknown = `0x${'ab'.repeat(32)}`;
    expect(await error(unknown)).toEqual({ code: -32000, message: `block {<nil> ${unknown} false} not found` });
    expect(await error('0x0')).toEqual({ code: -32000, message: 'block {0x0 <nil> false} found, but parent missing' });
    expect(await error('earliest')).toEqual({ code: -32000, message: 'block {earliest <nil> false} found, but parent missing' });
    const genesis = '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99';
    expect(await error({ blockHash: genesis, requireCanonical: true })).toEqual({
      code: -32000,
      message: `block {<nil> ${genesis} true} found, but parent missing`,
    });
    expect((await error('0xzz'))?.code).toBe(-32602);
  });

  it('fails past the timeout, and past the bound on an answer', async () => {
    const block = (await server.s.chain.store.blockByNumber(2n))!;
    const config = testConfig();
    const state = new StateReader(server.s.chain.level, config.caches);
    await expect(executionWitness(server.s.chain, state.db, block, { timeoutMs: -1, maxResultBytes: 1 << 20 })).rejects.toThrow('execution timeout');
    await expect(executionWitness(server.s.chain, state.db, block, { timeoutMs: 5000, maxResultBytes: 1000 })).rejects.toThrow(
      'execution witness exceeds 1000 bytes (tracing.debugMaxResultBytes)',
    );
  });
});

describe('the demo chain', () => {
  const server = serve(() => join(FIXTURES, 'demo'));

  it('executes statelessly from the witness alone, and no node can be left out', async () => {
    await proves(server, 8n, 'demo'); // three contract creations
    await proves(server, 13n, 'demo'); // CREATE and CREATE2 from a contract
    await proves(server, 17n, 'demo'); // SELFDESTRUCT before Cancun: an account with storage deleted
    await proves(server, 23n, 'demo'); // first Shanghai block: two withdrawals
    await proves(server, 27n, 'demo'); // Cancun SELFDESTRUCT; CREATE and SELFDESTRUCT in one transaction
    await proves(server, 29n, 'demo'); // storage slots cleared
    await proves(server, 30n, 'demo'); // transactions and three withdrawals
  });

  it('an empty Cancun block: the EIP-4788 system write alone, its contract the only code', async () => {
    const beaconRoots = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
    const witness = await proves(server, 31n, 'demo');
    const code = (await server.client.call('eth_getCode', [beaconRoots, '0x1e'])).result;
    expect(witness.codes.map(bytesToHex)).toEqual([code]);
    expect(witness.headers.map((h) => h.number)).toEqual([30n]);
  });
});

describe('a chain whose block asks BLOCKHASH', () => {
  const tmp = tempDir();
  beforeAll(async () => buildBlockHashChain(tmp.dir), 60_000);
  const server = serve(() => tmp.dir);
  afterAll(() => tmp.cleanup());

  it('holds every header from the oldest block asked for to the parent, oldest first', async () => {
    const witness = await proves(server, ASKING_BLOCK, 'BLOCKHASH chain');
    expect(witness.headers.map((h) => h.number)).toEqual([1n, 2n, 3n, 4n, 5n]);
    // Without the oldest header, the stateless run cannot answer BLOCKHASH(1).
    const block = (await server.s.chain.store.blockByNumber(ASKING_BLOCK))!;
    await expect(runStateless(server.s.chain.common, block, { ...witness, headers: witness.headers.slice(1) })).rejects.toThrow('the witness has no header 1');
    // A block before the one asking holds its parent only.
    expect((await proves(server, 5n, 'BLOCKHASH chain')).headers.map((h) => h.number)).toEqual([4n]);
  });
});
