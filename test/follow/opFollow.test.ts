import { join } from 'node:path';
import { bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnvilProcess, startAnvil } from '../../scripts/anvil/anvilProcess.js';
import { opAnvilQuirksKept } from '../../src/chain/op/anvilQuirks.js';
import { encodeDepositTx } from '../../src/chain/op/depositTx.js';
import { type EthereumChain, openChain } from '../../src/chain/open.js';
import { initArchiveFrom } from '../../src/cli/archiveFrom.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { L1_BLOCK_ADDRESS } from '../../src/execution/op/l1Cost.js';
import { Follower } from '../../src/follow/follower.js';
import { readNodeGenesis } from '../../src/follow/nodeGenesis.js';
import { Upstream } from '../../src/follow/upstream.js';
import { UpstreamStateSource } from '../../src/follow/upstreamState.js';
import { importBlocks } from '../../src/import/importChain.js';
import { initDatadirFromNode } from '../../src/import/init.js';
import { createEthContext, type EthContext } from '../../src/methods/context.js';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { type RpcCall, rawResult, sendSigned } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import { recordingLog } from '../helpers/recordingLog.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';

/**
 * tracenode beside an OP-stack node, live: `anvil --network optimism` as users run it (anvil
 * 1.7.1: op-revm at Isthmus, a block per transaction) is followed from its genesis
 * (`init --from-node --op-upgrade isthmus`, then the follower) and, by a second datadir, from
 * block 3 (`init --from-node --at 3 --op-upgrade isthmus`: block 3 and its receipts checked
 * against their roots, the state every later block reads fetched with proofs), and what each
 * serves of every block it holds — the block in both forms, each transaction, each receipt, the balances of the
 * senders, receivers, coinbase and the three fee vaults, the contract's storage and code, the
 * block's traces — is anvil's answer, field by field, except where anvil's OP mode is known to
 * print otherwise (each named below with the rule that decides it).
 *
 * The L1 data fee and the operator fee are charged: L1Block's storage (anvil ships no predeploys)
 * is set before anvil mines its first block, as a genesis file would hold it, and init reads it
 * with the slots' proofs. The receipts' L1 fields are op-geth's (anvil prints none): each
 * block's `l1Fee`s add up to what anvil credited its L1 fee vault.
 */

const KEYS: Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
];
/** A contract whose code stores its first calldata word in slot 0 and logs it under topic 0x2a. */
const RUNTIME = '600035600055600035600052602a60206000a100';
const INIT = `0x6014600c60003960146000f3${RUNTIME}` as Hex;
const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;
const VAULTS = ['0x4200000000000000000000000000000000000019', '0x420000000000000000000000000000000000001a', '0x420000000000000000000000000000000000001b'];
const L1_FEE_VAULT = VAULTS[1];
/**
 * L1Block's words (as in `opAnvil.test.ts`): the L1 base fee (slot 1), the Ecotone scalars and a
 * sequence number (3), the blob base fee (7), the operator fee scalar and constant (8).
 */
const L1_BLOCK_STORAGE: Array<[bigint, bigint]> = [
  [1n, 7_000_000_000n],
  [3n, (1_368n << 96n) | (810_949n << 64n) | 5n],
  [7n, 1_000n],
  [8n, (2_000n << 64n) | 300_000n],
];
const DEPOSITOR = `0x${'ab'.repeat(20)}`;
/** Where the second datadir's archive starts: after the creation, before the deposits. */
const FROM = 3;

type Json = Record<string, unknown>;

