import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Network, openNetwork } from '../../src/cli/networks.js';
import { rawCall } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { eventsOf, type FixtureBlock, type FixtureEvent, fixtureBlocks } from '../helpers/starknetFixtures.js';
import { classDefinition, felt, type StateUpdateJson } from '../helpers/starknetState.js';
import { linkedChain, StarknetUpstream } from '../helpers/starknetUpstream.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * Following from `--from latest`: a stand-in upstream serves the real mainnet fixture blocks as
 * one linked chain (block i of the file is block number i) with a state update per block
 * (`helpers/starknetState.ts`). `tracenode follow --from latest` makes the empty datadir start at
 * the upstream's head, block 3; a served network then follows it to block 6, and the upstream
 * replaces block 6 once (a reorganisation). Every read method is checked against what the
 * upstream serves, before and after: blocks, transactions, receipts, statuses, events, state
 * updates, and state at each block (`getStorageAt`, `getNonce`, `getClassHashAt`, `getClass`,
 * `getClassAt`), whose values older than block 3 the node asks the upstream for once.
 */

const tmp = tempDir('tracenode-starknet-from-');
const chain = linkedChain(fixtureBlocks('mainnet'));
type Entry = { transaction: Record<string, unknown>; receipt: Record<string, unknown> & { transaction_hash: string } };
const entries = (b: FixtureBlock) => b.transactions as unknown as Entry[];
/** Block 6 replaced: its first 100 transactions but the DEPLOY_ACCOUNTs (their contracts are then never deployed), another hash. */
const replaced: FixtureBlock = {
  ...chain[6],
  block_hash: '0x7e57ab1e5eed06',
  transactions: chain[6].transactions.filter((t) => (t as unknown as Entry).transaction.type !== 'DEPLOY_ACCOUNT').slice(0, 100),
};
/** The dropped DEPLOY_ACCOUNTs whose receipt names the contract (the v3 one of block 619596 does not: the state updates deploy nothing for it). */
const dropped = entries(chain[6]).filter((t) => t.transaction.type === 'DEPLOY_ACCOUNT' && typeof t.receipt.contract_address === 'string');

let upstream: StarknetUpstream;
let network: Network;
let server: StartedServer;
const dir = join(tmp.dir, 'sn');

