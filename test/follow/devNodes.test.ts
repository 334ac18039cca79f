import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { runBlock } from '@ethereumjs/vm';
import { encodeAbiParameters, type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { TICK_RUNTIME, TICK_TOPIC } from '../../scripts/anvil/tickContract.js';
import { loadedStateKept } from '../../src/chain/loadedState.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { systemWritesSkipped } from '../../src/chain/systemWrites.js';
import { META } from '../../src/db/keys.js';
import { Follower } from '../../src/follow/follower.js';
import { readNodeGenesis } from '../../src/follow/nodeGenesis.js';
import { Upstream } from '../../src/follow/upstream.js';
import { BlockImporter } from '../../src/import/blockImporter.js';
import { type InitResult, initDatadirFromNode } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { vmOnParent } from '../../src/tracing/replay.js';
import { rawResult, sendSigned } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { runCli } from '../helpers/cli.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { describeWithHardhat, startHardhatNode } from '../helpers/hardhatPeer.js';
import { recordingLog } from '../helpers/recordingLog.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

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
 * - anvil, once a transaction clears a slot, calls a precompile without value, sends 0 wei to an
 *   address that has nothing, or reads a slot or an account that holds nothing: its state keeps what
 *   its transactions loaded, empty or zero (`stateClearing`; the last describe).
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

/** A datadir initialised from a node and following it, and how to send the node transactions. */
interface Following {
  call: Call;
  init: InitResult;
  chain: EthereumChain;
  ctx: EthContext;
  follower: Follower;
  lines: string[];
  send: (from: Hex, tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }) => Promise<Hex>;
}

/** One node followed from its genesis through the common scenario. */
interface Followed extends Following {
  /** The transactions sent, and the contract deployed. */
  txs: Hex[];
  contract: Hex;
}

/** Inits a datadir from the node at `url` and starts following it. */
async function startFollowing(dir: string, url: string, call: Call): Promise<Following> {
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });
  const upstream = new Upstream(url, { requestTimeoutMs: 10_000 });
  const init = await initDatadirFromNode(join(dir, 'data'), await readNodeGenesis(upstream), config);
  const chain = await openChain(join(dir, 'data'), config.caches);
  const ctx = await createEthContext(chain, 'test', config);
  const { lines, log } = recordingLog();
  const follower = new Follower(chain, upstream, { settings: config.follow, importSettings: config.import, log });
  follower.start();
  const send = (from: Hex, tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }) => sendSigned(call, from, tx);
  return { call, init, chain, ctx, follower, lines, send };
}

/** A transaction's receipt: the node mines it at once, but may take a moment to serve its receipt. */
async function receiptOf(call: Call, hash: Hex): Promise<{ contractAddress: Hex; blockNumber: Hex; status: Hex }> {
  const receipt = await until(
    `the receipt of ${hash}`,
    () => call('eth_getTransactionReceipt', [hash]) as Promise<{ contractAddress: Hex; blockNumber: Hex; status: Hex } | null>,
    (r) => r !== null,
  );
  return receipt!;
}

/** Inits a datadir from the node at `url`, follows it, and drives the scenario; `burst` mines the node's burst. */
async function followFromGenesis(dir: string, url: string, call: Call, burst: () => Promise<void>): Promise<Followed> {
  const following = await startFollowing(dir, url, call);
  const { send } = following;
  const txs = [await send(KEYS[0], { to: bob.address, value: 10n ** 18n, gas: 21_000n })];
  txs.push(await send(KEYS[0], { data: INITCODE, gas: 200_000n }));
  const contract = (await receiptOf(call, txs[1])).contractAddress;
  txs.push(await send(KEYS[1], { to: contract, data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [7n, 42n]), gas: 100_000n }));
  await burst();
  txs.push(await send(KEYS[1], { to: alice.address, value: 12_345n, gas: 21_000n }));
  return { ...following, txs, contract };
}

