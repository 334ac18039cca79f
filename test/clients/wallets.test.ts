import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JsonRpcProvider, Wallet } from 'ethers';
import {
  type BaseError,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  type Hex,
  http,
  keccak256,
  type Log,
  parseGwei,
  RpcRequestError,
  webSocket,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Web3 } from 'web3';
import WebSocket from 'ws';
import { type BareAnvil, startBareAnvil } from '../../scripts/anvil/bareAnvil.js';
import { accountFor } from '../../scripts/anvil/chainParams.js';
import { TICK_ABI, TICK_INITCODE } from '../../scripts/anvil/tickContract.js';
import { initDatadir } from '../../src/import/init.js';
import { type RawAnswer, rawCall, untilCaughtUp } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { type ServeCli, startServeCli } from '../helpers/cli.js';
import { CAST_BIN, describeWithFoundry } from '../helpers/foundry.js';
import { liveCounts, untilSubscribed } from '../helpers/liveCounts.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * A wallet's day through tracenode only (issue 27): `tracenode serve --follow ws://anvil` beside an
 * anvil as users run it (automine: each transaction mined as it is sent, blocks mined in one
 * second sharing its timestamp). ethers, viem, web3.js and cast are given tracenode's URL and
 * nothing else; they send, wait for receipts, deploy and call a contract, watch its events. Every
 * receipt is compared with anvil's own; every refusal ("nonce too low", "max fee per gas less than
 * block base fee", "Insufficient funds…") must reach the client exactly as anvil answers the same
 * signed bytes.
 */

const describe = describeWithFoundry(['anvil', 'cast'], 'wallet flows through tracenode');
const tmp = tempDir('tracenode-wallets-');
const KEY = 'wallet-key';
let anvil: BareAnvil;
let serve: ServeCli;
const url = () => `${serve.base}/v3/${KEY}`;
const wsUrl = () => `${serve.base.replace('http://', 'ws://')}/ws/v3/${KEY}`;

const alice = accountFor('alice');
const bob = accountFor('bob');
/** A key with no ether. */
const POOR_KEY: Hex = `0x${'11'.repeat(32)}`;
const CHAIN = { id: 31337, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } } as const;

beforeAll(async () => {
  anvil = await startBareAnvil(join(tmp.dir, 'anvil'), { automine: true });
  const datadir = join(tmp.dir, 'data');
  await initDatadir(datadir, readFileSync(anvil.genesisPath, 'utf8'), testConfig());
  serve = await startServeCli([
    ...['--datadir', datadir, '--port', '0', '--api-keys', KEY, '--log-level', 'warn'],
    ...['--follow', anvil.url.replace('http://', 'ws://')],
  ]);
  await untilCaughtUp(anvil.url, url());
}, 60_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await anvil?.stop();
  tmp.cleanup();
});

/** anvil's receipt of `hash` (the independent source every receipt is compared with). */
const anvilReceipt = async (hash: string) => (await rawCall(anvil.url, 'eth_getTransactionReceipt', [hash])).result as Record<string, unknown>;
/** tracenode's receipt of `hash`. */
const ourReceipt = async (hash: string) => (await rawCall(url(), 'eth_getTransactionReceipt', [hash])).result as Record<string, unknown> | null;

/** Signs an EIP-1559 transfer of `value` wei from `key` at `nonce` (default: the pending one, asked of tracenode). */
async function signed(key: Hex, opts: { nonce?: number; value?: bigint; maxFeePerGas?: bigint } = {}): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const nonce = opts.nonce ?? Number(BigInt((await rawCall(url(), 'eth_getTransactionCount', [account.address, 'pending'])).result as string));
  return account.signTransaction({
    chainId: CHAIN.id,
    type: 'eip1559',
    nonce,
    to: bob.address,
    value: opts.value ?? 1n,
    gas: 21_000n,
    maxFeePerGas: opts.maxFeePerGas ?? parseGwei('100'),
    maxPriorityFeePerGas: opts.maxFeePerGas === undefined ? parseGwei('1') : opts.maxFeePerGas,
  });
}

