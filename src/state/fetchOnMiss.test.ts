import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToHex,
  bytesToUnprefixedHex,
  concatBytes,
  createAccountFromRLP,
  type DB,
  hexToBytes,
  KECCAK256_RLP,
  setLengthLeft,
  utf8ToBytes,
  ValueEncoding,
} from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { keccak256 } from '../codec/keccak.js';
import { FetchOnMiss, SiblingSearchError } from './fetchOnMiss.js';
import { MissingCodeError, MissingTrieNodeError, RemoteStateError, type StateProof, type StateSource } from './stateSource.js';
import { keyUnderPrefix, walkKey } from './trieWalk.js';

/**
 * Fetch on miss inside execution (`fetchOnMiss.ts`), on a state built here: an "upstream" holds
 * the whole state (300 accounts, a contract with 300 slots and code); the datadir under test holds
 * nothing, and a MerkleStateManager runs on it as the importer's does. Its reads, writes and
 * deletions must give the root the whole state gives, each missing node fetched through a proof
 * (checked against the state root) — including the sibling that a deletion collapsing a branch
 * merges upwards, found by searching a key under it; a proof that does not verify is refused and
 * nothing of it stored; an upstream that is away fails the run (and `failed` rejects).
 */

const SLOTS = 300;
const ACCOUNTS = 300;
const CONTRACT = new Address(hexToBytes(`0x${'c0'.repeat(20)}`));
const CODE = hexToBytes('0x6001600055600160015500');
const slot = (i: number) => setLengthLeft(bigIntToBytes(BigInt(i)), 32);
const account = (i: number) => new Address(setLengthLeft(bigIntToBytes(BigInt(0x1000 + i)), 20));

/** An in-memory trie database; `partial`: a miss throws, as an archive from block N's (`trieDb.ts`). */
class MemoryDb implements DB<string, string | Uint8Array> {
  readonly entries = new Map<string, Uint8Array>();
  constructor(private readonly partial: boolean) {}
  async get(key: string): Promise<Uint8Array | undefined> {
    const value = this.entries.get(key);
    if (value !== undefined || !this.partial || key === bytesToUnprefixedHex(KECCAK256_RLP)) return value;
    throw key.length === 66 ? new MissingCodeError(hexToBytes(`0x${key.slice(2)}`)) : new MissingTrieNodeError(hexToBytes(`0x${key}`));
  }
  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.entries.set(key, typeof value === 'string' ? hexToBytes(`0x${value}`) : value);
  }
  async del(): Promise<void> {}
  async batch(ops: Array<{ type: string; key: string; value?: string | Uint8Array }>): Promise<void> {
    for (const op of ops) if (op.type === 'put' && op.value !== undefined) await this.put(op.key, op.value);
  }
  shallowCopy(): DB<string, string | Uint8Array> {
    return this;
  }
  async open(): Promise<void> {}
  async storeNodes(nodes: ReadonlyMap<string, Uint8Array>): Promise<void> {
    for (const [k, v] of nodes) this.entries.set(k, v);
  }
  async storeCode(codeHash: Uint8Array, code: Uint8Array): Promise<void> {
    this.entries.set(bytesToUnprefixedHex(concatBytes(utf8ToBytes('c'), codeHash)), code);
  }
}

const trieOver = (db: DB<string, string | Uint8Array>, root?: Uint8Array) =>
  new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes });

/** The upstream: proofs and code from the whole state at `root`; `tamper` alters the last account-proof node. */
function upstreamOf(full: MemoryDb, root: Uint8Array, calls: string[], mode: { away?: boolean; tamper?: boolean } = {}): StateSource {
  return {
    async proveAccount(address, slots, stateRoot) {
      calls.push(`proof ${bytesToHex(address)} ${slots.map(bytesToHex).join(',')}`);
      if (mode.away) throw new RemoteStateError('unreachable', 'upstream unreachable: ECONNREFUSED; retry later');
      expect(stateRoot).toEqual(root);
      const stateTrie = trieOver(full, root);
      const accountProof = await createMerkleProof(stateTrie, address);
      const raw = await stateTrie.get(address);
      const storageRoot = raw ? createAccountFromRLP(raw).storageRoot : KECCAK256_RLP;
      const storageProofs = await Promise.all(slots.map((s) => createMerkleProof(trieOver(full, storageRoot), s)));
      if (mode.tamper) accountProof[accountProof.length - 1] = concatBytes(accountProof[accountProof.length - 1], Uint8Array.of(0));
      return { root, accountProof, storageProofs } satisfies StateProof;
    },
    async code(address) {
      calls.push(`code ${bytesToHex(address)}`);
      return CODE;
    },
  };
}

