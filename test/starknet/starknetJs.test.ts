import { join } from 'node:path';
import { constants, RpcProvider } from 'starknet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImportStarknet } from '../../src/cli/importStarknet.js';
import { type Network, openNetwork } from '../../src/cli/networks.js';
import { ensureStarknetFrom } from '../../src/cli/starknetFrom.js';
import { tempDir } from '../helpers/chains.js';
import { type StartedServer, startServer, TEST_API_KEY } from '../helpers/rpcClient.js';
import { type FixtureBlock, fixtureBlocks, fixtureEvents, STARKNET_FIXTURES } from '../helpers/starknetFixtures.js';
import { felt } from '../helpers/starknetState.js';
import { linkedChain, StarknetUpstream } from '../helpers/starknetUpstream.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * starknet.js (npm `starknet`, pinned; its `RpcProvider` for spec 0.8, unmodified) against
 * tracenode: an imported network (the mainnet fixture blocks) for the chain, blocks, transactions,
 * receipts and event pages, and a network following a stand-in upstream from its block 2 for
 * state reads and a forwarded `callContract`. Expected values come from the fixture and from the stand-in.
 */

const tmp = tempDir('tracenode-starknetjs-');
const blocks = fixtureBlocks('mainnet');
const ETH = '0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7';
const TRANSFER = '0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9';
type Entry = { transaction: Record<string, unknown>; receipt: Record<string, unknown> & { transaction_hash: string } };
const entries = (b: FixtureBlock) => b.transactions as unknown as Entry[];

const opened: Network[] = [];
const servers: StartedServer[] = [];
let upstream: StarknetUpstream;
let imported: RpcProvider;
let following: RpcProvider;

/** A server for one network, and a provider pointed at it. */
async function serve(network: Network): Promise<RpcProvider> {
  opened.push(network);
  const server = await startServer({ networks: [network.handle], apiKeys: [TEST_API_KEY], logger: false });
  servers.push(server);
  return new RpcProvider({ nodeUrl: `${server.url}/v3/${server.key}` });
}

beforeAll(async () => {
  const mainnet = join(tmp.dir, 'mainnet');
  expect(await runImportStarknet(['--datadir', mainnet, '--chain-id', 'SN_MAIN', join(STARKNET_FIXTURES, 'mainnet-blocks.ndjson')])).toBe(0);
  imported = await serve(await openNetwork('mainnet', mainnet, 'test', testConfig()));

  upstream = await StarknetUpstream.start();
  upstream.setChain(linkedChain(blocks));
  const followed = join(tmp.dir, 'followed');
  const config = testConfig({ follow: { pollIntervalMs: 50 } });
  // From block 2: what blocks 0 and 1 left (the stand-in's base state, then their updates) is asked of the upstream.
  expect(await ensureStarknetFrom(followed, upstream.httpUrl, '2', undefined, config, () => {})).toBe(true);
  following = await serve(await openNetwork('followed', followed, 'test', config, undefined, upstream.httpUrl));
  await until(
    'followed to block 6',
    () => following.getBlockNumber().catch(() => -1),
    (n) => n === 6,
    15_000,
  );
}, 60_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const n of opened) await n.close();
  await upstream?.stop();
  tmp.cleanup();
});