/** The three refusals, each as signed bytes and as anvil answers them (sent to anvil only to learn its answer). */
async function refusals(): Promise<Array<{ name: string; raw: Hex; anvil: RawAnswer['error'] }>> {
  const cases = [
    { name: 'nonce too low', raw: await signed(alice.privateKey, { nonce: 0 }) },
    { name: 'fee cap below the base fee', raw: await signed(alice.privateKey, { maxFeePerGas: 1n }) },
    { name: 'insufficient funds', raw: await signed(POOR_KEY, { nonce: 0 }) },
  ];
  return Promise.all(cases.map(async (c) => ({ ...c, anvil: (await rawCall(anvil.url, 'eth_sendRawTransaction', [c.raw])).error })));
}

describe('wallets through tracenode', () => {
  it('eth_sendRawTransaction is relayed: the hash, and anvil’s refusals unchanged (code, message) over HTTP', async () => {
    const raw = await signed(alice.privateKey, { value: 7n });
    const sent = await rawCall(url(), 'eth_sendRawTransaction', [raw]);
    expect([sent.result, sent.error]).toEqual([keccak256(raw), undefined]);
    const cases = await refusals();
    expect(cases.map((c) => c.anvil)).toEqual([
      { code: -32003, message: 'nonce too low' },
      { code: -32003, message: 'max fee per gas less than block base fee' },
      { code: -32003, message: 'Insufficient funds for gas * price + value' },
    ]);
    for (const c of cases) expect((await rawCall(url(), 'eth_sendRawTransaction', [c.raw])).error, c.name).toEqual(c.anvil);
    // Not hex: refused here, as geth does, before anything is sent.
    expect((await rawCall(url(), 'eth_sendRawTransaction', ['0xzz'])).error).toEqual({ code: -32602, message: 'invalid argument 0: invalid hex string' });
  });

  it('a transaction in anvil’s pool: pending nonce, eth_getTransactionByHash (pending), eth_getRawTransactionByHash, newPendingTransactions', async () => {
    const ws = new WebSocket(wsUrl());
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const notified: string[] = [];
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.method === 'eth_subscription') notified.push(msg.params.result);
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions'] }));
    await rawCall(anvil.url, 'evm_setAutomine', [false]);
    try {
      await untilCaughtUp(anvil.url, url());
      const latest = (await rawCall(url(), 'eth_getTransactionCount', [alice.address, 'latest'])).result as string;
      const raw = await signed(alice.privateKey, { value: 11n });
      const hash = keccak256(raw);
      expect((await rawCall(url(), 'eth_sendRawTransaction', [raw])).result).toBe(hash);
      // The pool counts it: pending is one past latest, as anvil says.
      expect((await rawCall(url(), 'eth_getTransactionCount', [alice.address, 'pending'])).result).toBe(`0x${(BigInt(latest) + 1n).toString(16)}`);
      expect((await rawCall(url(), 'eth_getTransactionCount', [alice.address, 'latest'])).result).toBe(latest);
      // Found in the pool, rendered as pending: anvil's own answer, field for field.
      const theirs = (await rawCall(anvil.url, 'eth_getTransactionByHash', [hash])).result as Record<string, unknown>;
      const ours = (await rawCall(url(), 'eth_getTransactionByHash', [hash])).result as Record<string, unknown>;
      expect([ours.blockHash, ours.blockNumber, ours.transactionIndex]).toEqual([null, null, null]);
      for (const field of [
        'hash',
        'from',
        'to',
        'nonce',
        'value',
        'input',
        'gas',
        'maxFeePerGas',
        'maxPriorityFeePerGas',
        'chainId',
        'type',
        'r',
        's',
        'yParity',
      ])
        expect(ours[field], field).toBe(theirs[field]);
      expect((await rawCall(url(), 'eth_getRawTransactionByHash', [hash])).result).toBe(raw);
      expect((await rawCall(url(), 'eth_getTransactionReceipt', [hash])).result).toBeNull();
      await until(
        'the pending hash notified',
        () => notified,
        (n) => n.includes(hash),
      );
      // Mined: the block's view replaces the pool's.
      await rawCall(anvil.url, 'evm_mine', []);
      await untilCaughtUp(anvil.url, url());
      const mined = (await rawCall(url(), 'eth_getTransactionByHash', [hash])).result as Record<string, unknown>;
      expect(mined.blockHash).toBe((await anvilReceipt(hash)).blockHash);
    } finally {
      await rawCall(anvil.url, 'evm_setAutomine', [true]);
      ws.close();
    }
  });

  it('a receipt asked for right after the send is the receipt, every time: the answer waits for the block anvil already mined', async () => {
    for (let i = 0; i < 20; i++) {
      const raw = await signed(alice.privateKey, { value: BigInt(100 + i) });
      const hash = (await rawCall(url(), 'eth_sendRawTransaction', [raw])).result as string;
      // One ask, no polling: anvil (automine) has mined it; tracenode answers once it has executed that block.
      const ours = await ourReceipt(hash);
      const theirs = await anvilReceipt(hash);
      expect(ours, `send ${i}`).not.toBeNull();
      expect([ours?.blockHash, ours?.gasUsed, ours?.status]).toEqual([theirs.blockHash, theirs.gasUsed, theirs.status]);
    }
  });

  it('ethers v6: Wallet.sendTransaction + wait() through tracenode; the receipt is anvil’s; its errors carry anvil’s', async () => {
    const provider = new JsonRpcProvider(url(), undefined, { staticNetwork: true, pollingInterval: 50 });
    const wallet = new Wallet(alice.privateKey, provider);
    const tx = await wallet.sendTransaction({ to: bob.address, value: 1000n });
    // ethers' wait() looks for the receipt once, then on each new block its poller sees: on a quiet
    // automining chain no block comes after the one holding the transaction, so a first answer of
    // null would leave it waiting for ever. tracenode's first answer is the receipt.
    const receipt = await tx.wait();
    expect(receipt?.status).toBe(1);
    const theirs = await anvilReceipt(tx.hash);
    expect([receipt?.blockHash, receipt?.blockNumber, receipt?.gasUsed]).toEqual([
      theirs.blockHash,
      Number(theirs.blockNumber),
      BigInt(theirs.gasUsed as string),
    ]);
    // A nonce already used: ethers reads anvil's refusal as NONCE_EXPIRED, with anvil's error inside.
    const [nonceTooLow, , poor] = await refusals();
    type EthersError = { code: string; info?: { error: unknown } };
    const err = (await wallet.sendTransaction({ to: bob.address, value: 1n, nonce: 0 }).catch((e: unknown) => e)) as EthersError;
    expect([err.code, err.info?.error]).toEqual(['NONCE_EXPIRED', nonceTooLow.anvil]);
    // With a gas limit given, ethers estimates nothing (tracenode's own eth_estimateGas would refuse
    // first, in geth's words) and the refusal is anvil's.
    const broke = new Wallet(POOR_KEY, provider);
    const err2 = (await broke.sendTransaction({ to: bob.address, value: 1n, gasLimit: 21_000n }).catch((e: unknown) => e)) as EthersError;
    expect([err2.code, err2.info?.error]).toEqual(['INSUFFICIENT_FUNDS', poor.anvil]);
    provider.destroy();
  });

  it('viem: deploy, watchContractEvent over WebSocket, sendTransaction + waitForTransactionReceipt; errors carry anvil’s', async () => {
    const account = privateKeyToAccount(bob.privateKey);
    const wallet = createWalletClient({ account, chain: CHAIN, transport: http(url()) });
    const client = createPublicClient({ chain: CHAIN, transport: http(url()), pollingInterval: 50 });
    const deployHash = await wallet.sendTransaction({ data: TICK_INITCODE, gas: 200_000n });
    const deployed = await client.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50 });
    expect(deployed.contractAddress).toBe((await anvilReceipt(deployHash)).contractAddress);
    const ticker = deployed.contractAddress!;

    const watcher = createPublicClient({ chain: CHAIN, transport: webSocket(wsUrl()) });
    const seen: Log[] = [];
    const errors: unknown[] = [];
    const before = await liveCounts(serve.base);
    const unwatch = watcher.watchContractEvent({ address: ticker, abi: TICK_ABI, onLogs: (logs) => seen.push(...logs), onError: (e) => errors.push(e) });
    await untilSubscribed(serve.base, before, { subscriptions: 1, filters: 0 });
    const hash = await wallet.sendTransaction({ to: ticker, data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [7n, 42n]), gas: 100_000n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const theirs = await anvilReceipt(hash);
    expect([receipt.blockHash, receipt.logs.length]).toEqual([theirs.blockHash, 1]);
    await until(
      'the watcher saw the log',
      () => seen.length,
      (n) => n > 0,
    );
    unwatch();
    expect(errors).toEqual([]);
    expect(seen.map((l) => [l.transactionHash, l.blockHash, (l as unknown as { args: unknown }).args])).toEqual([
      [hash, theirs.blockHash, { id: 7n, value: 42n }],
    ]);

    const [nonceTooLow, lowFee] = await refusals();
    for (const [c, send] of [
      [nonceTooLow, () => wallet.sendTransaction({ to: bob.address, value: 1n, nonce: 0 })],
      [lowFee, () => wallet.sendTransaction({ to: bob.address, value: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, gas: 21_000n })],
    ] as const) {
      const err = await send().catch((e: unknown) => e as BaseError);
      const rpc = (err as BaseError).walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
      expect([rpc?.code, rpc?.details], c.name).toEqual([c.anvil?.code, c.anvil?.message]);
    }
    await watcher.transport.getRpcClient().then((r) => r.close());
  });

  it('web3.js v4: sendSignedTransaction with its transactionHash and receipt events; its errors carry anvil’s', async () => {
    const web3 = new Web3(url());
    web3.transactionPollingInterval = 50;
    const signedTx = await web3.eth.accounts.signTransaction(
      { from: alice.address, to: bob.address, value: 5n, gas: 21_000n, maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('1') },
      alice.privateKey,
    );
    const events: string[] = [];
    const receipt = await web3.eth
      .sendSignedTransaction(signedTx.rawTransaction)
      .on('transactionHash', (h) => {
        events.push(`hash ${h}`);
      })
      .on('receipt', (r) => {
        events.push(`receipt ${r.blockHash}`);
      });
    const theirs = await anvilReceipt(String(receipt.transactionHash));
    expect(events).toEqual([`hash ${signedTx.transactionHash}`, `receipt ${theirs.blockHash}`]);
    expect([receipt.blockHash, receipt.status]).toEqual([theirs.blockHash, 1n]);
    const [nonceTooLow] = await refusals();
    const err = (await web3.eth.sendSignedTransaction(nonceTooLow.raw).catch((e: unknown) => e)) as { cause?: { code?: number; message?: string } };
    expect([err.cause?.code, err.cause?.message]).toEqual([nonceTooLow.anvil?.code, nonceTooLow.anvil?.message]);
  });

  it('cast send --rpc-url tracenode: a transfer, a contract created with --create then called; an error as anvil says it', async () => {
    const cast = async (...args: string[]) => (await promisify(execFile)(CAST_BIN, args, { timeout: 30_000 })).stdout;
    const common = ['--rpc-url', url(), '--private-key', bob.privateKey, '--json'];
    const transfer = JSON.parse(await cast('send', ...common, alice.address, '--value', '3'));
    expect([transfer.status, transfer.blockHash]).toEqual(['0x1', (await anvilReceipt(transfer.transactionHash)).blockHash]);
    const created = JSON.parse(await cast('send', ...common, '--create', TICK_INITCODE));
    const address = (await anvilReceipt(created.transactionHash)).contractAddress as string;
    expect(created.contractAddress).toBe(address);
    const calldata = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [9n, 99n]);
    const called = JSON.parse(await cast('send', ...common, address, calldata));
    const theirs = await anvilReceipt(called.transactionHash);
    expect([called.blockHash, called.logs.length, called.logs[0].data]).toEqual([theirs.blockHash, 1, encodeAbiParameters([{ type: 'uint256' }], [99n])]);
    // anvil adds two fields of its own to receipts: blobGasPrice on every transaction, blockTimestamp.
    const { blobGasPrice: _b, blockTimestamp: _t, ...anvilFields } = theirs;
    expect(await ourReceipt(called.transactionHash)).toEqual(anvilFields);
    const [nonceTooLow] = await refusals();
    const failed = await promisify(execFile)(CAST_BIN, ['publish', '--rpc-url', url(), nonceTooLow.raw], { timeout: 30_000 }).catch(
      (e: { stderr: string }) => e,
    );
    expect((failed as { stderr: string }).stderr).toContain(`${nonceTooLow.anvil?.message}`);
  });
});