/** A state manager on `root` over an empty datadir that fetches what it lacks. */
function runner(local: MemoryDb, source: StateSource, root: Uint8Array, maxSearchNibbles = 6) {
  const fetcher = new FetchOnMiss(source, local, local, root, { maxSearchNibbles });
  const trie = trieOver(fetcher.db(), root);
  fetcher.attach(trie);
  const sm = new MerkleStateManager({ trie, caches: new Caches() });
  fetcher.attachCode(sm);
  return { fetcher, sm };
}

/** A slot (or account) whose leaf's branch has exactly two children, the other one a node held by hash: deleting it collapses the branch. */
async function collapsing(full: MemoryDb, root: Uint8Array, keys: Uint8Array[]): Promise<{ key: Uint8Array; depth: number }> {
  const lookup = async (h: Uint8Array) => full.entries.get(bytesToUnprefixedHex(h));
  for (const key of keys) {
    const walk = await walkKey(lookup, root, keccak256(key));
    const branch = walk.steps.at(-2);
    if (branch?.items.length !== 17) continue;
    const children = branch.items.slice(0, 16).filter((c) => !(c instanceof Uint8Array && c.length === 0));
    if (children.length === 2 && children.every((c) => c instanceof Uint8Array && c.length === 32)) return { key, depth: branch.prefix.length + 1 };
  }
  throw new Error('no collapsing key');
}

