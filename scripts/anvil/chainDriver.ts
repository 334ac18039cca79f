// Owns the mining of a scenario on anvil: transactions signed here with viem (fixed keys, local
// nonces, fixed fees and gas limits; RFC 6979 signatures, so the same bytes on every run), sent raw
// to anvil in order, and each block mined with evm_mine at a fixed timestamp (anvil 1.7.1 derives
// mixHash from the chain itself, not from a random source), so the same scenario always gives the
// same block hashes.
import { type AccessList, type Address, type Hash, type Hex, keccak256, type TransactionSerializable } from 'viem';
import { signTransaction } from 'viem/accounts';
import { createAddress, type KeyedAccount } from '../lib/accounts.js';
import type { AnvilClient } from './anvilClient.js';
import { BLOCK_TIME, LEGACY_GAS_PRICE, MAX_FEE, TIP } from './chainParams.js';

/** A transaction of a scenario. `to` undefined creates a contract. */
export interface TxOptions {
  to?: Address;
  data?: Hex;
  value?: bigint;
  gas?: bigint;
  /** 0 legacy (EIP-155), 1 EIP-2930, 2 EIP-1559 (default). */
  type?: 0 | 1 | 2;
  accessList?: AccessList;
  /** How the transaction must end; checked against its receipt after mining. */
  expect?: 'success' | 'revert';
  label?: string;
}

/** A signed and queued transaction. */
export interface SentTx {
  hash: Hash;
  nonce: number;
  /** The address of the contract it creates. */
  created?: Address;
  /** The block it goes into. */
  block: number;
}

/** What a transaction's receipt must say. */
export interface ExpectedReceipt {
  status: 0 | 1;
  label: string;
  created?: Address;
}

interface SignedTx {
  hash: Hash;
  raw: Hex;
}

/** Blocks sent to anvil and not yet answered, at most: signing runs ahead of anvil by this much. */
const MAX_BLOCKS_IN_FLIGHT = 32;

/**
 * Drives anvil block by block. tx() signs a transaction and queues it for the next block; mine()
 * hands the queue and an evm_mine to a chain of requests that runs in the background, one request
 * after the other (a JSON-RPC batch would not keep the order: anvil runs its requests
 * concurrently), so that signing the next blocks overlaps with anvil's work; drain() and flush()
 * wait for all of it.
 */
export class ChainDriver {
  /** The last block mined (or handed to anvil to mine). */
  head: number;
  /** Block number → hashes of the transactions planned for it, in order. */
  readonly plan = new Map<number, Hash[]>();
  /** Transaction hash → its signed bytes. */
  readonly raw = new Map<Hash, Hex>();
  /** Transaction hash → what its receipt must say. */
  readonly expect = new Map<Hash, ExpectedReceipt>();
  txCount = 0;

  private readonly client: AnvilClient;
  private readonly chainId: number;
  /** Timestamp of block 1; block n gets firstTimestamp + BLOCK_TIME·(n−1). */
  private readonly firstTimestamp: number;
  private queue: Promise<SignedTx>[] = [];
  private readonly nonces = new Map<Address, number>();
  private requests: Promise<void> = Promise.resolve();
  private inflight: Promise<void>[] = [];
  private error: unknown;

  constructor({ client, chainId, firstTimestamp, head = 1 }: { client: AnvilClient; chainId: number; firstTimestamp: number; head?: number }) {
    this.client = client;
    this.chainId = chainId;
    this.firstTimestamp = firstTimestamp;
    this.head = head;
  }

  /** The number of the block the queued transactions go into. */
  get next(): number {
    return this.head + 1;
  }

  /** Signs a transaction of `from` with its next nonce and queues it for the next block. */
  async tx(
    from: KeyedAccount,
    { to, data = '0x', value = 0n, gas = 200_000n, type = 2, accessList = [], expect = 'success', label = '' }: TxOptions,
  ): Promise<SentTx> {
    const nonce = this.nonces.get(from.address) ?? 0;
    this.nonces.set(from.address, nonce + 1);
    const block = this.next;
    const common = { chainId: this.chainId, nonce, gas, to, value, data };
    const transaction: TransactionSerializable =
      type === 0
        ? { ...common, type: 'legacy', gasPrice: LEGACY_GAS_PRICE }
        : type === 1
          ? { ...common, type: 'eip2930', gasPrice: LEGACY_GAS_PRICE, accessList }
          : { ...common, type: 'eip1559', maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP, accessList };
    // queued before signing completes, so that the queue keeps the order of the tx() calls
    const signing = signTransaction({ privateKey: from.privateKey, transaction }).then((raw) => ({ raw, hash: keccak256(raw) }));
    this.queue.push(signing);
    const { raw, hash } = await signing;
    this.raw.set(hash, raw);
    const created = to === undefined ? createAddress(from.address, nonce) : undefined;
    this.expect.set(hash, { status: expect === 'revert' ? 0 : 1, label, created });
    this.txCount++;
    return { hash, nonce, created, block };
  }

  /**
   * Mines the queued transactions into the next block, at its fixed timestamp: sends them and an
   * evm_mine after the requests of the blocks before. Resolves with the block number once the
   * block is handed over (and, with too many blocks in flight, once the oldest is mined).
   */
  async mine(): Promise<number> {
    const number = this.next;
    this.head = number;
    const pending = this.queue;
    this.queue = [];
    const txs = await Promise.all(pending);
    this.plan.set(
      number,
      txs.map((t) => t.hash),
    );
    const timestamp = this.firstTimestamp + BLOCK_TIME * (number - 1);
    // A rejected request rejects the chain, so nothing is sent after it.
    this.requests = this.requests.then(async () => {
      for (const t of txs) await this.client.request({ method: 'eth_sendRawTransaction', params: [t.raw] });
      await this.client.request({ method: 'evm_mine', params: [timestamp] });
    });
    const done = this.requests.catch((err: unknown) => {
      this.error ??= err; // thrown by drain()
    });
    this.inflight.push(done);
    if (this.inflight.length > MAX_BLOCKS_IN_FLIGHT) await this.inflight.shift();
    // let anvil's answers in, so that the requests go out while the next block is signed
    await new Promise((r) => setImmediate(r));
    return number;
  }

  /** Mines `n` empty blocks. */
  async mineEmpty(n = 1): Promise<void> {
    if (this.queue.length > 0) throw new Error('mineEmpty with queued transactions');
    for (let i = 0; i < n; i++) await this.mine();
  }

  /** Waits until anvil has answered every block handed over so far; throws the first failed request. */
  async drain(): Promise<void> {
    const all = this.inflight;
    this.inflight = [];
    await Promise.all(all);
    if (this.error !== undefined) throw this.error;
  }

  /** Mines what is queued, then drains. */
  async flush(): Promise<void> {
    if (this.queue.length > 0) await this.mine();
    await this.drain();
  }
}
