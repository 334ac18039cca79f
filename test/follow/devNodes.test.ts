import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bytesToHex } from '@ethereumjs/util';
import { encodeAbiParameters, type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { TICK_RUNTIME, TICK_TOPIC } from '../../scripts/anvil/tickContract.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { systemWritesSkipped } from '../../src/chain/systemWrites.js';
import { Follower } from '../../src/follow/follower.js';
import { readNodeGenesis } from '../../src/follow/nodeGenesis.js';
import { Upstream } from '../../src/follow/upstream.js';
import { BlockImporter } from '../../src/import/blockImporter.js';
import { type InitResult, initDatadirFromNode } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { rawResult } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { describeWithHardhat, startHardhatNode } from '../helpers/hardhatPeer.js';
import { testConfig } from '../helpers/testConfig.js';

/**
 * Following a development node from its genesis, as users run it (issue 27): a plain `anvil` (no
 * flags but its address) and `hardhat node` (its defaults and `allowBlocksWithSameTimestamp`). The
 * datadir is initialised from the node itself (`init --from-node`: it has no genesis file), then
 * followed while the node automines signed EIP-1559 transfers, a contract's deployment and a call
 * to it (a storage write and a log), and bursts of blocks (`evm_mine` ×4; `hardhat_mine 0x20`,
 * whose middle blocks Hardhat reserves: no parent hash, keccak256("") as transactionsRoot). Every
 * canonical hash must then be the node's, and the state methods must answer as the node does.
 *
 * What each node needs of tracenode, and fails without:
 * - anvil: its block 0 names the empty trie's state root (foundry issue 7366); block 1 executes on
 *   the state init computed (the datadir's state-root alias) and its state root verifies it.
 * - Hardhat: its blocks skip the EIP-4788 and EIP-2935 system writes (`systemCalls`); its reserved
 *   blocks name no parent (`parentHash`) and have the other empty transactions root.
 */

const KEYS: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
];
const [alice, bob] = KEYS.map((k) => privateKeyToAccount(k));
/** Stores calldata[0:32] in slot 0, then emits Tick(calldata[0:32], calldata[32:64]) (scripts/anvil/tickContract.ts). */
const RUNTIME = `600035600055${TICK_RUNTIME}`;
const INITCODE = `0x60${(RUNTIME.length / 2).toString(16)}600c60003960${(RUNTIME.length / 2).toString(16)}6000f3${RUNTIME}` as Hex;
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';

type Call = (method: string, params?: unknown[]) => Promise<unknown>;

/** One node followed from its genesis, and what the test needs of it. */
interface Followed {
  call: Call;
  init: InitResult;
  chain: EthereumChain;
  ctx: EthContext;
  follower: Follower;
  lines: string[];
  /** The transactions sent, and the contract deployed. */
  txs: Hex[];
  contract: Hex;
}

/** Inits a datadir from the node at `url`, follows it, and drives the scenario; `burst` mines the node's burst. */
async function followFromGenesis(dir: string, url: string, call: Call, burst: () => Promise<void>): Promise<Followed> {
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });
  const upstream = new Upstream(url, { requestTimeoutMs: 10_000 });
  const init = await initDatadirFromNode(join(dir, 'data'), await readNodeGenesis(upstream), config);
  const chain = await openChain(join(dir, 'data'), config.caches);
  const ctx = await createEthContext(chain, 'test', config);
  const lines: string[] = [];
  const log = {
    info: (_o: object, m: string) => lines.push(`info ${m}`),
    warn: (o: object, m: string) => lines.push(`warn ${m} ${JSON.stringify(o)}`),
    error: (o: object, m: string) => lines.push(`error ${m} ${JSON.stringify(o)}`),
    debug: () => undefined,
  };
  const follower = new Follower(chain, upstream, { settings: config.follow, importSettings: config.import, log });
  follower.start();
  const send = async (from: (typeof KEYS)[number], tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }): Promise<Hex> => {
    const account = privateKeyToAccount(from);
    const nonce = Number(BigInt((await call('eth_getTransactionCount', [account.address, 'pending'])) as string));
    const raw = await account.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('1'),
      ...tx,
    });
    return (await call('eth_sendRawTransaction', [raw])) as Hex;
  };
  const txs = [await send(KEYS[0], { to: bob.address, value: 10n ** 18n, gas: 21_000n })];
  txs.push(await send(KEYS[0], { data: INITCODE, gas: 200_000n }));
  const contract = ((await call('eth_getTransactionReceipt', [txs[1]])) as { contractAddress: Hex }).contractAddress;
  txs.push(await send(KEYS[1], { to: contract, data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [7n, 42n]), gas: 100_000n }));
  await burst();
  txs.push(await send(KEYS[1], { to: alice.address, value: 12_345n, gas: 21_000n }));
  return { call, init, chain, ctx, follower, lines, txs, contract };
}