describe('fetch on miss inside execution', () => {
  const full = new MemoryDb(false);
  let root: Uint8Array;
  let storageRoot: Uint8Array;

  beforeAll(async () => {
    const sm = new MerkleStateManager({ trie: trieOver(full) });
    for (let i = 0; i < ACCOUNTS; i++) await sm.putAccount(account(i), new Account(0n, BigInt(i + 1)));
    await sm.putAccount(CONTRACT, new Account(1n, 5n));
    await sm.putCode(CONTRACT, CODE);
    for (let i = 0; i < SLOTS; i++) await sm.putStorage(CONTRACT, slot(i), bigIntToBytes(BigInt(i + 1)));
    root = await sm.getStateRoot();
    storageRoot = (await sm.getAccount(CONTRACT))!.storageRoot;
  });

  /** What the same operations give on the whole state. */
  async function expected(ops: (sm: MerkleStateManager) => Promise<void>): Promise<Uint8Array> {
    const sm = new MerkleStateManager({ trie: trieOver(full, root), caches: new Caches() });
    await ops(sm);
    return sm.getStateRoot();
  }

  it('reads, writes and a slot deletion that collapses a branch: the root of the whole state, the sibling through a searched key', async () => {
    const { key, depth } = await collapsing(
      full,
      storageRoot,
      Array.from({ length: SLOTS }, (_, i) => slot(i)),
    );
    const ops = async (sm: MerkleStateManager) => {
      expect(await sm.getStorage(CONTRACT, slot(7))).toEqual(bigIntToBytes(8n));
      expect(await sm.getCode(CONTRACT)).toEqual(CODE);
      expect((await sm.getAccount(account(3)))?.balance).toBe(4n);
      await sm.putStorage(CONTRACT, slot(7), bigIntToBytes(99n));
      expect((await sm.getStorage(CONTRACT, key)).length).toBeGreaterThan(0);
      await sm.putStorage(CONTRACT, key, new Uint8Array());
      await sm.modifyAccountFields(account(3), { balance: 0n });
    };
    const calls: string[] = [];
    const local = new MemoryDb(true);
    const { fetcher, sm } = runner(local, upstreamOf(full, root, calls), root);
    await ops(sm);
    expect(bytesToHex(await sm.getStateRoot())).toBe(bytesToHex(await expected(ops)));
    expect(fetcher.stats).toMatchObject({ siblings: 1, codes: 1 });
    expect(fetcher.stats.searchHashes).toBeGreaterThan(0);
    // The last proof is of a key under the sibling's path, searched for: its keccak256 starts with those nibbles.
    expect(calls.filter((c) => c.startsWith('code'))).toEqual([`code ${CONTRACT.toString()}`]);
    const searched = calls.at(-1)!.split(' ')[2];
    expect(searched).not.toBe(bytesToHex(key));
    expect(bytesToUnprefixedHex(keccak256(hexToBytes(searched as `0x${string}`))).slice(0, depth - 1)).toBe(
      bytesToUnprefixedHex(keccak256(key)).slice(0, depth - 1),
    );
    // Every node stored hangs in the whole state.
    for (const [k, v] of local.entries) expect(full.entries.get(k) ?? v).toEqual(v);
  });

  it('an account deletion that collapses a branch of the state trie: the sibling through a searched address', async () => {
    const { key } = await collapsing(
      full,
      root,
      Array.from({ length: ACCOUNTS }, (_, i) => account(i).bytes),
    );
    const ops = async (sm: MerkleStateManager) => {
      expect(await sm.getAccount(new Address(key))).toBeDefined();
      await sm.deleteAccount(new Address(key));
    };
    const local = new MemoryDb(true);
    const { fetcher, sm } = runner(local, upstreamOf(full, root, []), root);
    await ops(sm);
    expect(bytesToHex(await sm.getStateRoot())).toBe(bytesToHex(await expected(ops)));
    expect(fetcher.stats.siblings).toBe(1);
  });

  it('beyond the search bound: a SiblingSearchError naming the witness, and `failed` rejects', async () => {
    const { key } = await collapsing(
      full,
      storageRoot,
      Array.from({ length: SLOTS }, (_, i) => slot(i)),
    );
    const { fetcher, sm } = runner(new MemoryDb(true), upstreamOf(full, root, []), root, 1);
    await sm.getStorage(CONTRACT, key);
    // The deletion runs in @ethereumjs' storage write, which loses an error thrown in it (its promise never settles): raced.
    await expect(Promise.race([sm.putStorage(CONTRACT, key, new Uint8Array()), fetcher.failed])).rejects.toThrow(SiblingSearchError);
    await expect(fetcher.failed).rejects.toThrow(/beyond the search for a key under it .*debug_executionWitness/);
  });

  it('a proof that does not verify is refused, nothing of it stored; an upstream away fails the read', async () => {
    const tampered = new MemoryDb(true);
    const bad = runner(tampered, upstreamOf(full, root, [], { tamper: true }), root);
    await expect(bad.sm.getAccount(account(5))).rejects.toMatchObject({ kind: 'invalid' });
    expect(tampered.entries.size).toBe(0);
    const away = runner(new MemoryDb(true), upstreamOf(full, root, [], { away: true }), root);
    await expect(away.sm.getStorage(CONTRACT, slot(1))).rejects.toMatchObject({ kind: 'unreachable', retryable: true });
    await expect(away.fetcher.failed).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('the search for a key under a path', () => {
  it('finds a key whose keccak256 starts with the nibbles (16^n on average), none beyond the bound', async () => {
    for (const prefix of [[0xa], [0x1, 0x2], [0xf, 0x0, 0xe]]) {
      const found = await keyUnderPrefix(prefix, 32, 6);
      expect(found.key).toBeDefined();
      const nibbles = bytesToUnprefixedHex(keccak256(found.key!)).slice(0, prefix.length);
      expect(nibbles).toBe(prefix.map((n) => n.toString(16)).join(''));
    }
    expect((await keyUnderPrefix([1, 2, 3], 20, 2)).key).toBeUndefined();
  });
});
