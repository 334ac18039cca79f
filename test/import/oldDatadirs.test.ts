import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { createEthereumNetwork, type EthereumNetwork } from '../../src/cli/networks.js';
import { openDatabase } from '../../src/db/database.js';
import { META, SCHEMA_VERSION, SCHEMA_VERSION_BASE } from '../../src/db/keys.js';
import { versionBytes } from '../../src/db/schema.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { rawHttp, type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Upgrades: datadirs written by earlier commits (fixtures/old-datadirs: the two layouts database
 * schema 1 has had on disk) open as they are — no migration line, the stored version unchanged —
 * and every answer equals that of a datadir today's import writes from the same chain (blocks,
 * receipts, balances and proofs at every block, Parity traces and trace_filter, which replays
 * the blocks the older layout never indexed). A datadir of a newer schema (a downgrade) and one of
 * a schema no release wrote are refused by `serve` with both versions named.
 */

const CHAIN = join(FIXTURES, 'uncle-chains/twoUncle_Berlin');
const tmp = tempDir('tracenode-old-datadirs-');
afterAll(() => tmp.cleanup());

/** Rebuilds a datadir from a fixture dump (`[keyHex, valueHex]` a line). */
async function restore(name: string, dir: string, change?: (key: string, value: string) => string): Promise<void> {
  const level = await openDatabase(dir);
  const lines = readFileSync(join(FIXTURES, 'old-datadirs', `${name}.ndjson`), 'utf8')
    .trim()
    .split('\n');
  await level.batch(
    lines.map((line) => {
      const [key, value] = JSON.parse(line) as [string, string];
      return { type: 'put' as const, key: Buffer.from(key, 'hex'), value: Buffer.from(change?.(key, value) ?? value, 'hex') };
    }),
  );
  await level.close();
}

interface Served {
  chain: EthereumChain;
  network: EthereumNetwork;
  server: StartedServer;
  progress: string[];
}

async function serveDatadir(dir: string): Promise<Served> {
  const progress: string[] = [];
  const chain = await openChain(dir, testConfig().caches, (line) => progress.push(line));
  const network = await createEthereumNetwork(chain, {
    name: 'mainnet',
    clientVersion: 'tracenode/test',
    config: testConfig({ execution: { evmWorkers: 1 } }),
  });
  const server = await startServer({ networks: [network.handle], apiKeys: [TEST_API_KEY], logger: false });
  return { chain, network, server, progress };
}

async function stop(s: Served | undefined): Promise<void> {
  if (s === undefined) return;
  await s.server.close();
  await s.network.close();
  await s.chain.close();
}

async function call(s: Served, method: string, params: unknown[]): Promise<string> {
  const r = await rawHttp(`${s.server.url}/v3/${TEST_API_KEY}`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return r.text;
}

/** Every request of the comparison: each block, its transactions and uncles, each address at each block. */
async function requests(s: Served): Promise<Array<[string, unknown[]]>> {
  const out: Array<[string, unknown[]]> = [['eth_blockNumber', []]];
  const addresses = new Set<string>();
  for (let n = 0; n <= 3; n++) {
    const tag = `0x${n.toString(16)}`;
    const block = JSON.parse(await call(s, 'eth_getBlockByNumber', [tag, true])).result as {
      miner: string;
      uncles: string[];
      transactions: Array<{ hash: string; from: string; to: string }>;
    };
    addresses.add(block.miner);
    out.push(['eth_getBlockByNumber', [tag, true]], ['eth_getBlockReceipts', [tag]], ['trace_block', [tag]]);
    for (const tx of block.transactions) {
      addresses.add(tx.from).add(tx.to);
      out.push(['eth_getTransactionByHash', [tx.hash]], ['eth_getTransactionReceipt', [tx.hash]], ['trace_transaction', [tx.hash]]);
    }
    for (let u = 0; u < block.uncles.length; u++) {
      const uncle = JSON.parse(await call(s, 'eth_getUncleByBlockNumberAndIndex', [tag, `0x${u}`])).result as { miner: string };
      addresses.add(uncle.miner);
      out.push(['eth_getUncleByBlockNumberAndIndex', [tag, `0x${u}`]]);
    }
  }
  for (const a of addresses) {
    out.push(
      ['trace_filter', [{ fromBlock: '0x0', toBlock: '0x3', toAddress: [a] }]],
      ['trace_filter', [{ fromBlock: '0x0', toBlock: '0x3', fromAddress: [a] }]],
    );
    for (let n = 0; n <= 3; n++) {
      const tag = `0x${n.toString(16)}`;
      out.push(['eth_getBalance', [a, tag]], ['eth_getTransactionCount', [a, tag]], ['eth_getProof', [a, [], tag]]);
    }
  }
  out.push(['eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3' }]]);
  return out;
}

describe('datadirs of earlier releases open as they are and answer as before', () => {
  let today: Served;
  let asked: Array<[string, unknown[]]>;
  const expected: string[] = [];
  beforeAll(async () => {
    await (await importFixtureChain(CHAIN, join(tmp.dir, 'today'))).close();
    today = await serveDatadir(join(tmp.dir, 'today'));
    asked = await requests(today);
    for (const [method, params] of asked) expected.push(await call(today, method, params));
    expect(expected.filter((t) => t.includes('"error"'))).toEqual([]);
    // The traces trace_filter finds (transfers, block and uncle rewards): the 2018987 datadir has
    // no address index, so its answers come from replaying every block.
    expect(expected.filter((t, i) => asked[i][0] === 'trace_filter' && t.includes('"result":[{')).length).toBeGreaterThanOrEqual(4);
  });
  afterAll(() => stop(today));

  it.each(['2018987', '2e70d26'])('written by %s', async (commit) => {
    const dir = join(tmp.dir, commit);
    await restore(commit, dir);
    const old = await serveDatadir(dir);
    try {
      expect(old.progress).toEqual([]);
      expect(asked.length).toBeGreaterThan(60);
      for (const [i, [method, params]] of asked.entries()) expect(await call(old, method, params), `${method} ${JSON.stringify(params)}`).toBe(expected[i]);
      // Opened as it is: still schema 1, so the release that wrote it can open it again.
      expect([...((await old.chain.level.get(META.schema)) ?? [])]).toEqual([...versionBytes(SCHEMA_VERSION_BASE)]);
    } finally {
      await stop(old);
    }
  });
});

describe('serve refuses a datadir it cannot read, naming both versions', () => {
  const schemaKey = Buffer.from(META.schema).toString('hex');
  it.each([
    [SCHEMA_VERSION + 1, `has database schema ${SCHEMA_VERSION + 1}, written by a newer tracenode; this one reads schema ${SCHEMA_VERSION}`],
    [0, `has database schema 0, which this tracenode cannot read: it reads schema ${SCHEMA_VERSION} and migrates none older`],
  ])('schema %i', async (version, message) => {
    const dir = join(tmp.dir, `schema-${version}`);
    await restore('2e70d26', dir, (key, value) => (key === schemaKey ? Buffer.from(versionBytes(version)).toString('hex') : value));
    const r = await runCli(['serve', '--datadir', dir, '--port', '0', '--api-keys', 'k', '--log-level', 'warn']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`datadir ${dir} ${message}`);
    // Refused before anything was written: the datadir is as it was.
    const level = await openDatabase(dir);
    expect([...((await level.get(META.schema)) ?? [])]).toEqual([...versionBytes(version)]);
    await level.close();
  });
});