const describeOp = describeWithFoundry(['anvil'], 'following anvil --network optimism');
describeOp('tracenode following anvil --network optimism from its genesis', () => {
  let anvil: AnvilProcess;
  const tmp = tempDir('tracenode-op-');
  const theirs = (method: string, params: unknown[] = []) => rawResult(anvil.url, method, params);
  const txs: Hex[] = [];
  let contract: Hex;
  /** The two datadirs: one from genesis, one an archive from block {@link FROM}. */
  const followed: Following[] = [];
  const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8 } });

  /** Opens a datadir and follows anvil with it. */
  async function follow(name: string, start: number): Promise<Following> {
    const chain = await openChain(join(tmp.dir, name), config.caches);
    // An archive from block N reads what it does not hold from the followed node, as `serve --follow` does.
    const stateSource = chain.start ? new UpstreamStateSource(new Upstream(anvil.url, { requestTimeoutMs: 10_000 }), chain.store, chain.start) : undefined;
    // The followed node is the pool: eth_sendRawTransaction is relayed to it, as `serve --follow` does.
    const pool = new Upstream(anvil.url, { requestTimeoutMs: 10_000 });
    const ctx = await createEthContext(chain, 'test', config, undefined, undefined, undefined, pool, stateSource);
    const { lines, log } = recordingLog();
    const follower = new Follower(chain, new Upstream(anvil.url, { requestTimeoutMs: 10_000 }), {
      settings: config.follow,
      importSettings: config.import,
      log,
    });
    follower.start();
    return { name, start, chain, ctx, follower, lines, ours: (method, params) => ethereumMethods.get(method)!.call(ctx, params) };
  }

  async function caughtUp(f: Following): Promise<void> {
    await until(
      `${f.name} at anvil’s head`,
      async () => {
        const latest = (await theirs('eth_getBlockByNumber', ['latest', false])) as Json;
        const head = await f.chain.store.head();
        return head !== undefined && bytesToHex(head.hash) === latest.hash;
      },
      (same) => same,
      60_000,
      () => f.lines.join('\n'),
    );
  }

  beforeAll(async () => {
    anvil = await startAnvil(['--network', 'optimism']);
    for (const [slot, value] of L1_BLOCK_STORAGE) await theirs('anvil_setStorageAt', [L1_BLOCK_ADDRESS, word(slot), word(value)]);
    await initDatadirFromNode(join(tmp.dir, 'genesis'), await readNodeGenesis(new Upstream(anvil.url, { requestTimeoutMs: 10_000 }), 'isthmus'), config);
    followed.push(await follow('genesis', 0));

    const send = (key: Hex, tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }, via: RpcCall = theirs) => sendSigned(theirs, key, tx, via);
    const deposit = (to: Hex | undefined, fields: { mint: bigint; value: bigint; gas: bigint; data?: Hex; source: number }) =>
      bytesToHex(
        encodeDepositTx({
          sourceHash: setLengthLeft(Uint8Array.of(fields.source), 32),
          from: hexToBytes(DEPOSITOR as Hex),
          to: to === undefined ? undefined : hexToBytes(to),
          mint: fields.mint,
          value: fields.value,
          gasLimit: fields.gas,
          isSystemTx: false,
          data: hexToBytes(fields.data ?? '0x'),
        }),
      );
    const bob = privateKeyToAccount(KEYS[1]).address;
    txs.push(await send(KEYS[0], { to: bob, value: 10n ** 18n, gas: 21_000n }));
    txs.push(await send(KEYS[0], { data: INIT, gas: 200_000n }));
    const created = (await until(
      'the creation receipt',
      () => theirs('eth_getTransactionReceipt', [txs[1]]) as Promise<Json | null>,
      (r) => r !== null,
    ))!;
    contract = created.contractAddress as Hex;
    txs.push(await send(KEYS[1], { to: contract, data: word(0x1234n) as Hex, gas: 100_000n }));
    await initArchiveFrom(join(tmp.dir, 'from'), anvil.url, { at: String(FROM), opUpgrade: 'isthmus' }, config, () => undefined);
    followed.push(await follow('from', FROM));
    // A deposit with mint to an account, one that creates the contract, one that calls it, one whose call runs out of gas.
    txs.push((await theirs('eth_sendRawTransaction', [deposit(bob, { mint: 10n ** 18n, value: 10n ** 17n, gas: 100_000n, source: 1 })])) as Hex);
    txs.push((await theirs('eth_sendRawTransaction', [deposit(undefined, { mint: 0n, value: 0n, gas: 200_000n, data: INIT, source: 2 })])) as Hex);
    txs.push((await theirs('eth_sendRawTransaction', [deposit(contract, { mint: 5n, value: 0n, gas: 60_000n, data: word(0x77n) as Hex, source: 3 })])) as Hex);
    txs.push((await theirs('eth_sendRawTransaction', [deposit(contract, { mint: 0n, value: 0n, gas: 21_500n, data: word(0x78n) as Hex, source: 4 })])) as Hex);
    // A call out of gas, a transfer after the deposits.
    txs.push(await send(KEYS[1], { to: contract, data: word(0x99n) as Hex, gas: 21_900n }));
    // The last one sent to tracenode, which relays it to the sequencer (here anvil).
    txs.push(await send(KEYS[1], { to: DEPOSITOR as Hex, value: 12_345n, gas: 21_000n }, followed[0].ours));
    for (const f of followed) await caughtUp(f);
  }, 120_000);

  afterAll(async () => {
    for (const f of followed) {
      await f.follower.stop();
      await f.ctx.evm.close();
      await f.chain.close();
    }
    await anvil?.stop();
    tmp.cleanup();
  });

  const head = async () => Number(BigInt((await theirs('eth_blockNumber')) as string));
  /** The hashes of the transactions in the blocks `f` holds (an archive from N holds N's). */
  const heldTxs = async (f: Following, above = 0) => {
    const held: Hex[] = [];
    for (const hash of txs) if (Number(((await theirs('eth_getTransactionByHash', [hash])) as Json).blockNumber) >= f.start + above) held.push(hash);
    return held;
  };

  it('every block verified as anvil makes OP blocks, and recorded so, from genesis and from block N; a transaction sent to tracenode is mined', async () => {
    expect(await head()).toBe(txs.length);
    expect(((await theirs('eth_getTransactionReceipt', [txs.at(-1)])) as Json).status).toBe('0x1');
    for (const f of followed) {
      expect(
        f.lines.filter((l) => l.startsWith('error')),
        f.name,
      ).toEqual([]);
      expect(await opAnvilQuirksKept(f.chain.level), f.name).toBe(true);
    }
  });

  it('blocks by number, hashes only, are anvil’s', async () => {
    for (const f of followed) {
      for (let n = f.start; n <= (await head()); n++) {
        const number = `0x${n.toString(16)}`;
        // As on Ethereum (test/anvil/otsDifferential.test.ts): anvil keeps totalDifficulty, which geth
        // no longer prints, and its size leaves out the empty withdrawals list's byte (0xc0).
        const { totalDifficulty: _td, size, ...theirBlock } = (await theirs('eth_getBlockByNumber', [number, false])) as Json;
        const ourBlock = (await f.ours('eth_getBlockByNumber', [number, false])) as Json;
        expect(ourBlock, `${f.name}: block ${n}`).toEqual({ ...theirBlock, size: `0x${(Number(size) + 1).toString(16)}` });
      }
    }
  });

  it('transactions, in blocks and by hash, are anvil’s: a deposit as op-geth prints it where anvil differs', async () => {
    let deposits = 0;
    for (const f of followed) {
      for (const hash of await heldTxs(f)) {
        const theirTx = (await theirs('eth_getTransactionByHash', [hash])) as Json;
        const ourTx = (await f.ours('eth_getTransactionByHash', [hash])) as Json;
        const block = (await f.ours('eth_getBlockByHash', [theirTx.blockHash, true])) as { transactions: Json[] };
        expect(block.transactions[Number(theirTx.transactionIndex)], `${f.name}: ${hash}`).toEqual(ourTx);
        if (theirTx.type !== '0x7e') {
          expect(ourTx, `${f.name}: ${hash}`).toEqual(theirTx);
          continue;
        }
        deposits++;
        // anvil prints a deposit's nonce before it, 32-byte zero r and s, no gasPrice, mint 0x0,
        // isSystemTx false and no `to` for a creation; op-geth (internal/ethapi newRPCTransaction)
        // the receipt's depositNonce, 0x0 for the signature and the price, mint and isSystemTx only
        // when set, `to` null for a creation, and the receipt's depositReceiptVersion.
        const receipt = (await theirs('eth_getTransactionReceipt', [hash])) as Json;
        const { nonce, r, s, v, gasPrice, mint, isSystemTx, depositReceiptVersion, ...rest } = ourTx;
        const same =
          rest.to === null && !('to' in theirTx)
            ? pick(
                rest,
                Object.keys(rest).filter((k) => k !== 'to'),
              )
            : rest;
        const { nonce: _n, r: _r, s: _s, v: _v, mint: theirMint, isSystemTx: _i, yParity: _y, ...theirSame } = theirTx;
        expect(same, `${f.name}: ${hash}`).toEqual(theirSame);
        const zero = { r: '0x0', s: '0x0', v: '0x0', gasPrice: '0x0' };
        expect({ nonce, r, s, v, gasPrice, depositReceiptVersion }).toEqual({ nonce: receipt.depositNonce, ...zero, depositReceiptVersion: '0x1' });
        expect(mint ?? '0x0').toBe(theirMint);
        expect(isSystemTx).toBeUndefined();
      }
    }
    expect(deposits).toBe(8);
  });

  it('receipts are anvil’s, with op-geth’s L1 fields on ordinary ones; each block’s L1 fees are what anvil credited its vault', async () => {
    for (const f of followed) {
      for (const hash of await heldTxs(f)) {
        const theirReceipt = (await theirs('eth_getTransactionReceipt', [hash])) as Json;
        const ourReceipt = (await f.ours('eth_getTransactionReceipt', [hash])) as Json;
        const { l1Fee, l1GasUsed, l1GasPrice, l1BaseFeeScalar, l1BlobBaseFee, l1BlobBaseFeeScalar, operatorFeeScalar, operatorFeeConstant, ...same } =
          ourReceipt;
        const { type: theirType, ...theirSame } = theirReceipt;
        // anvil prints a deposit receipt's type in upper case ("0x7E").
        expect({ ...same, type: undefined }, `${f.name}: ${hash}`).toEqual({ ...pick(theirSame, Object.keys(same)), type: undefined });
        expect(same.type).toBe(String(theirType).toLowerCase());
        const number = BigInt(theirReceipt.blockNumber as string);
        // Block N's receipts come from the upstream, checked against its receiptsRoot, which holds no L1 fields.
        if (theirType === '0x7E' || Number(number) === f.start) {
          expect(l1Fee).toBeUndefined();
          continue;
        }
        expect({ l1GasPrice, l1BaseFeeScalar, l1BlobBaseFee, l1BlobBaseFeeScalar, operatorFeeScalar, operatorFeeConstant }).toEqual({
          l1GasPrice: '0x1a13b8600',
          l1BaseFeeScalar: '0x558',
          l1BlobBaseFee: '0x3e8',
          l1BlobBaseFeeScalar: '0xc5fc5',
          operatorFeeScalar: '0x7d0',
          operatorFeeConstant: '0x493e0',
        });
        const credited = (await balance(theirs, L1_FEE_VAULT, number)) - (await balance(theirs, L1_FEE_VAULT, number - 1n));
        expect(BigInt(l1Fee as string), `${f.name}: ${hash}'s l1Fee`).toBe(credited);
        expect(BigInt(l1GasUsed as string)).toBeGreaterThan(0n);
      }
    }
  });

  it('the blocks exported as geth exports them (concatenated RLP) import into a fresh datadir, to the same head', async () => {
    const [genesis] = followed;
    const blocks: Uint8Array[] = [];
    for (let n = 1n; n <= BigInt(await head()); n++) blocks.push((await genesis.chain.store.blockByNumber(n))!.serialize());
    const dir = join(tmp.dir, 'imported');
    await initDatadirFromNode(dir, await readNodeGenesis(new Upstream(anvil.url, { requestTimeoutMs: 10_000 }), 'isthmus'), config);
    const chain = await openChain(dir, config.caches);
    try {
      const result = await importBlocks(chain, [concatBytes(...blocks)], config.import);
      expect(result.imported).toBe(blocks.length);
      expect(result.head.hash).toBe(((await theirs('eth_getBlockByNumber', ['latest', false])) as Json).hash);
      expect(result.headerDeviations.anvilOp).toBe(1);
    } finally {
      await chain.close();
    }
  });

  it('raw receipts (debug_getRawReceipts) make each block’s receipts root, deposits and a failed transaction among them', async () => {
    for (const f of followed) {
      for (let n = f.start; n <= (await head()); n++) {
        const number = `0x${n.toString(16)}`;
        const raws = (await f.ours('debug_getRawReceipts', [number])) as Hex[];
        const header = (await theirs('eth_getBlockByNumber', [number, false])) as Json;
        expect(bytesToHex(orderedTrieRoot(raws.map((r) => hexToBytes(r)))), `${f.name}: block ${n}`).toBe(header.receiptsRoot);
      }
    }
  });

  it('balances (the three fee vaults and the coinbase among them), the contract’s storage and code at every block are anvil’s', async () => {
    const accounts = [...KEYS.map((k) => privateKeyToAccount(k).address), DEPOSITOR, contract, ...VAULTS, `0x${'00'.repeat(20)}`];
    for (const f of followed) {
      for (let n = BigInt(f.start); n <= BigInt(await head()); n++) {
        const at = `0x${n.toString(16)}`;
        for (const a of accounts) expect(await f.ours('eth_getBalance', [a, at]), `${f.name}: ${a} at ${n}`).toBe(await theirs('eth_getBalance', [a, at]));
        expect(await f.ours('eth_getStorageAt', [contract, '0x0', at])).toBe(await theirs('eth_getStorageAt', [contract, '0x0', at]));
        expect(await f.ours('eth_getCode', [contract, at])).toBe(await theirs('eth_getCode', [contract, at]));
      }
    }
  });

  it('Parity traces of every block and transaction, deposits among them, are anvil’s', async () => {
    for (const f of followed) {
      for (let n = f.start + 1; n <= (await head()); n++) {
        const number = `0x${n.toString(16)}`;
        expect(await f.ours('trace_block', [number]), `${f.name}: block ${n}`).toEqual(await theirs('trace_block', [number]));
      }
      for (const hash of await heldTxs(f, 1)) {
        expect(await f.ours('trace_transaction', [hash]), `${f.name}: ${hash}`).toEqual(await theirs('trace_transaction', [hash]));
      }
    }
  });

  it('call traces of every transaction, deposits among them, are anvil’s', async () => {
    for (const f of followed) {
      // An archive from block N holds no state before N: its own transactions cannot be replayed.
      for (const hash of await heldTxs(f, 1)) {
        const tracer = { tracer: 'callTracer' };
        const got = (await f.ours('debug_traceTransaction', [hash, tracer])) as Json;
        const want = (await theirs('debug_traceTransaction', [hash, tracer])) as Json;
        // As on Ethereum (test/anvil/debugTraceDifferential.test.ts): geth's top frame has the
        // transaction's gas limit as `gas` and the receipt's gas as `gasUsed`, anvil's the gas after
        // intrinsic gas and the gas before refunds; ours is checked against the transaction and the receipt.
        const tx = (await f.ours('eth_getTransactionByHash', [hash])) as Json;
        const receipt = (await f.ours('eth_getTransactionReceipt', [hash])) as Json;
        expect({ gas: got.gas, gasUsed: got.gasUsed }, `${f.name}: ${hash}`).toEqual({ gas: tx.gas, gasUsed: receipt.gasUsed });
        expect({ ...got, gas: want.gas, gasUsed: want.gasUsed }, `${f.name}: ${hash}`).toEqual(want);
      }
    }
  });
});

/** A datadir following anvil, and its methods. */
interface Following {
  name: string;
  /** The first block it holds. */
  start: number;
  chain: EthereumChain;
  ctx: EthContext;
  follower: Follower;
  lines: string[];
  ours(method: string, params: unknown[]): Promise<unknown>;
}

async function balance(call: (m: string, p: unknown[]) => Promise<unknown>, address: string, at: bigint): Promise<bigint> {
  return BigInt((await call('eth_getBalance', [address, `0x${at.toString(16)}`])) as string);
}

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}
