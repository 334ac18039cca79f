/**
 * viem, as a dapp backend runs it: `createPublicClient` with the `http()` and `webSocket()` transports
 * against a real tracenode serving the demo chain. Every assertion is a value recorded by the demo
 * generator (fixtures/demo/README.md, scripts/genDemo.ts), never just "no error".
 */
import { RLP } from '@ethereumjs/rlp';
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  hexToBigInt,
  hexToBytes,
  http,
  keccak256,
  type PublicClient,
  parseAbi,
  parseAbiItem,
  stringToHex,
  webSocket,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { verifyProof } from '../helpers/proofVerifier.js';
import {
  ALICE,
  ALLOWANCE_REASON,
  BLOB_PROBE,
  BLOB_VERSIONED_HASH,
  BLOCK,
  BOB,
  CAROL,
  CHAIN_ID,
  COUNTER_HISTORY,
  DAVE,
  DEMO_DIR,
  ETH,
  FEE_RECIPIENT_A,
  GRID_ALICE_7,
  GRID_ALICE_7_HISTORY,
  HEAD,
  httpUrl,
  PANIC_DIV_ZERO_DATA,
  PROBE,
  PROBE_ABI,
  RARE_1,
  REASON,
  REASON_DATA,
  SLOT0,
  STATEBOX,
  STATEBOX_ABI,
  TDT_ALICE_HISTORY,
  TDT_BOB_HISTORY,
  THROWER,
  THROWER_ABI,
  TOKEN,
  TOKEN_ABI,
  TRANSFER_TOPIC,
  TRANSFERS_8_TO_10,
  TX,
  UNCLES_11,
  unauthorizedData,
  valueAt,
  WITHDRAWAL_1,
  WITHDRAWAL_2,
  word,
  wsUrl,
} from './demo.js';

const tokenAbi = parseAbi(TOKEN_ABI);
const throwerAbi = parseAbi(THROWER_ABI);
const stateBoxAbi = parseAbi(STATEBOX_ABI);
const probeAbi = parseAbi(PROBE_ABI);
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(DEMO_DIR);
});
afterAll(async () => {
  await server?.close();
});