/** Waits until our head is the node's head block. */
async function caughtUp(f: Followed, timeoutMs = 15_000): Promise<bigint> {
  const t0 = Date.now();
  for (;;) {
    const theirs = (await f.call('eth_getBlockByNumber', ['latest', false])) as { number: Hex; hash: Hex };
    const head = await f.chain.store.head();
    if (head && bytesToHex(head.hash) === theirs.hash) return head.number;
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`not caught up: head ${head?.number}, node ${BigInt(theirs.number)}; log: ${f.lines.slice(-3).join(' | ')}`);
    await sleep(50);
  }
}

/** Every canonical hash from 0 to the node's head is the node's; returns the head. */
async function expectSameChain(f: Followed): Promise<bigint> {
  const head = await caughtUp(f);
  for (let n = 0n; n <= head; n++) {
    const theirs = ((await f.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { hash: string }).hash;
    const ours = await f.chain.store.canonicalHash(n);
    expect(ours && bytesToHex(ours), `block ${n}`).toBe(theirs);
  }
  return head;
}

/** The answer of our method and of the node to the same call. */
async function both(f: Followed, method: string, params: unknown[]): Promise<[unknown, unknown]> {
  return [await ethereumMethods.get(method)!.call(f.ctx, params), await f.call(method, params)];
}

/** What a receipt says about the transaction, in the fields every node renders alike. */
function receiptFacts(r: unknown): unknown {
  const x = r as Record<string, unknown> & { logs: Array<Record<string, unknown>> };
  const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
  return {
    ...pick(x, ['transactionHash', 'transactionIndex', 'blockHash', 'blockNumber', 'from', 'to', 'cumulativeGasUsed', 'gasUsed', 'effectiveGasPrice']),
    ...pick(x, ['contractAddress', 'logsBloom', 'status', 'type']),
    logs: x.logs.map((l) => pick(l, ['address', 'topics', 'data', 'blockNumber', 'blockHash', 'transactionHash', 'transactionIndex', 'logIndex', 'removed'])),
  };
}

/** The state answers the methods give, equal to the node's: balances at latest and at block 0, storage, code, receipts. */
async function expectSameAnswers(f: Followed): Promise<void> {
  for (const who of [alice.address, bob.address, f.contract]) {
    for (const tag of ['latest', '0x0']) {
      const [ours, theirs] = await both(f, 'eth_getBalance', [who, tag]);
      expect(ours, `balance of ${who} at ${tag}`).toBe(theirs);
    }
  }
  expect(await both(f, 'eth_getBalance', [alice.address, '0x0'])).toEqual([`0x${(10_000n * 10n ** 18n).toString(16)}`, expect.any(String)]);
  for (const [address, slot] of [
    [f.contract, '0x0'],
    [HISTORY, '0x0'],
    [BEACON_ROOTS, '0x0'],
  ]) {
    const [ours, theirs] = await both(f, 'eth_getStorageAt', [address, slot, 'latest']);
    expect(ours, `storage ${slot} of ${address}`).toBe(theirs);
  }
  expect((await both(f, 'eth_getStorageAt', [f.contract, '0x0', 'latest']))[0]).toBe(`0x${'7'.padStart(64, '0')}`);
  for (const [address, tag] of [
    [f.contract, 'latest'],
    [HISTORY, '0x0'],
    [BEACON_ROOTS, '0x0'],
  ]) {
    const [ours, theirs] = await both(f, 'eth_getCode', [address, tag]);
    expect(ours, `code of ${address} at ${tag}`).toBe(theirs);
  }
  expect((await both(f, 'eth_getCode', [f.contract, 'latest']))[0]).toBe(`0x${RUNTIME}`);
  for (const hash of f.txs) {
    const [ours, theirs] = await both(f, 'eth_getTransactionReceipt', [hash]);
    expect(receiptFacts(ours), `receipt of ${hash}`).toEqual(receiptFacts(theirs));
    expect(ours).toMatchObject({ transactionHash: hash, status: '0x1', type: '0x2' });
  }
  const tick = ((await both(f, 'eth_getTransactionReceipt', [f.txs[2]]))[0] as { logs: Array<{ topics: Hex[] }> }).logs;
  expect(tick.map((l) => l.topics)).toEqual([[TICK_TOPIC, `0x${'7'.padStart(64, '0')}`]]);
}

async function close(f: Followed | undefined): Promise<void> {
  await f?.follower.stop();
  await f?.ctx.evm.close();
  await f?.chain.close();
}

describeWithFoundry(['anvil'], 'following a plain anvil from its genesis')('a plain anvil, from its genesis', () => {
  const tmp = tempDir('tracenode-devnode-anvil-');
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  let f: Followed;
  let call: Call;

  beforeAll(async () => {
    anvil = await startAnvil([]);
    call = (method, params = []) => rawResult(anvil.url, method, params);
    f = await followFromGenesis(tmp.dir, anvil.url, call, async () => {
      for (let i = 0; i < 4; i++) await call('evm_mine');
    });
  }, 30_000);

  afterAll(async () => {
    await close(f);
    await anvil?.stop();
    tmp.cleanup();
  });

  it("init takes anvil's block 0 and keeps its state under the root of the state anvil holds", async () => {
    const block0 = (await call('eth_getBlockByNumber', ['0x0', false])) as { hash: string; stateRoot: string };
    expect(f.init.hash).toBe(block0.hash);
    expect(block0.stateRoot).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
    expect(f.init.stateRoot).toBe(block0.stateRoot);
    // 10 dev accounts, the EIP-2935 history contract and Arachnid's CREATE2 deployer.
    expect(f.init.genesisStateRoot).toBe('0x9db0379a777ce105895a9bcbed83ce92850da78c8508e783e08728ec535f67dc');
  });

  it("follows every block: each canonical hash is anvil's, and block 1's state root verified the genesis state", async () => {
    const head = await expectSameChain(f);
    expect(head).toBe(8n); // transfer, deployment, call, 4 × evm_mine, transfer
    const deviations = f.follower.status().headerDeviations ?? {};
    expect(deviations.genesisStateRoot).toBe(1);
    expect(deviations.systemCalls).toBeUndefined();
    expect(f.lines.filter((l) => l.startsWith("warn block 0's header names a state root other than its state's"))).toHaveLength(1);
  });

  it('answers balances (latest and block 0), storage, code and receipts as anvil does', async () => {
    await caughtUp(f);
    await expectSameAnswers(f);
  });

  it("strict header checks: init refuses anvil's block 0, and an importer refuses block 1 on the state it misnames", async () => {
    const strict = testConfig({ import: { headerChecks: 'strict' } });
    const genesis = await readNodeGenesis(new Upstream(anvil.url, { requestTimeoutMs: 10_000 }));
    await expect(initDatadirFromNode(join(tmp.dir, 'strict'), genesis, strict)).rejects.toThrow(
      "the node's block 0 names the empty trie's state root 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421 for a state whose root is 0x9db0379a777ce105895a9bcbed83ce92850da78c8508e783e08728ec535f67dc (anvil, foundry issue 7366): accepted only under lenient header checks (import.headerChecks)",
    );
    const block1 = (await f.chain.store.blockByNumber(1n))!;
    await expect(new BlockImporter(f.chain, strict.import).execute(block1)).rejects.toThrow(
      "block 0's header names state root 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421, its state's is 0x9db0379a777ce105895a9bcbed83ce92850da78c8508e783e08728ec535f67dc (recorded by init --from-node): refused under strict header checks",
    );
  });

  it('the CLI: init --from-node of the same anvil, then follow, to the same head', async () => {
    const datadir = join(tmp.dir, 'cli');
    const init = await runCli(['init', '--datadir', datadir, '--from-node', anvil.url]);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('chain id 31337, fork osaka from block 0 (eth_config), 12 accounts at block 0');
    expect(init.stdout).toContain(`init: genesis ${f.init.hash} (stateRoot ${f.init.stateRoot}) written to ${datadir}`);
    const again = await runCli(['init', '--datadir', datadir, '--from-node', anvil.url]);
    expect(again.stdout).toContain(`already holds the node's genesis ${f.init.hash}`);
    const follow = await runCli(['follow', '--datadir', datadir, '--follow', anvil.url]);
    expect(follow.code).toBe(0);
    expect(follow.stdout).toContain('follow: head is block 8 (upstream head 8)');
  }, 30_000);
});

describeWithHardhat('following a Hardhat node from its genesis')('a Hardhat node, from its genesis', () => {
  const tmp = tempDir('tracenode-devnode-hardhat-');
  let node: Awaited<ReturnType<typeof startHardhatNode>>;
  let f: Followed;

  beforeAll(async () => {
    node = await startHardhatNode(join(tmp.dir, 'hardhat'));
    f = await followFromGenesis(tmp.dir, node.url, node.call, async () => {
      await node.call('hardhat_mine', ['0x20']);
    });
  }, 30_000);

  afterAll(async () => {
    await close(f);
    await node?.stop();
    tmp.cleanup();
  });

  it('init takes Hardhat\'s block 0 as it is (its hash, with keccak256("") as transactionsRoot)', async () => {
    const block0 = (await node.call('eth_getBlockByNumber', ['0x0', false])) as { hash: string; stateRoot: string; transactionsRoot: string };
    expect(f.init.hash).toBe(block0.hash);
    expect(f.init.stateRoot).toBe('0xc2b8dc215b5234bd853bb9c2895bb0c2c2642e81d4ed7c370cf716ca269d34e7');
    expect(f.init.stateRoot).toBe(block0.stateRoot);
    expect(f.init.genesisStateRoot).toBeUndefined();
    expect(block0.transactionsRoot).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it("follows every block, the 29 reserved by hardhat_mine included: each canonical hash is Hardhat's", async () => {
    const head = await expectSameChain(f);
    expect(head).toBe(36n); // transfer, deployment, call, 32 by hardhat_mine, transfer
    const deviations = f.follower.status().headerDeviations ?? {};
    expect(deviations.systemCalls).toBe(1);
    expect(deviations.parentHash).toBe(29);
    expect(deviations.transactionsRoot).toBe(29);
    expect(deviations.genesisStateRoot).toBeUndefined();
    expect(await systemWritesSkipped(f.chain.level)).toBe(true);
  });

  it('answers balances (latest and block 0), storage, code and receipts as Hardhat does', async () => {
    await caughtUp(f);
    await expectSameAnswers(f);
  });

  it('a new follower of the datadir executes the next block without the system writes at once (remembered in the datadir)', async () => {
    await caughtUp(f);
    await f.follower.stop();
    const hash = (await node.call('eth_sendRawTransaction', [
      await alice.signTransaction({
        chainId: 31337,
        type: 'eip1559',
        nonce: Number(BigInt((await node.call('eth_getTransactionCount', [alice.address, 'pending'])) as string)),
        to: bob.address,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: parseGwei('100'),
        maxPriorityFeePerGas: parseGwei('1'),
      }),
    ])) as Hex;
    const config = testConfig({ follow: { pollIntervalMs: 50 } });
    const lines: string[] = [];
    const log = {
      info: () => undefined,
      warn: (_o: object, m: string) => lines.push(m),
      error: (_o: object, m: string) => lines.push(m),
      debug: () => undefined,
    };
    f.follower = new Follower(f.chain, new Upstream(node.url, { requestTimeoutMs: 10_000 }), { settings: config.follow, importSettings: config.import, log });
    f.follower.start();
    f.txs.push(hash);
    await expectSameChain(f);
    expect(f.follower.status().headerDeviations?.systemCalls).toBeUndefined();
    expect(lines.filter((l) => l.includes('system writes'))).toEqual([]);
    await expectSameAnswers(f);
  });
});
