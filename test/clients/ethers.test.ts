/**
 * ethers v6, as a backend runs it: `JsonRpcProvider` (which batches concurrent requests into JSON-RPC
 * batches) and `WebSocketProvider` against a real tracenode serving the demo chain. Expected values
 * are the demo generator's record (fixtures/demo/README.md), never just "no error".
 */
import { Contract, getAddress, Interface, isCallException, JsonRpcProvider, keccak256, toUtf8Bytes, WebSocketProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import {
  ALICE,
  ALLOWANCE_REASON,
  BLOB_VERSIONED_HASH,
  BLOCK,
  BOB,
  CAROL,
  CHAIN_ID,
  COUNTER_HISTORY,
  DEMO_DIR,
  ETH,
  FEE_RECIPIENT_A,
  HEAD,
  httpUrl,
  PANIC_DIV_ZERO_DATA,
  RARE_1,
  REASON,
  REASON_DATA,
  SLOT0,
  STATEBOX,
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
  word,
  wsUrl,
} from './demo.js';

const tokenIface = new Interface(TOKEN_ABI);
const throwerIface = new Interface(THROWER_ABI);
const ZERO = '0x0000000000000000000000000000000000000000';

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(DEMO_DIR);
});
afterAll(async () => {
  await server?.close();
});

