import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Address, createAccountFromRLP, type DB, KECCAK256_RLP } from '@ethereumjs/util';
import type { StateReadCache } from '../../state/readCache.js';
import { keyBytes, OverlayState } from '../overlayDb.js';
import { fetchingOverlayTrie } from '../trieOverlay.js';

/**
 * The state of an eth_simulateV1 run: an eth_call's write overlay ({@link OverlayState}: reads
 * through the network's shared cache of archived values, writes in journaled maps) that can also
 * say its state root, which every simulated block's header carries.
 *
 * Why not a MerkleStateManager over an overlay trie (how simulations ran before): every account
 * and slot it reads walks and decodes trie nodes again, and each write is applied to the trie as
 * it is flushed; for an ERC-20 transfer that was ~70 % of a one-block simulation. Here reads cost
 * what an eth_call's cost, and only the root touches tries: the accounts and slots written since
 * the last root are put into an overlay trie of the base state (and of each written account's
 * storage), which are kept from block to block, so each block pays for its own writes.
 */
export class SimulationState extends OverlayState {
  /** Addresses written since the last root, with the slots written under each. */
  private readonly dirty = new Map<string, Set<string>>();
  /** Addresses whose storage was wiped since the last root. */
  private readonly rewiped = new Set<string>();
  private stateTrie!: MerklePatriciaTrie;
  /** The storage trie of each account the root has seen written. */
  private readonly storage = new Map<string, MerklePatriciaTrie>();
  /** Whether the state trie fetches what the datadir lacks (an archive from block N). */
  private fetching = false;

  /**
   * The state `root` (a header's state root) read through `reads`, its root computed over the
   * archive's trie nodes `stateDb`. In an archive from block N, what the root's tries lack is
   * fetched, and `raceFetchOnMiss` (`state/fetchOnMiss.ts`) of this state races a run against
   * that fetch failing.
   */
  static async open(reads: StateReadCache, root: Uint8Array, stateDb: DB<string, string | Uint8Array>): Promise<SimulationState> {
    const state = new SimulationState(reads, root);
    const { trie, fetcher } = await fetchingOverlayTrie(stateDb, root);
    state.stateTrie = trie;
    if (fetcher !== undefined) {
      fetcher.register(state);
      state.fetching = true;
    }
    return state;
  }

  protected override touched(addressKey: string, slotKey?: string, wipe?: boolean): void {
    if (wipe) this.rewiped.add(addressKey);
    let slots = this.dirty.get(addressKey);
    if (slots === undefined) {
      slots = new Set();
      this.dirty.set(addressKey, slots);
    }
    if (slotKey !== undefined) slots.add(slotKey);
  }

  /**
   * The state root of the state as it is now: the writes since the last root applied to the
   * overlay tries. Call it between transactions (no checkpoint open).
   */
  override async getStateRoot(): Promise<Uint8Array> {
    const trie = this.stateTrie;
    for (const [addressKey, slots] of this.dirty) {
      const address = new Address(keyBytes(addressKey));
      const account = await this.getAccount(address);
      if (account === undefined) {
        this.storage.delete(addressKey);
        await trie.del(address.bytes);
        continue;
      }
      account.storageRoot = await this.storageRoot(trie, addressKey, address, slots);
      await trie.put(address.bytes, account.serialize());
      // Later blocks read the account with its storage root (as after MerkleStateManager's flush).
      this.accounts.set(addressKey, account);
    }
    this.dirty.clear();
    this.rewiped.clear();
    // Every transaction has ended: nothing can be undone any more.
    if (this.marks.length === 0) this.undo.length = 0;
    return trie.root();
  }

  /** The storage root of a written account after the writes `slots` since the last root. */
  private async storageRoot(stateTrie: MerklePatriciaTrie, addressKey: string, address: Address, slots: Set<string>): Promise<Uint8Array> {
    const wiped = this.wiped.has(addressKey);
    let trie = this.storage.get(addressKey);
    let changed: Iterable<string> = slots;
    // A storage wiped since the last root (a wipe cannot outlive its block undone) is all in the
    // overlay's map, so it is rebuilt from it; an account seen for the first time starts at the
    // base state's storage. Otherwise the trie the last root left takes this block's slots.
    if (trie === undefined || (wiped && this.rewiped.has(addressKey))) {
      trie = stateTrie.shallowCopy(false);
      trie.root(wiped ? KECCAK256_RLP : await this.baseStorageRoot(stateTrie, address.bytes));
      this.storage.set(addressKey, trie);
      if (wiped) changed = this.slots.get(addressKey)?.keys() ?? [];
    }
    for (const slotKey of changed) {
      const slot = keyBytes(slotKey);
      const value = await this.getStorage(address, slot);
      if (value.length === 0) await trie.del(slot);
      else await trie.put(slot, RLP.encode(value));
    }
    return trie.root();
  }

  /**
   * The account's storage root in the base state. In an archive from block N it is read from the
   * state trie itself, so that the fetch on miss learns which account the storage trie is of.
   */
  private async baseStorageRoot(stateTrie: MerklePatriciaTrie, address: Uint8Array): Promise<Uint8Array> {
    if (this.fetching) {
      const raw = await stateTrie.get(address);
      return raw ? createAccountFromRLP(raw).storageRoot : KECCAK256_RLP;
    }
    return (await this.reads.account(this.root, address))?.storageRoot ?? KECCAK256_RLP;
  }
}