/** The revert error viem found under a thrown error (ContractFunctionExecutionError → ContractFunctionRevertedError). */
async function revertOf(p: Promise<unknown>): Promise<ContractFunctionRevertedError> {
  const err = await p.then(
    () => {
      throw new Error('expected the call to revert');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BaseError);
  const revert = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
  expect(revert, String(err)).toBeInstanceOf(ContractFunctionRevertedError);
  return revert as ContractFunctionRevertedError;
}

for (const kind of ['http', 'webSocket'] as const) {
  describe(`viem createPublicClient(${kind}())`, () => {
    let client: PublicClient;
    let close: () => Promise<void> = async () => {};
    beforeAll(async () => {
      if (kind === 'http') {
        client = createPublicClient({ transport: http(httpUrl(server)) });
      } else {
        const c = createPublicClient({ transport: webSocket(wsUrl(server)) });
        client = c as PublicClient;
        close = async () => (await c.transport.getRpcClient()).close();
      }
    });
    afterAll(() => close());

    it('getChainId, getBlockNumber', async () => {
      expect(await client.getChainId()).toBe(CHAIN_ID);
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(BigInt(HEAD));
    });

    it('getBlock by number (first PoS block 20), with and without transactions', async () => {
      const b = await client.getBlock({ blockNumber: 20n });
      expect(b.hash).toBe(BLOCK[20]);
      expect(b.parentHash).toBe(BLOCK[19]);
      expect(b.number).toBe(20n);
      expect(b.miner).toBe(FEE_RECIPIENT_A);
      expect(b.difficulty).toBe(0n);
      expect(b.baseFeePerGas).toBe(213_316_962n);
      expect(b.gasUsed).toBe(49_629n);
      expect(b.gasLimit).toBe(30_000_000n);
      expect(b.timestamp).toBe(1_700_000_259n);
      expect(b.mixHash).toBe(keccak256(stringToHex('tracenode-demo:prevrandao:20')));
      expect(b.transactions).toHaveLength(2);
      expect(b.transactions[0]).toBe(TX.firstPos);

      const full = await client.getBlock({ blockNumber: 20n, includeTransactions: true });
      expect(full.hash).toBe(BLOCK[20]);
      const tx = full.transactions[0];
      expect(tx.hash).toBe(TX.firstPos);
      expect(tx.from).toBe(ALICE);
      expect(tx.to).toBe(BOB);
      expect(tx.type).toBe('eip1559');
      expect(tx.blockNumber).toBe(20n);
      expect(tx.blockHash).toBe(BLOCK[20]);
      expect(tx.transactionIndex).toBe(0);
      expect(full.transactions.map((t) => t.hash)).toEqual(b.transactions);
    });

    it('getBlock by hash: block 11 with its two uncles', async () => {
      const b = await client.getBlock({ blockHash: BLOCK[11] });
      expect(b.number).toBe(11n);
      expect(b.hash).toBe(BLOCK[11]);
      expect(b.uncles).toEqual([...UNCLES_11]);
      expect(b.baseFeePerGas).toBe(698_796_592n);
      expect(b.gasUsed).toBe(105_430n);
      expect(b.transactions).toHaveLength(2);
    });

    it('getBlock latest, and Shanghai/Cancun fields (withdrawals in 23, blob gas in 28)', async () => {
      const head = await client.getBlock();
      expect(head.number).toBe(BigInt(HEAD));
      expect(head.hash).toBe(BLOCK[64]);
      expect(head.baseFeePerGas).toBe(725_568n);
      expect(head.parentBeaconBlockRoot).toBe(keccak256(stringToHex(`tracenode-demo:beacon-block-root:${HEAD}`)));

      const b23 = await client.getBlock({ blockNumber: 23n });
      expect(b23.hash).toBe(BLOCK[23]);
      expect(b23.withdrawals).toEqual([
        { index: '0x0', validatorIndex: '0x1', address: WITHDRAWAL_1, amount: `0x${(32_000_000).toString(16)}` },
        { index: '0x1', validatorIndex: '0x2', address: WITHDRAWAL_2, amount: `0x${(1_500_000).toString(16)}` },
      ]);

      const b28 = await client.getBlock({ blockNumber: 28n, includeTransactions: true });
      expect(b28.hash).toBe(BLOCK[28]);
      expect(b28.blobGasUsed).toBe(131_072n); // one blob
      expect(b28.transactions[0].type).toBe('eip4844');
      expect(b28.transactions[0].blobVersionedHashes).toEqual([BLOB_VERSIONED_HASH]);
    });

    it('getBalance at historic blocks: alice at genesis, rare-1 before/after its two transfers (blocks 3, 40)', async () => {
      expect(await client.getBalance({ address: ALICE, blockNumber: 0n })).toBe(10_000n * ETH);
      expect(await client.getBalance({ address: BOB, blockTag: 'earliest' })).toBe(1_000n * ETH);
      expect(await client.getBalance({ address: RARE_1, blockNumber: 2n })).toBe(0n);
      expect(await client.getBalance({ address: RARE_1, blockNumber: 3n })).toBe(ETH);
      expect(await client.getBalance({ address: RARE_1, blockNumber: 39n })).toBe(ETH);
      expect(await client.getBalance({ address: RARE_1, blockNumber: 40n })).toBe(ETH + ETH / 2n);
      expect(await client.getBalance({ address: RARE_1 })).toBe(ETH + ETH / 2n);
    });

    it('getTransaction: EIP-1559, pre-EIP-155 legacy, EIP-2930, blob, and by block number + index', async () => {
      const t = await client.getTransaction({ hash: TX.firstPos });
      expect([t.blockHash, t.blockNumber, t.transactionIndex, t.from, t.to, t.type, t.chainId]).toEqual([BLOCK[20], 20n, 0, ALICE, BOB, 'eip1559', CHAIN_ID]);

      const legacy = await client.getTransaction({ hash: TX.preEip155 });
      expect([legacy.blockNumber, legacy.transactionIndex, legacy.from, legacy.to, legacy.type]).toEqual([1n, 1, BOB, CAROL, 'legacy']);
      expect([27n, 28n]).toContain(legacy.v);
      expect(legacy.chainId).toBeUndefined();

      const al = await client.getTransaction({ hash: TX.accessList });
      expect([al.blockNumber, al.type, al.from, al.to]).toEqual([6n, 'eip2930', ALICE, STATEBOX]);
      expect(al.accessList?.[0]?.address).toBe(STATEBOX);

      const blob = await client.getTransaction({ hash: TX.blob });
      expect([blob.blockNumber, blob.type, blob.from, blob.to]).toEqual([28n, 'eip4844', ALICE, BLOB_PROBE]);
      expect(blob.blobVersionedHashes).toEqual([BLOB_VERSIONED_HASH]);

      const byIndex = await client.getTransaction({ blockNumber: 9n, index: 3 });
      expect(byIndex.hash).toBe(TX.tokenTransfer);
      const byHashIndex = await client.getTransaction({ blockHash: BLOCK[20], index: 0 });
      expect(byHashIndex.hash).toBe(TX.firstPos);
    });

    it('getTransactionReceipt: token transfer with its Transfer log, contract creation, a failed tx, a blob tx', async () => {
      const r = await client.getTransactionReceipt({ hash: TX.tokenTransfer });
      expect([r.status, r.blockNumber, r.blockHash, r.transactionIndex, r.from, r.to, r.type]).toEqual(['success', 9n, BLOCK[9], 3, ALICE, TOKEN, 'eip1559']);
      expect(r.logs).toHaveLength(1);
      expect(r.logs[0].address).toBe(TOKEN);
      expect(r.logs[0].transactionHash).toBe(TX.tokenTransfer);
      const ev = decodeEventLog({ abi: tokenAbi, eventName: 'Transfer', data: r.logs[0].data, topics: r.logs[0].topics });
      expect([ev.eventName, ev.args.from.toLowerCase(), ev.args.to.toLowerCase(), ev.args.value]).toEqual(['Transfer', ALICE, BOB, 1000n * ETH]);

      const deploy = await client.getTransactionReceipt({ hash: TX.deployToken });
      expect([deploy.status, deploy.blockNumber, deploy.to, deploy.contractAddress]).toEqual(['success', 8n, null, TOKEN]);

      const failed = await client.getTransactionReceipt({ hash: TX.failedReason });
      expect([failed.status, failed.blockNumber, failed.from, failed.to, failed.logs]).toEqual(['reverted', 14n, CAROL, TOKEN, []]);

      const blob = await client.getTransactionReceipt({ hash: TX.blob });
      expect([blob.status, blob.type, blob.blobGasUsed]).toEqual(['success', 'eip4844', 131_072n]);
    });

    it('getLogs with the DemoToken Transfer event ABI: blocks 8–10 decoded, an indexed-arg filter, a block hash', async () => {
      const logs = await client.getLogs({ address: TOKEN, event: transferEvent, fromBlock: 8n, toBlock: 10n });
      expect(logs.map((l) => [Number(l.blockNumber), l.transactionIndex, l.args.from!.toLowerCase(), l.args.to!.toLowerCase(), l.args.value])).toEqual(
        TRANSFERS_8_TO_10,
      );
      expect(logs[0].topics[0]).toBe(TRANSFER_TOPIC);
      expect(logs[0].transactionHash).toBe(TX.deployToken);
      expect(logs[1].transactionHash).toBe(TX.tokenTransfer);

      const toDave = await client.getLogs({ address: TOKEN, event: transferEvent, args: { to: DAVE }, fromBlock: 8n, toBlock: 10n });
      expect(toDave.map((l) => [l.blockNumber, l.args.from!.toLowerCase(), l.args.value])).toEqual([[10n, ALICE, 100n * ETH]]);

      const b15 = await client.getLogs({ blockHash: BLOCK[15] });
      expect(b15).toHaveLength(9); // README: block 15 has 9 logs
      expect(b15.every((l) => l.blockHash === BLOCK[15] && l.blockNumber === 15n)).toBe(true);
      expect(b15.map((l) => l.logIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('getLogs over the whole chain: summing Transfer logs reproduces the recorded token balances', async () => {
      const logs = await client.getLogs({ address: TOKEN, event: transferEvent, fromBlock: 0n, toBlock: 'latest' });
      const net = (who: string) =>
        logs.reduce((sum, l) => sum + (l.args.to!.toLowerCase() === who ? l.args.value! : 0n) - (l.args.from!.toLowerCase() === who ? l.args.value! : 0n), 0n);
      expect(net(ALICE)).toBe(valueAt(TDT_ALICE_HISTORY, HEAD));
      expect(net(BOB)).toBe(valueAt(TDT_BOB_HISTORY, HEAD));
    });

    it('getStorageAt: StateBox counter and a nested-mapping slot at historic blocks', async () => {
      for (const b of [0, 5, 14, 15, 19, 20, 63, 64]) {
        expect(await client.getStorageAt({ address: STATEBOX, slot: SLOT0, blockNumber: BigInt(b) }), `counter @${b}`).toBe(word(valueAt(COUNTER_HISTORY, b)));
      }
      expect(await client.getStorageAt({ address: STATEBOX, slot: GRID_ALICE_7, blockNumber: 18n })).toBe(word(43n));
      expect(await client.getStorageAt({ address: STATEBOX, slot: GRID_ALICE_7, blockNumber: 19n })).toBe(word(44n));
      expect(await client.getStorageAt({ address: STATEBOX, slot: SLOT0 })).toBe(word(64n));
    });

    it('createAccessList: the grid[alice][7] getter at block 41 touches StateBox with that slot only', async () => {
      const r = await client.createAccessList({
        account: ALICE,
        to: STATEBOX,
        data: encodeFunctionData({ abi: stateBoxAbi, functionName: 'grid', args: [ALICE, 7n] }),
        blockNumber: 41n,
      });
      expect(r.accessList).toEqual([{ address: STATEBOX, storageKeys: [GRID_ALICE_7] }]);
      expect(r.gasUsed).toBeGreaterThan(21_000n);
    });

    it('simulateCalls: alice sends bob 5 TDT at block 10, the balance of bob before and after, the Transfer log and an ETH transfer log', async () => {
      const before = valueAt(TDT_BOB_HISTORY, 10);
      const { results } = await client.simulateCalls({
        account: ALICE,
        blockNumber: 10n,
        traceTransfers: true,
        calls: [
          { to: TOKEN, abi: tokenAbi, functionName: 'balanceOf', args: [BOB] },
          { to: TOKEN, abi: tokenAbi, functionName: 'transfer', args: [BOB, 5n * ETH] },
          { to: TOKEN, abi: tokenAbi, functionName: 'balanceOf', args: [BOB] },
          { to: CAROL, value: 1n },
        ],
      });
      expect(results.map((r) => r.status)).toEqual(['success', 'success', 'success', 'success']);
      expect(results[0]!.result).toBe(before);
      expect(results[1]!.result).toBe(true);
      expect(results[2]!.result).toBe(before + 5n * ETH);
      const transfer = results[1]!.logs!.map((l) => decodeEventLog({ abi: [transferEvent], data: l.data, topics: l.topics }));
      expect(
        transfer.map((e) => e.args as { from: string; to: string; value: bigint }).map((a) => [a.from.toLowerCase(), a.to.toLowerCase(), a.value]),
      ).toEqual([[ALICE.toLowerCase(), BOB.toLowerCase(), 5n * ETH]]);
      // ERC-7528: the 1 wei sent to carol as a Transfer log from 0xeeee…
      expect(results[3]!.logs!.map((l) => [l.address.toLowerCase(), l.topics[2]?.slice(26)])).toEqual([
        ['0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', CAROL.slice(2).toLowerCase()],
      ]);
    });

    it('getProof: StateBox at block 15, verified against the block stateRoot', async () => {
      const p = await client.getProof({ address: STATEBOX, storageKeys: [SLOT0, GRID_ALICE_7], blockNumber: 15n });
      expect(p.address).toBe(STATEBOX);
      expect(p.nonce).toBe(1);
      expect(p.balance).toBe(0n);
      expect(p.storageProof.map((s) => s.value)).toEqual([valueAt(COUNTER_HISTORY, 15), valueAt(GRID_ALICE_7_HISTORY, 15)]);

      const { stateRoot } = await client.getBlock({ blockNumber: 15n });
      const leaf = verifyProof(
        hexToBytes(stateRoot),
        hexToBytes(STATEBOX),
        p.accountProof.map((n) => hexToBytes(n)),
      );
      expect(leaf).not.toBeNull();
      const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf!) as Uint8Array[];
      expect([nonce.length ? hexToBigInt(toHex(nonce)) : 0n, balance.length ? hexToBigInt(toHex(balance)) : 0n]).toEqual([1n, 0n]);
      expect(toHex(storageRoot)).toBe(p.storageHash);
      expect(toHex(codeHash)).toBe(p.codeHash);
      p.storageProof.forEach((sp, i) => {
        const v = verifyProof(
          hexToBytes(p.storageHash),
          hexToBytes([SLOT0, GRID_ALICE_7][i] as `0x${string}`),
          sp.proof.map((n) => hexToBytes(n)),
        );
        expect(hexToBigInt(toHex(RLP.decode(v!) as Uint8Array))).toBe(sp.value);
      });
    });

    it('call: raw calldata at latest and at a historic block', async () => {
      const supply = await client.call({ to: TOKEN, data: encodeFunctionData({ abi: tokenAbi, functionName: 'totalSupply' }) });
      expect(supply.data).toBe(word(1_000_000n * ETH));
      const counter = await client.call({ to: STATEBOX, data: encodeFunctionData({ abi: stateBoxAbi, functionName: 'counter' }), blockNumber: 5n });
      expect(counter.data).toBe(word(3n));
      // before DemoToken existed, a call to its address returns nothing
      const early = await client.call({ to: TOKEN, data: encodeFunctionData({ abi: tokenAbi, functionName: 'totalSupply' }), blockNumber: 7n });
      expect(early.data).toBeUndefined();
    });

    it('readContract: DemoToken balanceOf at historic blocks and latest, symbol, StateBox.grid', async () => {
      for (const b of [8, 9, 10, 21, 30, 56, 63, 64]) {
        expect(await client.readContract({ address: TOKEN, abi: tokenAbi, functionName: 'balanceOf', args: [BOB], blockNumber: BigInt(b) }), `bob @${b}`).toBe(
          valueAt(TDT_BOB_HISTORY, b),
        );
      }
      expect(await client.readContract({ address: TOKEN, abi: tokenAbi, functionName: 'balanceOf', args: [ALICE], blockNumber: 8n })).toBe(1_000_000n * ETH);
      expect(await client.readContract({ address: TOKEN, abi: tokenAbi, functionName: 'balanceOf', args: [ALICE] })).toBe(valueAt(TDT_ALICE_HISTORY, HEAD));
      expect(await client.readContract({ address: TOKEN, abi: tokenAbi, functionName: 'symbol' })).toBe('TDT');
      expect(await client.readContract({ address: STATEBOX, abi: stateBoxAbi, functionName: 'grid', args: [ALICE, 7n], blockNumber: 42n })).toBe(45n);
    });

    it('readContract / call: Probe.env() at block 30 sees that block’s context (geth NoBaseFee rule without fee fields)', async () => {
      const env = await client.readContract({ address: PROBE, abi: probeAbi, functionName: 'env', blockNumber: 30n, account: ALICE });
      const [number, parentHash, timestamp, coinbase, prevRandao, gasLimit, baseFee, chainId, selfBalance, origin, gasPrice] = env;
      expect([number, parentHash, timestamp, coinbase.toLowerCase(), gasLimit, chainId, origin.toLowerCase()]).toEqual([
        30n,
        BLOCK[29],
        1_700_000_379n,
        FEE_RECIPIENT_A,
        30_000_000n,
        BigInt(CHAIN_ID),
        ALICE,
      ]);
      expect(prevRandao).toBe(hexToBigInt(keccak256(stringToHex('tracenode-demo:prevrandao:30'))));
      expect(selfBalance).toBe(ETH + ETH / 2n); // 1 ETH in block 10, 0.5 ETH in block 21
      // geth runs a call that pays nothing with BASEFEE 0 (vm.Config.NoBaseFee) and GASPRICE 0
      expect([baseFee, gasPrice]).toEqual([0n, 0n]);

      // with fee fields, BASEFEE is block 30's base fee and GASPRICE the effective price
      const paid = await client.call({
        account: ALICE,
        to: PROBE,
        data: encodeFunctionData({ abi: probeAbi, functionName: 'env' }),
        blockNumber: 30n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
      });
      const envPaid = decodeFunctionResult({ abi: probeAbi, functionName: 'env', data: paid.data! });
      expect([envPaid[0], envPaid[6], envPaid[10]]).toEqual([30n, 56_637_594n, 56_637_595n]);
    });

    it('readContract of a function reverting with Error(string): the decoded reason', async () => {
      const r = await revertOf(client.readContract({ address: THROWER, abi: throwerAbi, functionName: 'failWithReason' }));
      expect(r.reason).toBe(REASON);
      expect(r.data?.errorName).toBe('Error');
      expect(r.data?.args).toEqual([REASON]);
      expect(r.raw).toBe(REASON_DATA);
    });

    it('readContract of a function reverting with a custom error: decoded via the ABI', async () => {
      const r = await revertOf(client.readContract({ address: THROWER, abi: throwerAbi, functionName: 'failWithCustomError' }));
      expect(r.data?.errorName).toBe('Unauthorized');
      expect(r.data?.args).toEqual(['0x0000000000000000000000000000000000000000', 42n]);
      expect(r.raw).toBe(unauthorizedData('0x0000000000000000000000000000000000000000'));
    });

    it('simulateContract: success returns the result; reverts decode Error(string), custom errors and Panic', async () => {
      const ok = await client.simulateContract({ account: ALICE, address: TOKEN, abi: tokenAbi, functionName: 'transfer', args: [BOB, 1n] });
      expect(ok.result).toBe(true);

      const custom = await revertOf(client.simulateContract({ account: ALICE, address: THROWER, abi: throwerAbi, functionName: 'failWithCustomError' }));
      expect(custom.data?.errorName).toBe('Unauthorized');
      expect((custom.data!.args as unknown[]).map((a) => (typeof a === 'string' ? a.toLowerCase() : a))).toEqual([ALICE, 42n]);

      const reason = await revertOf(client.simulateContract({ account: ALICE, address: THROWER, abi: throwerAbi, functionName: 'failWithReason' }));
      expect(reason.reason).toBe(REASON);

      // DemoToken: bob (726 TDT at the head) sends 1000 TDT → InsufficientBalance(bob, 726 TDT, 1000 TDT)
      const balance = await revertOf(
        client.simulateContract({ account: BOB, address: TOKEN, abi: tokenAbi, functionName: 'transfer', args: [CAROL, 1000n * ETH] }),
      );
      expect(balance.data?.errorName).toBe('InsufficientBalance');
      expect((balance.data!.args as unknown[]).map((a) => (typeof a === 'string' ? a.toLowerCase() : a))).toEqual([
        BOB,
        valueAt(TDT_BOB_HISTORY, HEAD),
        1000n * ETH,
      ]);

      // DemoToken: carol's allowance from alice is 0 since block 42 → Error("DemoToken: insufficient allowance")
      const allowance = await revertOf(
        client.simulateContract({ account: CAROL, address: TOKEN, abi: tokenAbi, functionName: 'transferFrom', args: [ALICE, CAROL, 1n] }),
      );
      expect(allowance.reason).toBe(ALLOWANCE_REASON);
      // …but at block 41 it was still 400 TDT, so the same call succeeds there
      const before = await client.simulateContract({
        account: CAROL,
        address: TOKEN,
        abi: tokenAbi,
        functionName: 'transferFrom',
        args: [ALICE, CAROL, 1n],
        blockNumber: 41n,
      });
      expect(before.result).toBe(true);

      const panic = await revertOf(client.simulateContract({ account: DAVE, address: THROWER, abi: throwerAbi, functionName: 'failWithPanic', args: [0n] }));
      expect(panic.data?.errorName).toBe('Panic');
      expect(panic.data?.args).toEqual([0x12n]);
      expect(panic.raw).toBe(PANIC_DIV_ZERO_DATA);
      expect(panic.reason).toMatch(/division or modulo by zero/i);
    });
  });
}

describe('viem http({ batch: true })', () => {
  it('concurrent reads go as one JSON-RPC batch and each gets its own answer', async () => {
    const bodies: unknown[] = [];
    const client = createPublicClient({
      transport: http(httpUrl(server), {
        batch: true,
        onFetchRequest: (_request, init) => {
          bodies.push(JSON.parse(String(init.body)));
        },
      }),
    });
    const [chainId, number, balance, counter] = await Promise.all([
      client.getChainId(),
      client.getBlockNumber({ cacheTime: 0 }),
      client.getBalance({ address: RARE_1, blockNumber: 3n }),
      client.readContract({ address: STATEBOX, abi: stateBoxAbi, functionName: 'counter', blockNumber: 20n }),
    ]);
    expect([chainId, number, balance, counter]).toEqual([CHAIN_ID, BigInt(HEAD), ETH, 20n]);
    expect(bodies).toHaveLength(1);
    expect((bodies[0] as Array<{ method: string }>).map((r) => r.method).sort()).toEqual(['eth_blockNumber', 'eth_call', 'eth_chainId', 'eth_getBalance']);
  });
});

function toHex(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}