/** The CALL_EXCEPTION error ethers throws for a reverting call. */
async function callException(p: Promise<unknown>) {
  const err = await p.then(
    () => {
      throw new Error('expected the call to revert');
    },
    (e: unknown) => e,
  );
  if (!isCallException(err)) throw new Error(`expected CALL_EXCEPTION, got ${String(err)}`);
  return err;
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

for (const kind of ['JsonRpcProvider', 'WebSocketProvider'] as const) {
  describe(`ethers ${kind}`, () => {
    let provider: JsonRpcProvider | WebSocketProvider;
    beforeAll(() => {
      provider = kind === 'JsonRpcProvider' ? new JsonRpcProvider(httpUrl(server)) : new WebSocketProvider(wsUrl(server));
    });
    afterAll(async () => {
      await provider?.destroy();
    });

    it('getNetwork().chainId, getBlockNumber', async () => {
      expect((await provider.getNetwork()).chainId).toBe(BigInt(CHAIN_ID));
      expect(await provider.getBlockNumber()).toBe(HEAD);
    });

    it('getBlock: by number (20) with prefetched transactions, by hash (11, with uncles), latest', async () => {
      const b = await provider.getBlock(20);
      expect(b).not.toBeNull();
      expect([b!.hash, b!.parentHash, b!.number, b!.miner, b!.baseFeePerGas, b!.gasUsed, b!.timestamp, b!.difficulty]).toEqual([
        BLOCK[20],
        BLOCK[19],
        20,
        getAddress(FEE_RECIPIENT_A),
        213_316_962n,
        49_629n,
        1_700_000_259,
        0n,
      ]);
      expect(b!.prevRandao).toBe(keccak256(toUtf8Bytes('tracenode-demo:prevrandao:20')));
      expect(b!.transactions).toHaveLength(2);
      expect(b!.transactions[0]).toBe(TX.firstPos);

      const full = await provider.getBlock(BLOCK[20], true);
      const tx = full!.prefetchedTransactions[0];
      expect([tx.hash, tx.from, tx.to, tx.type, tx.blockNumber, tx.index, tx.chainId]).toEqual([
        TX.firstPos,
        getAddress(ALICE),
        getAddress(BOB),
        2,
        20,
        0,
        BigInt(CHAIN_ID),
      ]);

      const b11 = await provider.getBlock(BLOCK[11]);
      expect([b11!.number, b11!.hash, b11!.baseFeePerGas, b11!.transactions.length]).toEqual([11, BLOCK[11], 698_796_592n, 2]);
      expect(await provider.send('eth_getUncleCountByBlockHash', [BLOCK[11]])).toBe('0x2');
      expect((await provider.send('eth_getBlockByHash', [BLOCK[11], false])).uncles).toEqual([...UNCLES_11]);

      const head = await provider.getBlock('latest');
      expect([head!.number, head!.hash, head!.baseFeePerGas]).toEqual([HEAD, BLOCK[64], 725_568n]);
      const b28 = await provider.getBlock(28);
      expect([b28!.hash, b28!.blobGasUsed]).toEqual([BLOCK[28], 131_072n]);
    });

    it('getBalance at historic blocks', async () => {
      expect(await provider.getBalance(ALICE, 0)).toBe(10_000n * ETH);
      expect(await provider.getBalance(RARE_1, 2)).toBe(0n);
      expect(await provider.getBalance(RARE_1, 3)).toBe(ETH);
      expect(await provider.getBalance(RARE_1, 40)).toBe(ETH + ETH / 2n);
      expect(await provider.getBalance(RARE_1)).toBe(ETH + ETH / 2n);
    });

    it('getTransaction: EIP-1559, pre-EIP-155 legacy, blob', async () => {
      const t = await provider.getTransaction(TX.firstPos);
      expect([t!.blockHash, t!.blockNumber, t!.index, t!.from, t!.to, t!.type]).toEqual([BLOCK[20], 20, 0, getAddress(ALICE), getAddress(BOB), 2]);
      const legacy = await provider.getTransaction(TX.preEip155);
      // no chain id in a pre-EIP-155 signature: geth omits `chainId`, ethers leaves it null
      expect([legacy!.blockNumber, legacy!.from, legacy!.to, legacy!.type, legacy!.chainId]).toEqual([1, getAddress(BOB), getAddress(CAROL), 0, null]);
      expect([27, 28]).toContain(legacy!.signature.v);
      expect(legacy!.signature.legacyChainId).toBeNull();
      const blob = await provider.getTransaction(TX.blob);
      expect([blob!.blockNumber, blob!.type, blob!.blobVersionedHashes]).toEqual([28, 3, [BLOB_VERSIONED_HASH]]);
    });

    it('getTransactionReceipt: token transfer with its Transfer log, contract creation, a failed tx', async () => {
      const r = await provider.getTransactionReceipt(TX.tokenTransfer);
      expect([r!.status, r!.blockNumber, r!.blockHash, r!.index, r!.from, r!.to]).toEqual([1, 9, BLOCK[9], 3, getAddress(ALICE), getAddress(TOKEN)]);
      expect(r!.logs).toHaveLength(1);
      const ev = tokenIface.parseLog(r!.logs[0]);
      expect([ev!.name, ev!.args.from, ev!.args.to, ev!.args.value]).toEqual(['Transfer', getAddress(ALICE), getAddress(BOB), 1000n * ETH]);

      const deploy = await provider.getTransactionReceipt(TX.deployToken);
      expect([deploy!.status, deploy!.blockNumber, deploy!.to, deploy!.contractAddress]).toEqual([1, 8, null, getAddress(TOKEN)]);

      const failed = await provider.getTransactionReceipt(TX.failedReason);
      expect([failed!.status, failed!.blockNumber, failed!.logs.length]).toEqual([0, 14, 0]);
    });

    it('getLogs: DemoToken Transfer by topic over blocks 8–10, decoded; an indexed-topic filter; a block hash', async () => {
      const logs = await provider.getLogs({ address: TOKEN, topics: [TRANSFER_TOPIC], fromBlock: 8, toBlock: 10 });
      expect(
        logs.map((l) => {
          const ev = tokenIface.parseLog(l)!;
          return [l.blockNumber, l.transactionIndex, lower(ev.args.from), lower(ev.args.to), ev.args.value];
        }),
      ).toEqual(TRANSFERS_8_TO_10);
      expect(logs[1].transactionHash).toBe(TX.tokenTransfer);

      const daveTopic = tokenIface.encodeFilterTopics('Transfer', [null, TRANSFERS_8_TO_10[3][3]]);
      const toDave = await provider.getLogs({ address: TOKEN, topics: daveTopic, fromBlock: 8, toBlock: 10 });
      expect(toDave.map((l) => [l.blockNumber, l.transactionIndex])).toEqual([[10, 2]]);

      const b15 = await provider.getLogs({ blockHash: BLOCK[15] });
      expect(b15).toHaveLength(9);
      expect(b15.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('Contract.queryFilter and Contract reads at historic blocks', async () => {
      const token = new Contract(TOKEN, TOKEN_ABI, provider);
      const events = await token.queryFilter(token.filters.Transfer(ALICE), 8, 10);
      expect(events.map((e) => [e.blockNumber, lower((e as { args: unknown[] }).args[1]), (e as { args: unknown[] }).args[2]])).toEqual([
        [9, BOB, 1000n * ETH],
        [10, TRANSFERS_8_TO_10[3][3], 100n * ETH],
      ]);
      for (const b of [8, 9, 10, 30, 64]) {
        expect(await token.balanceOf(BOB, { blockTag: b }), `bob @${b}`).toBe(valueAt(TDT_BOB_HISTORY, b));
      }
      expect(await token.symbol()).toBe('TDT');
      expect(await provider.getStorage(STATEBOX, SLOT0, 15)).toBe(word(valueAt(COUNTER_HISTORY, 15)));
    });

    it('call: success at a historic block', async () => {
      expect(await provider.call({ to: TOKEN, data: tokenIface.encodeFunctionData('totalSupply'), blockTag: 8 })).toBe(word(1_000_000n * ETH));
      expect(await provider.call({ to: TOKEN, data: tokenIface.encodeFunctionData('balanceOf', [BOB]), blockTag: 9 })).toBe(word(1000n * ETH));
    });

    it('call with a revert: Error(string) → error.reason, error.revert, error.data', async () => {
      const e = await callException(provider.call({ to: THROWER, data: throwerIface.encodeFunctionData('failWithReason') }));
      expect(e.code).toBe('CALL_EXCEPTION');
      expect(e.reason).toBe(REASON);
      expect(e.revert).toEqual({ signature: 'Error(string)', name: 'Error', args: [REASON] });
      expect(e.data).toBe(REASON_DATA);
      expect(e.shortMessage).toBe(`execution reverted: "${REASON}"`);
    });

    it('call with a revert: custom error → raw error.data from the provider, decoded by a Contract with the ABI', async () => {
      const raw = await callException(provider.call({ to: THROWER, data: throwerIface.encodeFunctionData('failWithCustomError') }));
      expect([raw.reason, raw.revert, raw.data]).toEqual([null, null, unauthorizedData(ZERO)]);

      const thrower = new Contract(THROWER, THROWER_ABI, provider);
      const e = await callException(thrower.failWithCustomError.staticCall({ from: ALICE }));
      expect(e.data).toBe(unauthorizedData(ALICE));
      expect(e.revert?.name).toBe('Unauthorized');
      expect(e.revert?.signature).toBe('Unauthorized(address,uint256)');
      expect([...(e.revert?.args ?? [])]).toEqual([getAddress(ALICE), 42n]);
      expect(throwerIface.parseError(e.data!)?.name).toBe('Unauthorized');
    });

    it('call with a revert: Panic and a DemoToken Error(string) through a Contract; estimateGas of a revert', async () => {
      const thrower = new Contract(THROWER, THROWER_ABI, provider);
      const panic = await callException(thrower.failWithPanic.staticCall(0n));
      expect([panic.reason, panic.data, panic.revert?.name, panic.revert?.args]).toEqual([
        'Panic due to DIVIDE_BY_ZERO(18)',
        PANIC_DIV_ZERO_DATA,
        'Panic',
        [18],
      ]);

      const token = new Contract(TOKEN, TOKEN_ABI, provider);
      const allowance = await callException(token.transferFrom.staticCall(ALICE, CAROL, 1n, { from: CAROL }));
      expect(allowance.reason).toBe(ALLOWANCE_REASON);
      // at block 41 carol still had a 400 TDT allowance: the same call succeeds
      expect(await token.transferFrom.staticCall(ALICE, CAROL, 1n, { from: CAROL, blockTag: 41 })).toBe(true);

      const balance = await callException(token.transfer.staticCall(CAROL, 1000n * ETH, { from: BOB }));
      expect(balance.revert?.name).toBe('InsufficientBalance');
      expect([...(balance.revert?.args ?? [])]).toEqual([getAddress(BOB), valueAt(TDT_BOB_HISTORY, HEAD), 1000n * ETH]);

      const est = await callException(provider.estimateGas({ to: THROWER, data: throwerIface.encodeFunctionData('failWithReason'), from: ALICE }));
      expect([est.action, est.reason, est.data]).toEqual(['estimateGas', REASON, REASON_DATA]);
    });
  });
}

describe('ethers JsonRpcProvider batching', () => {
  it('concurrent requests go as one batch and each gets its own answer', async () => {
    const provider = new JsonRpcProvider(httpUrl(server), CHAIN_ID, { staticNetwork: true, batchMaxCount: 10 });
    const payloads: unknown[] = [];
    await provider.on('debug', (info: { action: string; payload?: unknown }) => {
      if (info.action === 'sendRpcPayload') payloads.push(info.payload);
    });
    try {
      const [n, bal, slot, block] = await Promise.all([
        provider.getBlockNumber(),
        provider.getBalance(RARE_1, 3),
        provider.getStorage(STATEBOX, SLOT0, 20),
        provider.getBlock(0),
      ]);
      expect([n, bal, slot, block!.hash]).toEqual([HEAD, ETH, word(20n), BLOCK[0]]);
      expect(payloads).toHaveLength(1);
      expect((payloads[0] as Array<{ method: string }>).map((r) => r.method).sort()).toEqual([
        'eth_blockNumber',
        'eth_getBalance',
        'eth_getBlockByNumber',
        'eth_getStorageAt',
      ]);
    } finally {
      provider.destroy();
    }
  });
});
