import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImportStarknet } from '../../src/cli/importStarknet.js';
import { type Network, openNetwork } from '../../src/cli/networks.js';
import { SETTINGS } from '../../src/config/settings.js';
import { closeStarknetContext, createStarknetContext, type StarknetApi, type StarknetContext, starknetMethods } from '../../src/methods/starknet.js';
import { STARKNET_SCHEMA_KEY, transactionKey } from '../../src/starknet/keys.js';
import { openStarknetStore } from '../../src/starknet/store.js';
import { tempDir } from '../helpers/chains.js';
import { connect, type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { type FixtureBlock, fixtureBlocks, STARKNET_FIXTURES, STARKNET_NETWORKS, type StarknetNetwork } from '../helpers/starknetFixtures.js';
import { felt } from '../helpers/starknetState.js';
import { testConfig } from '../helpers/testConfig.js';
import { methodsOf } from '../helpers/typedClient.js';
import { wireError } from '../helpers/wireError.js';

/**
 * The Starknet read API over the fixture blocks (real mainnet and sepolia-integration blocks, as
 * `starknet_getBlockWithReceipts` results), through the real server: every answer derived from
 * the stored blocks equals the recorded answer it came from, field for field — blocks by number,
 * hash and tag, transactions, receipts, statuses — and the sepolia-integration blocks' real state
 * updates (`sepolia-integration-state-updates.ndjson`) come back as given, with the state reads
 * they allow. Errors are the spec's codes and texts (starknet-specs v0.8.1).
 */

const tmp = tempDir('tracenode-starknet-read-');
let server: StartedServer;
const networks: Network[] = [];
const blocks = {} as Record<StarknetNetwork, FixtureBlock[]>;
const HOST: Record<StarknetNetwork, string> = { mainnet: 'sn-main', 'sepolia-integration': 'sn-sepolia' };

/** One call to a network, as `{result}` or `{error}`. */
async function rpc(network: StarknetNetwork, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const client = await connect('http', server.url, server.key, { host: `${HOST[network]}.localhost` });
  try {
    return (await client.call(method, params)) as { result?: unknown; error?: { code: number; message: string } };
  } finally {
    await client.close();
  }
}

async function result<T = unknown>(network: StarknetNetwork, method: string, params: unknown): Promise<T> {
  const r = await rpc(network, method, params);
  if (r.error) throw new Error(`${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
  return r.result as T;
}

/** BLOCK_HEADER fields an old source lacks, with the values the node gives them (`_shared/blockHeader.ts`). */
const withDefaults = (b: FixtureBlock): FixtureBlock => ({ l2_gas_price: { price_in_fri: '0x1', price_in_wei: '0x1' }, ...b });
const header = (b: FixtureBlock) => {
  const { transactions: _, ...rest } = withDefaults(b);
  return rest;
};
type Entry = { transaction: Record<string, unknown>; receipt: Record<string, unknown> & { transaction_hash: string } };
const entries = (b: FixtureBlock) => b.transactions as unknown as Entry[];

beforeAll(async () => {
  for (const network of STARKNET_NETWORKS) {
    const dir = join(tmp.dir, network);
    const args = ['--datadir', dir, join(STARKNET_FIXTURES, `${network}-blocks.ndjson`)];
    if (network === 'sepolia-integration')
      args.push('--state-updates', join(STARKNET_FIXTURES, 'sepolia-integration-state-updates.ndjson'), '--chain-id', 'SN_INTEGRATION_SEPOLIA');
    else args.push('--chain-id', 'SN_MAIN');
    expect(await runImportStarknet(args)).toBe(0);
    networks.push(await openNetwork(HOST[network], dir, 'test', testConfig()));
    blocks[network] = fixtureBlocks(network);
  }
  server = await startServer({ networks: networks.map((n) => n.handle), apiKeys: [TEST_API_KEY], logger: false });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await Promise.all(networks.map((n) => n.close()));
  tmp.cleanup();
});

describe('Starknet read API over the fixture blocks', () => {
  for (const network of STARKNET_NETWORKS) {
    describe(network, () => {
      it('starknet_getBlockWithReceipts equals the recorded answer, by number, by hash and by the latest and l1_accepted tags', async () => {
        for (const b of blocks[network]) {
          expect(await result(network, 'starknet_getBlockWithReceipts', { block_id: { block_number: b.block_number } })).toEqual(withDefaults(b));
          expect(await result(network, 'starknet_getBlockWithReceipts', [{ block_hash: b.block_hash }])).toEqual(withDefaults(b));
        }
        const last = withDefaults(blocks[network].at(-1)!);
        // Every fixture block is ACCEPTED_ON_L1: `l1_accepted` is the last one too.
        expect(await result(network, 'starknet_getBlockWithReceipts', ['latest'])).toEqual(last);
        expect(await result(network, 'starknet_getBlockWithReceipts', ['l1_accepted'])).toEqual(last);
      });

      it('starknet_getBlockWithTxHashes, starknet_getBlockWithTxs and starknet_getBlockTransactionCount: the same header, the recorded transactions', async () => {
        for (const b of blocks[network]) {
          const id = { block_number: b.block_number };
          expect(await result(network, 'starknet_getBlockWithTxHashes', [id])).toEqual({
            ...header(b),
            transactions: entries(b).map((t) => t.receipt.transaction_hash),
          });
          // TXN_WITH_HASH: the recorded transaction (which carries its hash already).
          expect(await result(network, 'starknet_getBlockWithTxs', [id])).toEqual({ ...header(b), transactions: entries(b).map((t) => t.transaction) });
          expect(await result(network, 'starknet_getBlockTransactionCount', [id])).toBe(b.transactions.length);
        }
      });

      it('pending and pre_confirmed: the empty block after latest, in the 0.8 PENDING_BLOCK shapes', async () => {
        const last = withDefaults(blocks[network].at(-1)!);
        const pending = {
          transactions: [],
          parent_hash: last.block_hash,
          timestamp: last.timestamp,
          sequencer_address: last.sequencer_address,
          l1_gas_price: last.l1_gas_price,
          l2_gas_price: last.l2_gas_price,
          l1_data_gas_price: last.l1_data_gas_price,
          l1_da_mode: last.l1_da_mode,
          starknet_version: last.starknet_version,
        };
        for (const tag of ['pending', 'pre_confirmed']) {
          for (const method of ['starknet_getBlockWithTxHashes', 'starknet_getBlockWithTxs', 'starknet_getBlockWithReceipts']) {
            expect(await result(network, method, [tag]), `${method} ${tag}`).toStrictEqual(pending);
          }
          expect(await result(network, 'starknet_getBlockTransactionCount', [tag])).toBe(0);
          expect((await rpc(network, 'starknet_getTransactionByBlockIdAndIndex', [tag, 0])).error).toEqual({
            code: 27,
            message: 'Invalid transaction index in a block',
          });
        }
      });

      it('every transaction by hash and by block and index, every receipt and status, as recorded', async () => {
        for (const b of blocks[network]) {
          for (const [index, t] of entries(b).entries()) {
            const hash = t.receipt.transaction_hash;
            expect(await result(network, 'starknet_getTransactionByHash', { transaction_hash: hash })).toEqual(t.transaction);
            expect(await result(network, 'starknet_getTransactionByBlockIdAndIndex', { block_id: { block_hash: b.block_hash }, index })).toEqual(t.transaction);
            expect(await result(network, 'starknet_getTransactionReceipt', [hash])).toEqual({
              ...t.receipt,
              block_hash: b.block_hash,
              block_number: b.block_number,
            });
            const status = { finality_status: 'ACCEPTED_ON_L1', execution_status: t.receipt.execution_status };
            expect(await result(network, 'starknet_getTransactionStatus', [hash])).toEqual(
              t.receipt.execution_status === 'REVERTED' ? { ...status, failure_reason: t.receipt.revert_reason } : status,
            );
          }
          expect((await rpc(network, 'starknet_getTransactionByBlockIdAndIndex', [{ block_number: b.block_number }, b.transactions.length])).error).toEqual({
            code: 27,
            message: 'Invalid transaction index in a block',
          });
        }
      });

      it('chain id, spec version, syncing, head', async () => {
        const last = blocks[network].at(-1)!;
        expect(await result(network, 'starknet_chainId', [])).toBe(
          network === 'mainnet' ? '0x534e5f4d41494e' : '0x534e5f494e544547524154494f4e5f5345504f4c4941',
        );
        expect(await result(network, 'starknet_specVersion', [])).toBe('0.8.1');
        expect(await result(network, 'starknet_syncing', [])).toBe(false);
        expect(await result(network, 'starknet_blockHashAndNumber', [])).toEqual({ block_hash: last.block_hash, block_number: last.block_number });
      });
    });
  }

  it('the reverted transactions of mainnet block 619596 carry their revert reason as failure_reason', async () => {
    const reverted = entries(blocks.mainnet.at(-1)!).filter((t) => t.receipt.execution_status === 'REVERTED');
    expect(reverted).toHaveLength(6);
    const status = await result<{ failure_reason: string }>('mainnet', 'starknet_getTransactionStatus', [reverted[0].receipt.transaction_hash]);
    expect(status.failure_reason).toBe(reverted[0].receipt.revert_reason);
    expect(status.failure_reason.length).toBeGreaterThan(0);
  });

  it('errors: the spec’s codes and texts', async () => {
    const missing = { code: 24, message: 'Block not found' };
    expect((await rpc('mainnet', 'starknet_getBlockWithTxHashes', [{ block_number: 1000 }])).error).toEqual(missing);
    expect((await rpc('mainnet', 'starknet_getBlockWithReceipts', [{ block_hash: '0x1234' }])).error).toEqual(missing);
    expect((await rpc('mainnet', 'starknet_getBlockTransactionCount', [{ block_number: 1 }])).error).toEqual(missing);
    expect((await rpc('mainnet', 'starknet_getTransactionByBlockIdAndIndex', [{ block_number: 1 }, 0])).error).toEqual(missing);
    expect((await rpc('mainnet', 'starknet_getStateUpdate', [{ block_number: 1 }])).error).toEqual(missing);
    const txMissing = { code: 29, message: 'Transaction hash not found' };
    for (const method of ['starknet_getTransactionByHash', 'starknet_getTransactionReceipt', 'starknet_getTransactionStatus']) {
      expect((await rpc('mainnet', method, ['0x1234'])).error, method).toEqual(txMissing);
    }
    expect((await rpc('mainnet', 'starknet_getTransactionByBlockIdAndIndex', ['latest', -1])).error).toMatchObject({ code: -32602 });
    expect((await rpc('mainnet', 'starknet_getBlockWithTxs', ['safe'])).error).toMatchObject({ code: -32602 });
  });

  it('forwarded methods, with no upstream followed: -32601 saying why', async () => {
    expect((await rpc('mainnet', 'starknet_call', [{ contract_address: '0x1', entry_point_selector: '0x2', calldata: [] }, 'latest'])).error).toEqual({
      code: -32601,
      message:
        'starknet_call is not served by this node: it needs Starknet execution (no Cairo VM here), and this network follows no upstream to forward it to',
    });
    for (const method of [
      'starknet_estimateFee',
      'starknet_estimateMessageFee',
      'starknet_simulateTransactions',
      'starknet_traceTransaction',
      'starknet_traceBlockTransactions',
      'starknet_addInvokeTransaction',
      'starknet_addDeclareTransaction',
      'starknet_addDeployAccountTransaction',
      'starknet_getMessagesStatus',
      'starknet_getStorageProof',
      'starknet_getCompiledCasm',
    ]) {
      const error = (await rpc('mainnet', method, [])).error;
      expect(error?.code, method).toBe(-32601);
      expect(error?.message, method).toMatch(new RegExp(`^${method} is not served by this node: .+, and this network follows no upstream to forward it to$`));
    }
  });

  describe('state updates (sepolia-integration: the real updates of its three blocks)', () => {
    const updates = readFileSync(join(STARKNET_FIXTURES, 'sepolia-integration-state-updates.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));

    it('starknet_getStateUpdate answers each block’s update as given; pending is the empty update on latest', async () => {
      for (const [i, b] of blocks['sepolia-integration'].entries()) {
        expect(await result('sepolia-integration', 'starknet_getStateUpdate', [{ block_number: b.block_number }])).toEqual(updates[i]);
      }
      expect(await result('sepolia-integration', 'starknet_getStateUpdate', ['pre_confirmed'])).toStrictEqual({
        old_root: updates[2].new_root,
        state_diff: { storage_diffs: [], deprecated_declared_classes: [], declared_classes: [], deployed_contracts: [], replaced_classes: [], nonces: [] },
      });
      // Mainnet was imported without a state-update file.
      expect((await rpc('mainnet', 'starknet_getStateUpdate', [{ block_number: 2800 }])).error).toEqual({
        code: -32000,
        message: 'the state update of block 2800 is not held: it was imported without one (import-starknet --state-updates)',
      });
    });

    it('state reads: what block 9703 wrote is read there; older values and later blocks are not held without an upstream', async () => {
      const diff = updates[0].state_diff;
      const at9703 = { block_number: 9703 };
      for (const s of diff.storage_diffs) {
        for (const e of s.storage_entries) expect(await result('sepolia-integration', 'starknet_getStorageAt', [s.address, e.key, at9703])).toBe(e.value);
      }
      const n = diff.nonces[0];
      expect(await result('sepolia-integration', 'starknet_getNonce', { block_id: at9703, contract_address: n.contract_address })).toBe(n.nonce);
      // A slot 9703 did not write is older than the first block with state: only an upstream could say.
      expect((await rpc('sepolia-integration', 'starknet_getStorageAt', [diff.storage_diffs[1].address, '0x7', at9703])).error).toEqual({
        code: -32000,
        message:
          'a value older than its first block with state is not held: state updates are stored from block 9703, and this network follows no upstream to ask for what came before',
      });
      // 35748 is not the block after 9703: the state of the blocks in between is unknown.
      expect((await rpc('sepolia-integration', 'starknet_getNonce', [{ block_number: 35748 }, n.contract_address])).error).toEqual({
        code: -32000,
        message: 'the state of block 35748 is not held: state updates are stored for blocks 9703 to 9703',
      });
      expect((await rpc('mainnet', 'starknet_getClassHashAt', ['latest', '0x1'])).error).toEqual({
        code: -32000,
        message: 'the state of block 619596 is not held: no state update is stored (import them with --state-updates, or follow an upstream)',
      });
    });
  });
});

describe('a datadir of Starknet schema 1 (kept no transactions nor state)', () => {
  it('opens as is, migrated to schema 2: events and headers are served, its blocks’ transactions are not held', async () => {
    const dir = join(tmp.dir, 'schema1');
    expect(await runImportStarknet(['--datadir', dir, join(STARKNET_FIXTURES, 'sepolia-integration-blocks.ndjson')])).toBe(0);
    // What schema 1 wrote: no T (nor X, U…) entries, schema key 1.
    let store = await openStarknetStore(dir, { blockCacheEntries: SETTINGS.starknet.blockCacheEntries.default });
    await store.level.batch([
      ...blocks['sepolia-integration'][0].transactions.map((_, i) => ({ type: 'del' as const, key: transactionKey(9703, i) })),
      { type: 'put', key: STARKNET_SCHEMA_KEY, value: Uint8Array.of(0, 0, 0, 1) },
    ]);
    await store.close();
    store = await openStarknetStore(dir, { blockCacheEntries: SETTINGS.starknet.blockCacheEntries.default });
    expect([...(await store.level.get(STARKNET_SCHEMA_KEY))!]).toEqual([0, 0, 0, 2]);
    const ctx = createStarknetContext(store, testConfig());
    try {
      const call = (method: string, params: unknown) => starknetMethods.get(method)!.call(ctx, params);
      const notHeld = {
        code: -32000,
        message: 'the transactions of block 9703 are not held: it was stored before tracenode kept them (import it again into an empty datadir)',
      };
      for (const method of ['starknet_getBlockWithTxHashes', 'starknet_getBlockWithTxs', 'starknet_getBlockWithReceipts']) {
        expect(await wireError(call(method, [{ block_number: 9703 }])), method).toEqual(notHeld);
      }
      expect(await wireError(call('starknet_getTransactionByBlockIdAndIndex', [{ block_number: 9703 }, 0]))).toEqual(notHeld);
      const typedCalls = methodsOf<StarknetApi, StarknetContext>(starknetMethods, ctx);
      expect(await typedCalls.request('starknet_getBlockTransactionCount', [{ block_number: 9703 }])).toBe(4);
      expect(((await call('starknet_getEvents', { filter: { chunk_size: 100 } })) as { events: unknown[] }).events).toHaveLength(11);
      expect((await typedCalls.request('starknet_getBlockWithTxHashes', [{ block_number: 35748 }])).transactions).toHaveLength(2);
    } finally {
      await closeStarknetContext(ctx);
      await store.close();
    }
  });
});

describe('starknet_syncing and forwarding, through the upstream link a follower gives', () => {
  it('SYNC_STATUS while behind; an upstream that does not answer is -32000 naming the method', async () => {
    const store = networks[0].kind === 'starknet' ? networks[0].store : undefined;
    const syncBlock = (number: number) => ({ number, hash: felt(0xb10c00n + BigInt(number)) });
    let behind = true;
    const ctx = createStarknetContext(store!, testConfig(), undefined, {
      forward: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9545')),
      stateSource: () => ({
        storageAt: async () => undefined,
        nonceAt: async () => undefined,
        classHashAt: async () => undefined,
        classAt: async () => undefined,
      }),
      syncing: async () => (behind ? { starting: syncBlock(3), current: syncBlock(5), highest: syncBlock(9) } : undefined),
    });
    try {
      const call = (method: string, params: unknown) => starknetMethods.get(method)!.call(ctx, params);
      expect(await call('starknet_syncing', [])).toStrictEqual({
        starting_block_hash: '0xb10c03',
        starting_block_num: 3,
        current_block_hash: '0xb10c05',
        current_block_num: 5,
        highest_block_hash: '0xb10c09',
        highest_block_num: 9,
      });
      behind = false;
      expect(await call('starknet_syncing', [])).toBe(false);
      expect(await wireError(call('starknet_estimateFee', { request: [], simulation_flags: [], block_id: 'latest' }))).toEqual({
        code: -32000,
        message: 'the followed node did not answer starknet_estimateFee: connect ECONNREFUSED 127.0.0.1:9545',
      });
    } finally {
      await closeStarknetContext(ctx);
    }
  });
});