describe('starknet.js RpcProvider against tracenode', () => {
  it('getChainId, getSpecVersion', async () => {
    expect(await imported.getChainId()).toBe(constants.StarknetChainId.SN_MAIN);
    expect(await imported.getSpecVersion()).toBe('0.8.1');
    expect(await following.getChainId()).toBe(upstream.chainId);
  });

  it('getBlock by number, hash and tag; getBlockWithReceipts', async () => {
    const b = blocks[5];
    const block = await imported.getBlock(b.block_number);
    expect(block).toMatchObject({ block_hash: b.block_hash, block_number: 65000, status: 'ACCEPTED_ON_L1', timestamp: b.timestamp });
    expect((block as { transactions: string[] }).transactions).toEqual(entries(b).map((t) => t.receipt.transaction_hash));
    expect(await imported.getBlock(b.block_hash)).toEqual(block);
    expect((await imported.getBlock('latest')).block_hash).toBe(blocks[6].block_hash);
    // The provider's default block is `pending`: the empty block after latest.
    expect(await imported.getBlock()).toMatchObject({ parent_hash: blocks[6].block_hash, transactions: [] });
    expect(await imported.getBlockWithReceipts(2800)).toEqual({ l2_gas_price: { price_in_fri: '0x1', price_in_wei: '0x1' }, ...blocks[4] });
  });

  it('getTransaction, getTransactionReceipt (success and reverted), waitForTransaction on a stored transaction', async () => {
    const ok = entries(blocks[6]).find((t) => t.receipt.execution_status === 'SUCCEEDED')!;
    const reverted = entries(blocks[6]).find((t) => t.receipt.execution_status === 'REVERTED')!;
    expect(await imported.getTransaction(ok.receipt.transaction_hash)).toEqual(ok.transaction);
    const receipt = await imported.getTransactionReceipt(ok.receipt.transaction_hash);
    expect(receipt.isSuccess()).toBe(true);
    expect({ ...receipt }).toEqual({ ...ok.receipt, block_hash: blocks[6].block_hash, block_number: 619596 });
    const failed = await imported.getTransactionReceipt(reverted.receipt.transaction_hash);
    expect(failed.isReverted()).toBe(true);
    expect((failed as unknown as { revert_reason: string }).revert_reason).toBe(reverted.receipt.revert_reason);
    const waited = await imported.waitForTransaction(ok.receipt.transaction_hash, { retryInterval: 20 });
    expect(waited.isSuccess()).toBe(true);
    expect((waited as unknown as { block_number: number }).block_number).toBe(619596);
  });

  it('getEvents, paged by continuation token: the ETH transfers of the fixture', async () => {
    const got: unknown[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await imported.getEvents({ address: ETH, keys: [[TRANSFER]], chunk_size: 100, continuation_token: token });
      got.push(...page.events);
      token = page.continuation_token;
      pages++;
    } while (token !== undefined);
    const expected = fixtureEvents('mainnet').filter((e) => BigInt(e.from_address) === BigInt(ETH) && BigInt(e.keys[0] ?? '0x0') === BigInt(TRANSFER));
    expect(got).toHaveLength(648);
    expect(pages).toBe(7);
    expect(got).toEqual(expected);
  });

  it('on a following network: getStorageAt, getNonceForAddress, getClassHashAt as the upstream says; callContract forwarded', async () => {
    const theirs = upstream.stateAt('latest')!;
    const sender = upstream.stateUpdates[6].state_diff.nonces[0].contract_address;
    const slot = upstream.stateUpdates[5].state_diff.storage_diffs[0];
    expect(await following.getStorageAt(slot.address, slot.storage_entries[0].key, 'latest')).toBe(theirs.storageAt(slot.address, slot.storage_entries[0].key));
    // The provider's default block, `pending`, reads the latest state.
    expect(await following.getNonceForAddress(sender)).toBe(theirs.nonceAt(sender));
    expect(await following.getClassHashAt(sender, 'latest')).toBe(theirs.classHashAt(sender));
    const result = await following.callContract({ contractAddress: ETH, entrypoint: 'balanceOf', calldata: [sender] }, 'latest');
    expect(result).toEqual(['0x1', felt(ETH)]);
    expect(upstream.requests.filter((r) => r.method === 'starknet_call')).toHaveLength(1);
    await expect(imported.callContract({ contractAddress: ETH, entrypoint: 'balanceOf', calldata: [sender] }, 'latest')).rejects.toThrow(
      /starknet_call is not served by this node/,
    );
  });
});