async function rpc(method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  return rawCall(`${server.url}/v3/${server.key}`, method, params) as Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
}
async function result<T = unknown>(method: string, params: unknown): Promise<T> {
  const r = await rpc(method, params);
  if (r.error) throw new Error(`${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
  return r.result as T;
}
type Page = { events: FixtureEvent[]; continuation_token?: string };

/** Every event from the first stored block on, through pages of 500. */
async function allEvents(filter: Record<string, unknown> = {}): Promise<FixtureEvent[]> {
  const out: FixtureEvent[] = [];
  let token: string | undefined;
  do {
    const page = await result<Page>('starknet_getEvents', { filter: { ...filter, chunk_size: 500, ...(token ? { continuation_token: token } : {}) } });
    out.push(...page.events);
    token = page.continuation_token;
  } while (token !== undefined);
  return out;
}

/** Storage slots, nonces and classes worth reading: a sample of what the chain's updates write, and addresses it never touches. */
function stateSample(updates: readonly StateUpdateJson[]) {
  const slots = updates
    .flatMap((u) => u.state_diff.storage_diffs.flatMap((s) => s.storage_entries.slice(0, 3).map((e) => [s.address, e.key] as const)))
    .filter((_, i) => i % 9 === 0);
  const addresses = [
    ...new Set([
      ...updates.flatMap((u) => u.state_diff.nonces.map((n) => n.contract_address)).filter((_, i) => i % 11 === 0),
      ...updates.flatMap((u) => u.state_diff.deployed_contracts.map((d) => d.address)).filter((_, i) => i % 13 === 0),
      ...dropped.map((t) => felt(t.receipt.contract_address as string)),
      '0x1234',
    ]),
  ];
  // A slot of a contract never written anywhere, and one of an address without a contract.
  return { slots: [...slots, [addresses[0], '0x77'] as const, ['0x1234', '0x1'] as const], addresses };
}

/** What the upstream answers for a state read, as `{result}` or the code of its error. */
function expectedState(read: () => string | undefined): { result: string } | { code: number } {
  const v = read();
  return v === undefined ? { code: 20 } : { result: v };
}
const got = (r: { result?: unknown; error?: { code: number } }) => (r.error ? { code: r.error.code } : { result: r.result });

/** Every read method at blocks 3..6 equals what the upstream serves (blocks below 3 are not stored). */
async function checkAgainstUpstream(blocks: readonly FixtureBlock[]): Promise<void> {
  const updates = upstream.stateUpdates;
  expect(await result('starknet_blockHashAndNumber', [])).toEqual({ block_hash: blocks[6].block_hash, block_number: 6 });
  for (let n = 0; n < 3; n++) expect((await rpc('starknet_getBlockWithTxHashes', [{ block_number: n }])).error, `block ${n}`).toMatchObject({ code: 24 });
  for (let n = 3; n <= 6; n++) {
    const b = blocks[n];
    const id = { block_number: n };
    const withDefaults = { l2_gas_price: { price_in_fri: '0x1', price_in_wei: '0x1' }, ...b };
    expect(await result('starknet_getBlockWithReceipts', [id]), `block ${n}`).toEqual(withDefaults);
    expect((await result<{ transactions: string[] }>('starknet_getBlockWithTxHashes', [{ block_hash: b.block_hash }])).transactions).toEqual(
      entries(b).map((t) => t.receipt.transaction_hash),
    );
    expect(await result('starknet_getStateUpdate', [id]), `state update ${n}`).toEqual(updates[n]);
    for (const [i, t] of entries(b).entries()) {
      if (i % 10 !== 0 && n !== 6) continue;
      const hash = t.receipt.transaction_hash;
      expect(await result('starknet_getTransactionByHash', [hash])).toEqual(t.transaction);
      expect(await result('starknet_getTransactionReceipt', [hash])).toEqual({ ...t.receipt, block_hash: b.block_hash, block_number: n });
      expect((await result<{ finality_status: string }>('starknet_getTransactionStatus', [hash])).finality_status).toBe('ACCEPTED_ON_L1');
    }
  }
  expect(await allEvents()).toEqual(eventsOf(blocks.slice(3)));
  const { slots, addresses } = stateSample(updates);
  for (let n = 3; n <= 6; n++) {
    const theirs = upstream.stateAt({ block_number: n })!;
    const id = { block_number: n };
    for (const [address, key] of slots) {
      expect(got(await rpc('starknet_getStorageAt', [address, key, id])), `storage ${address}/${key} at ${n}`).toEqual(
        expectedState(() => theirs.storageAt(address, key)),
      );
    }
    for (const address of addresses) {
      expect(got(await rpc('starknet_getNonce', [id, address])), `nonce ${address} at ${n}`).toEqual(expectedState(() => theirs.nonceAt(address)));
      const classHash = theirs.classHashAt(address);
      expect(got(await rpc('starknet_getClassHashAt', { block_id: id, contract_address: address })), `class ${address} at ${n}`).toEqual(
        expectedState(() => classHash),
      );
      if (classHash !== undefined) {
        expect(await result('starknet_getClass', [id, classHash])).toEqual(classDefinition(classHash));
        expect(await result('starknet_getClassAt', [id, address])).toEqual(classDefinition(classHash));
      }
    }
  }
}

beforeAll(async () => {
  upstream = await StarknetUpstream.start();
  // The whole chain first: its base state (what precedes block 0) covers every block's addresses.
  upstream.setChain(chain);
  upstream.setChain(chain.slice(0, 4));
}, 30_000);
afterAll(async () => {
  await server?.close();
  await network?.close();
  await upstream?.stop();
  tmp.cleanup();
});

describe('Starknet following from --from latest', () => {
  it('tracenode follow --from latest: the empty datadir starts at the upstream’s head', async () => {
    const r = await runCli(['follow', '--datadir', dir, '--follow', upstream.httpUrl, '--from', 'latest']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `follow: Starknet datadir following from block 3 (${chain[3].block_hash}) of the node at ${upstream.httpUrl}, written to ${dir}\n` +
        'follow: head is block 3 (upstream head 3)\n',
    );
    // Nothing below block 3 was asked for.
    expect(
      upstream.requests.filter((q) => q.method === 'starknet_getBlockWithReceipts').map((q) => (q.params as [{ block_number: number }])[0].block_number),
    ).toEqual([3]);
    // The same command again keeps it; another start block is refused.
    expect((await runCli(['follow', '--datadir', dir, '--follow', upstream.httpUrl, '--from', 'latest'])).code).toBe(0);
    const other = await runCli(['follow', '--datadir', dir, '--follow', upstream.httpUrl, '--from', '1']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${dir} follows from block 3, not from block 1`);
  });

  it('served and following to block 6: every method answers what the upstream serves; older state is asked of it once', async () => {
    network = await openNetwork('starknet', dir, 'test', testConfig({ follow: { pollIntervalMs: 50 } }), undefined, upstream.httpUrl);
    server = await startServer({ networks: [network.handle], apiKeys: [TEST_API_KEY], logger: false });
    upstream.setChain(chain);
    await until(
      'block 6',
      async () => (await rpc('starknet_blockNumber', [])).result,
      (n) => n === 6,
      15_000,
    );
    await checkAgainstUpstream(chain);
    const sample = stateSample(upstream.stateUpdates);
    expect(Math.min(sample.slots.length, sample.addresses.length)).toBeGreaterThan(10);
    // What no stored block wrote was asked of the upstream, at block 2 by its hash, once per item.
    for (const method of ['starknet_getStorageAt', 'starknet_getNonce', 'starknet_getClassHashAt', 'starknet_getClass']) {
      const asked = upstream.requests.filter((q) => q.method === method);
      expect(asked.length, method).toBeGreaterThan(0);
      expect(new Set(asked.map((q) => JSON.stringify(q.params))).size, method).toBe(asked.length);
      expect(
        asked.every((q) => JSON.stringify(q.params).includes(chain[2].block_hash)),
        method,
      ).toBe(true);
    }
    expect(await result('starknet_syncing', [])).toBe(false);
    // A value older than block 3, asked once at block 2 (by its hash) and then kept.
    const [address] = stateSample(upstream.stateUpdates).addresses;
    const asked = () => upstream.requests.filter((q) => q.method === 'starknet_getStorageAt');
    const before = asked().length;
    expect(await result('starknet_getStorageAt', [address, '0x99', 'latest'])).toBe(upstream.stateAt('latest')!.storageAt(address, '0x99'));
    expect(await result('starknet_getStorageAt', [address, '0x99', { block_number: 4 }])).toBe(upstream.stateAt('latest')!.storageAt(address, '0x99'));
    expect(
      asked()
        .slice(before)
        .map((q) => q.params),
    ).toEqual([[address, '0x99', { block_hash: chain[2].block_hash }]]);
    // starknet_getEvents' ranges start at block 3.
    expect((await rpc('starknet_getEvents', { filter: { from_block: { block_number: 0 }, chunk_size: 1 } })).error).toMatchObject({ code: 24 });
  });

  it('forwarded: starknet_call and its error, unchanged; a sent transaction is RECEIVED until its block is here', async () => {
    const request = { contract_address: chain[6].transactions[0].receipt.events[0].from_address, entry_point_selector: '0x2', calldata: ['0x1', '0x2', '0x3'] };
    expect(await result('starknet_call', { request, block_id: 'latest' })).toEqual(['0x3', felt(request.contract_address)]);
    expect((await rpc('starknet_call', [{ ...request, contract_address: '0x1234' }, 'latest'])).error).toEqual({ code: 20, message: 'Contract not found' });
    const sent = await result<{ transaction_hash: string }>('starknet_addInvokeTransaction', {
      invoke_transaction: { type: 'INVOKE', sender_address: '0x1', calldata: [] },
    });
    expect(upstream.received).toEqual([{ type: 'INVOKE', sender_address: '0x1', calldata: [] }]);
    expect(await result('starknet_getTransactionStatus', [sent.transaction_hash])).toEqual({ finality_status: 'RECEIVED' });
    expect((await rpc('starknet_getTransactionStatus', ['0x1234'])).error).toEqual({ code: 29, message: 'Transaction hash not found' });
  });

  it('block 6 replaced: every method answers the new branch; the dropped block’s transactions and contracts are gone', async () => {
    const finalChain = [...chain.slice(0, 6), replaced];
    upstream.setChain(finalChain);
    await until(
      'switched',
      async () => ((await rpc('starknet_blockHashAndNumber', [])).result as { block_hash?: string } | undefined)?.block_hash,
      (h) => h === replaced.block_hash,
      15_000,
    );
    await checkAgainstUpstream(finalChain);
    expect((await rpc('starknet_getBlockWithTxHashes', [{ block_hash: chain[6].block_hash }])).error).toMatchObject({ code: 24 });
    const gone = entries(chain[6]).filter((t) => !entries(replaced).some((r) => r.receipt.transaction_hash === t.receipt.transaction_hash));
    expect(gone.length).toBe(128);
    for (const t of gone.slice(0, 5)) {
      expect((await rpc('starknet_getTransactionByHash', [t.receipt.transaction_hash])).error).toMatchObject({ code: 29 });
      expect((await rpc('starknet_getTransactionReceipt', [t.receipt.transaction_hash])).error).toMatchObject({ code: 29 });
    }
    for (const t of dropped) {
      const address = t.receipt.contract_address as string;
      expect((await rpc('starknet_getClassHashAt', ['latest', address])).error).toEqual({ code: 20, message: 'Contract not found' });
      expect((await rpc('starknet_getNonce', ['latest', address])).error).toEqual({ code: 20, message: 'Contract not found' });
    }
    expect(await allEvents({ from_block: 'latest' })).toEqual(eventsOf([replaced]));
  });
});
