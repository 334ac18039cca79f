import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import type { StateReadCache } from '../state/readCache.js';
import { noteCodeHash } from './evm/jumpAnalysis.js';

/**
 * The state a call runs on: the archived state of its block, read through the network's shared
 * {@link StateReadCache}, with a private write overlay on top.
 *
 * Why not a state trie per call: building @ethereumjs' MerkleStateManager with its trie and caches
 * costs ~55 µs and each account read walks the trie again (~60 µs), more than a simple view call
 * spends in the EVM. Calls never need a state root, so writes need no trie at all: they go to
 * journaled maps here and vanish with the call. Reads of the block's state are immutable facts
 * (keyed by state root, storage root or code hash), so every call at any block shares one cache of
 * them.
 *
 * A per-call write overlay over the archived state at one state root, implementing the state
 * manager interface the EVM uses. Writes (account fields, code, storage, storage wipes) go to
 * maps private to this object, journaled so the EVM's checkpoints can commit or revert them;
 * reads fall through to the shared {@link StateReadCache}. Nothing written here reaches shared
 * state, so concurrent calls at different blocks cannot interfere.
 */
export class OverlayState implements StateManagerInterface {
  /** Written accounts by address key (null: deleted). */
  protected readonly accounts = new Map<string, Account | null>();
  protected readonly slots = new Map<string, Map<string, Uint8Array>>();
  /** Accounts whose archived storage no longer shows through (created, cleared or deleted). */
  protected readonly wiped = new Set<string>();
  /** Code written by this call, by hash (content-addressed, so never undone). */
  private readonly codes = new Map<string, Uint8Array>();
  protected readonly undo: Array<() => void> = [];
  protected readonly marks: number[] = [];
  private readonly original = new Map<string, Uint8Array>();

  private originalCache: OriginalStorage | undefined;

  /** Storage values at the start of the transaction (EIP-2200/3529 SSTORE pricing); made on first use. */
  get originalStorageCache(): OriginalStorage {
    this.originalCache ??= new OriginalStorage(this, this.original);
    return this.originalCache;
  }

  constructor(
    protected readonly reads: StateReadCache,
    protected readonly root: Uint8Array,
  ) {}

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = bytesKey(address.bytes);
    const own = this.accounts.get(key);
    if (own !== undefined) return own === null ? undefined : copyAccount(own);
    const base = await this.reads.account(this.root, address.bytes);
    return base === undefined ? undefined : copyAccount(base);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.setAccount(bytesKey(address.bytes), copyAccount(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = bytesKey(address.bytes);
    this.setAccount(key, null);
    this.wipe(key);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.storageRoot !== undefined) account.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code);
    this.codes.set(bytesKey(codeHash), code);
    await this.modifyAccountFields(address, { codeHash });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const account = await this.getAccount(address);
    if (account === undefined) return new Uint8Array();
    const hashKey = bytesKey(account.codeHash);
    const own = this.codes.get(hashKey);
    if (own !== undefined) return own;
    const code = await this.reads.code(account.codeHash, address.bytes, this.root);
    noteCodeHash(code, hashKey);
    return code;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    const addressKey = bytesKey(address.bytes);
    const own = this.slots.get(addressKey)?.get(bytesKey(key));
    if (own !== undefined) return own;
    if (this.wiped.has(addressKey)) return new Uint8Array();
    const base = await this.reads.account(this.root, address.bytes);
    return base === undefined ? new Uint8Array() : this.reads.storage(base.storageRoot, key, address.bytes, this.root);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    let start = 0;
    while (start < value.length && value[start] === 0) start++;
    this.setSlot(bytesKey(address.bytes), bytesKey(key), value.subarray(start));
  }

  /** Wipes the account's storage; like MerkleStateManager, creates the account if absent. */
  async clearStorage(address: Address): Promise<void> {
    const key = bytesKey(address.bytes);
    const account = (await this.getAccount(address)) ?? new Account();
    account.storageRoot = KECCAK256_RLP;
    this.setAccount(key, account);
    this.wipe(key);
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.undo.length);
  }

  async commit(): Promise<void> {
    this.marks.pop();
  }

  async revert(): Promise<void> {
    const mark = this.marks.pop() ?? 0;
    while (this.undo.length > mark) this.undo.pop()!();
  }

  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('a call overlay has no state root');
  }

  async setStateRoot(_root: Uint8Array): Promise<void> {
    throw new Error('a call overlay cannot change its state root');
  }

  async hasStateRoot(_root: Uint8Array): Promise<boolean> {
    throw new Error('a call overlay cannot look up state roots');
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    throw new Error('a call overlay cannot be copied');
  }

  /**
   * Told of every write, undone or not (`slotKey` for a storage slot; `wipe` when the account's
   * storage is wiped): what a state root must look at again.
   */
  protected touched(_addressKey: string, _slotKey?: string, _wipe?: boolean): void {}

  private setAccount(key: string, account: Account | null): void {
    this.touched(key);
    const had = this.accounts.has(key);
    const prev = this.accounts.get(key);
    this.accounts.set(key, account);
    this.undo.push(had ? () => this.accounts.set(key, prev!) : () => this.accounts.delete(key));
  }

  private setSlot(addressKey: string, slotKey: string, value: Uint8Array): void {
    this.touched(addressKey, slotKey);
    let slots = this.slots.get(addressKey);
    if (!slots) {
      slots = new Map();
      this.slots.set(addressKey, slots);
    }
    const map = slots;
    const prev = map.get(slotKey);
    map.set(slotKey, value);
    this.undo.push(prev === undefined ? () => map.delete(slotKey) : () => map.set(slotKey, prev));
  }

  private wipe(addressKey: string): void {
    this.touched(addressKey, undefined, true);
    const wasWiped = this.wiped.has(addressKey);
    const prevSlots = this.slots.get(addressKey);
    this.wiped.add(addressKey);
    this.slots.set(addressKey, new Map());
    this.undo.push(() => {
      if (!wasWiped) this.wiped.delete(addressKey);
      if (prevSlots) this.slots.set(addressKey, prevSlots);
      else this.slots.delete(addressKey);
    });
  }
}

/** The `originalStorageCache` of an overlay: a slot's value before the call's first write to it. */
class OriginalStorage {
  constructor(
    private readonly overlay: OverlayState,
    private readonly original: Map<string, Uint8Array>,
  ) {}

  async get(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const id = bytesKey(address.bytes, key);
    let value = this.original.get(id);
    if (value === undefined) {
      // The first SSTORE to a slot asks before writing it, so the current value is the original.
      value = await this.overlay.getStorage(address, key);
      this.original.set(id, value);
    }
    return value;
  }

  clear(): void {
    this.original.clear();
  }
}

const keyScratch = Buffer.alloc(64);

/**
 * A map key for an address, hash or slot (and a second one appended): the raw bytes read as a
 * latin1 string, made in one native call (a flat string, cheaper to build and to hash than hex).
 */
function bytesKey(a: Uint8Array, b?: Uint8Array): string {
  keyScratch.set(a, 0);
  let end = a.length;
  if (b !== undefined) {
    keyScratch.set(b, end);
    end += b.length;
  }
  return keyScratch.toString('latin1', 0, end);
}

/** The bytes a {@link bytesKey} of one value was made of (the address or slot a write was recorded under). */
export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'latin1');
}

function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}