/** Waits until our head is the node's head block. */
async function caughtUp(f: Following, timeoutMs = 30_000): Promise<bigint> {
  const read = async () => ({
    theirs: (await f.call('eth_getBlockByNumber', ['latest', false])) as { number: Hex; hash: Hex },
    head: await f.chain.store.head(),
  });
  const { head } = await until(
    'caught up with the node',
    read,
    ({ theirs, head }) => head !== undefined && bytesToHex(head.hash) === theirs.hash,
    timeoutMs,
    () => f.lines.slice(-3).join(' | '),
  );
  return head!.number;
}

/** Every canonical hash from 0 to the node's head is the node's; returns the head. */
async function expectSameChain(f: Following): Promise<bigint> {
  const head = await caughtUp(f);
  for (let n = 0n; n <= head; n++) {
    const theirs = ((await f.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { hash: string }).hash;
    const ours = await f.chain.store.canonicalHash(n);
    expect(ours && bytesToHex(ours), `block ${n}`).toBe(theirs);
  }
  return head;
}

/** The answer of our method and of the node to the same call. */
async function both(f: Following, method: string, params: unknown[]): Promise<[unknown, unknown]> {
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

async function close(f: Following | undefined): Promise<void> {
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
    // Transfers, a deployment and a non-zero write: no block needs anvil's loaded state (below).
    expect(deviations.stateClearing).toBeUndefined();
    expect(await loadedStateKept(f.chain.level)).toBe(false);
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

/** Creation code that deploys `runtime` (hex, under 256 bytes). */
function initcode(runtime: string): Hex {
  const n = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${n}600c60003960${n}6000f3${runtime}` as Hex;
}

/** A 32-byte word (calldata, a storage key). */
const word = (n: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [n]);

/** Runtimes of the contracts the loaded-state scenario deploys. */
const LOADERS = {
  /** slot 0 := calldata[0:32] */
  store: '60003560005500',
  /** CALL sha256 (0x…02) without value */
  sha256Caller: '6000600060006000600060025af15000',
  /** SLOAD slot 1, BALANCE of 0x…caf4 */
  reader: '6001545061caf4315000',
  /** SLOAD slot 3, BALANCE of 0x…caf5, then REVERT */
  reverter: '6003545061caf5315060006000fd',
} as const;
const SHA256 = '0x0000000000000000000000000000000000000002';
const DEAD = '0x000000000000000000000000000000000000dead';
const LOOKED_UP = '0x000000000000000000000000000000000000caf4';
const LOOKED_UP_REVERTED = '0x000000000000000000000000000000000000caf5';
const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * anvil (1.7.1) writes back into its state what its transactions loaded (`chain/loadedState.ts`):
 * a slot an SLOAD or SSTORE reached in a frame that did not revert stays as a leaf holding zero
 * (a cleared slot, a slot read that holds nothing), and an account a transaction looked up stays
 * as an empty account (the sha256 precompile called without value, 0xdEaD sent 0 wei, an address
 * BALANCE read, also in a transaction that reverted). A spec-following node computes other state
 * roots for these blocks; tracenode, under lenient checks, executes them as anvil does from the
 * first (the slot cleared) and then answers as anvil does, proofs included.
 */
describeWithFoundry(['anvil'], "following a plain anvil's loaded state")('a plain anvil: what its transactions loaded stays in its state', () => {
  const tmp = tempDir('tracenode-devnode-anvil-state-');
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  let f: Following;
  let call: Call;
  const contracts = {} as Record<keyof typeof LOADERS, Hex>;
  /** The block whose transaction clears the slot: the first that keeps the loaded state. */
  let cleared: bigint;

  beforeAll(async () => {
    anvil = await startAnvil([]);
    call = (method, params = []) => rawResult(anvil.url, method, params);
    f = await startFollowing(tmp.dir, anvil.url, call);
    const receipt = (hash: Hex) => receiptOf(call, hash);
    for (const name of Object.keys(LOADERS) as Array<keyof typeof LOADERS>) {
      contracts[name] = (await receipt(await f.send(KEYS[0], { data: initcode(LOADERS[name]), gas: 200_000n }))).contractAddress;
    }
    await f.send(KEYS[0], { to: contracts.store, data: word(5n), gas: 100_000n });
    // One second after its parent, so that strict checks refuse it for its state root alone.
    const parent = (await call('eth_getBlockByNumber', ['latest', false])) as { timestamp: Hex };
    await call('evm_setNextBlockTimestamp', [Number(BigInt(parent.timestamp) + 1n)]);
    cleared = BigInt((await receipt(await f.send(KEYS[0], { to: contracts.store, data: word(0n), gas: 100_000n }))).blockNumber);
    await f.send(KEYS[0], { to: contracts.sha256Caller, gas: 100_000n });
    await f.send(KEYS[1], { to: DEAD, value: 0n, gas: 21_000n });
    await f.send(KEYS[0], { to: contracts.reader, gas: 100_000n });
    expect((await receipt(await f.send(KEYS[0], { to: contracts.reverter, gas: 100_000n }))).status).toBe('0x0');
  }, 30_000);

  afterAll(async () => {
    await close(f);
    await anvil?.stop();
    tmp.cleanup();
  });

  it("follows every block: each canonical hash is anvil's; from the block that clears a slot they execute keeping the loaded state (stateClearing, once)", async () => {
    const head = await expectSameChain(f);
    expect(head).toBe(10n); // 4 deployments, slot 0 := 5, := 0, the precompile call, 0 wei to 0xdEaD, the reader, the reverter
    expect(cleared).toBe(6n);
    const deviations = f.follower.status().headerDeviations ?? {};
    expect(deviations.stateClearing).toBe(1);
    expect(deviations.genesisStateRoot).toBe(1);
    expect(deviations.systemCalls).toBeUndefined();
    expect(await loadedStateKept(f.chain.level)).toBe(true);
    // The flag made the datadir schema 2 in its block's batch: a release that does not know it refuses it.
    expect([...((await f.chain.level.get(META.schema)) ?? [])]).toEqual([0, 0, 0, 2]);
    const reported = f.lines.filter((l) => l.startsWith('warn block verifies only keeping every account and storage slot its transactions loaded'));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain(`"rule":"stateClearing","block":${cleared},`);
    expect(reported[0]).toMatch(/clearing them stateRoot 0x[0-9a-f]{64} != header 0x[0-9a-f]{64}"/);
  });

  it("answers eth_getStorageAt and eth_getProof as anvil does: the cleared slot's zero leaf, the slot read, the empty accounts", async () => {
    await caughtUp(f);
    const [ours, theirs] = await both(f, 'eth_getStorageAt', [contracts.store, word(0n), 'latest']);
    expect(ours).toBe(theirs);
    expect(ours).toBe(word(0n));
    const asked: Array<[Hex, Hex[]]> = [
      [contracts.store, [word(0n)]],
      [contracts.reader, [word(1n)]],
      [contracts.reverter, [word(3n)]],
      [SHA256, []],
      [DEAD, []],
      [LOOKED_UP, []],
      [LOOKED_UP_REVERTED, []],
    ];
    const proofs: Record<string, { balance: Hex; nonce: Hex; storageHash: Hex; storageProof: Array<{ value: Hex; proof: Hex[] }> }> = {};
    for (const [address, keys] of asked) {
      const [ours, theirs] = (await both(f, 'eth_getProof', [address, keys, 'latest'])) as Array<(typeof proofs)[string]>;
      // A key of an empty storage trie: anvil proves it with the empty trie's root node ["0x80"],
      // geth and tracenode with no node (docs/peers.md); the reverter's storage stayed empty.
      const expected = address === contracts.reverter ? { ...theirs, storageProof: theirs.storageProof.map((p) => ({ ...p, proof: [] })) } : theirs;
      if (address === contracts.reverter) expect(theirs.storageProof[0].proof).toEqual(['0x80']);
      expect(ours, `eth_getProof of ${address}`).toEqual(expected);
      proofs[address] = ours;
    }
    // What the proofs show: zero leaves where an SLOAD or SSTORE reached a slot, none where it reverted...
    for (const address of [contracts.store, contracts.reader]) {
      expect(proofs[address].storageHash).not.toBe(EMPTY_TRIE);
      expect(proofs[address].storageProof[0]).toMatchObject({ value: '0x0' });
      expect(proofs[address].storageProof[0].proof.at(-1)).toMatch(/80$/);
    }
    expect(proofs[contracts.reverter].storageHash).toBe(EMPTY_TRIE);
    // ...and empty accounts (an absent account's proof would carry zero hashes: docs/methods.md).
    for (const address of [SHA256, DEAD, LOOKED_UP, LOOKED_UP_REVERTED]) {
      expect(proofs[address], address).toMatchObject({ balance: '0x0', nonce: '0x0', storageHash: EMPTY_TRIE });
    }
  });

  it('trace replays execute those blocks as the importer did: each reproduces its state root', async () => {
    await caughtUp(f);
    for (let n = cleared; n <= 10n; n++) {
      const block = (await f.chain.store.blockByNumber(n))!;
      const vm = await vmOnParent(f.chain, f.ctx.state.db, block, 'replay');
      const result = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, skipBlockValidation: true, setHardfork: true });
      expect(bytesToHex(result.stateRoot), `block ${n}`).toBe(bytesToHex(block.header.stateRoot));
    }
  });

  it('strict header checks refuse the block that clears the slot, for its state root, whatever the datadir recorded', async () => {
    const block = (await f.chain.store.blockByNumber(cleared))!;
    const strict = testConfig({ import: { headerChecks: 'strict' } });
    // When anvil mined it in its parent's second, the timestamp rule refuses it first; else its
    // execution: anvil's Prague chain has no EIP-7002 contract, which makes every block invalid
    // under the specification, before its state root is compared.
    const parent = (await f.chain.store.blockByNumber(cleared - 1n))!;
    const t = block.header.timestamp;
    const why =
      t === parent.header.timestamp
        ? `timestamp ${t} not after parent's ${t}`
        : 'execution failed: system contract empty: no code at 0x00000961ef480eb55e80d19ad83579a64c007002 \\(EIP-7002 withdrawal requests\\)';
    await expect(new BlockImporter(f.chain, strict.import).execute(block)).rejects.toThrow(
      new RegExp(`^block ${cleared} \\(${bytesToHex(block.hash())}\\): ${why}$`),
    );
  });

  it('a new follower of the datadir executes the next such block keeping the loaded state at once (remembered in the datadir)', async () => {
    await caughtUp(f);
    await f.follower.stop();
    // 0 wei to another address that has nothing: an empty account in anvil's state.
    const sent = await f.send(KEYS[1], { to: '0x000000000000000000000000000000000000bEEF', value: 0n, gas: 21_000n });
    expect(BigInt((await receiptOf(f.call, sent)).blockNumber)).toBe(11n);
    const config = testConfig({ follow: { pollIntervalMs: 50 } });
    const lines: string[] = [];
    const log = {
      info: () => undefined,
      warn: (_o: object, m: string) => lines.push(m),
      error: (_o: object, m: string) => lines.push(m),
      debug: () => undefined,
    };
    f.follower = new Follower(f.chain, new Upstream(anvil.url, { requestTimeoutMs: 10_000 }), { settings: config.follow, importSettings: config.import, log });
    f.follower.start();
    expect(await expectSameChain(f)).toBe(11n);
    expect(f.follower.status().headerDeviations?.stateClearing).toBeUndefined();
    expect(lines.filter((l) => l.includes('loaded'))).toEqual([]);
    const [ours, theirs] = await both(f, 'eth_getProof', ['0x000000000000000000000000000000000000bEEF', [], 'latest']);
    expect(ours).toEqual(theirs);
  });
});
