import { ClassHashNotFoundError, ContractNotFoundError, NotHeldError } from './errors.js';
import { bytesToHex64, feltToBytes } from './felt.js';
import { classDeclaredKey, classDefinitionKey, encodeBlockNumber, postingKey, readBlockNumber, statePrefix } from './keys.js';
import type { StarknetStore, StateRange } from './store.js';

/**
 * Contract state at a block, from the stored state updates (`S`, `O`, `Z`, `D` in `keys.ts`):
 * the value of an item at block N is the one written by the highest block ≤ N. What no stored
 * update wrote is older than the first block with state, F: the store asks the followed upstream
 * for it once, at block F − 1 (named by its hash, the parent hash of block F, so a reorganisation
 * of the upstream cannot answer for another block), and keeps the answer as an entry at F − 1,
 * where every later read finds it. A datadir whose state starts at block 0 needs no upstream:
 * there, a value never written is unset. Class definitions are fetched once, kept by hash.
 *
 * Existence follows pathfinder (`crates/rpc/src/method/get_storage_at.rs`, `get_nonce.rs`): a
 * slot or nonce never written reads 0 on a contract deployed at N, and an address without a
 * deployed contract is {@link ContractNotFoundError}.
 */

/**
 * Where values older than the first block with state come from: the followed upstream, at the
 * block named by `blockHash` (felts as `0x…` strings). Undefined answers mean the upstream has no
 * contract there (storage, nonce, class hash) or no class of that hash declared there.
 */
export interface StarknetStateSource {
  storageAt(address: string, key: string, blockHash: string): Promise<string | undefined>;
  nonceAt(address: string, blockHash: string): Promise<string | undefined>;
  classHashAt(address: string, blockHash: string): Promise<string | undefined>;
  classAt(classHash: string, blockHash: string): Promise<unknown | undefined>;
}

/** An entry meaning: no contract at this address at that block. */
const ABSENT = new Uint8Array(0);
const ZERO = new Uint8Array(32);
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** `0x…` of 32 bytes, no leading zeros (the spec's FELT). */
export function feltHex(bytes: Uint8Array): string {
  const digits = bytesToHex64(bytes).replace(/^0+/, '');
  return `0x${digits === '' ? '0' : digits}`;
}

/** Reads contract state at stored blocks (see the module comment). */
export class StarknetState {
  constructor(
    private readonly store: StarknetStore,
    private readonly source: StarknetStateSource | undefined,
  ) {}

  /** The value of storage slot `key` of `address` after block `block` (32 bytes). */
  async storageAt(address: Uint8Array, key: Uint8Array, block: number): Promise<Uint8Array> {
    const range = await this.requireState(block);
    const prefix = statePrefix.storage(address, key);
    const value =
      (await this.latestEntry(prefix, block, range)) ??
      (await this.base(prefix, range, (hash) => this.source!.storageAt(feltHex(address), feltHex(key), hash)));
    if (value.length > 0) return value;
    // No contract before the first block with state, and the slot never written since.
    if (await this.deployedSince(address, block, range)) return ZERO;
    throw new ContractNotFoundError(feltHex(address), block);
  }

  /** The nonce of `address` after block `block` (32 bytes). */
  async nonceAt(address: Uint8Array, block: number): Promise<Uint8Array> {
    const range = await this.requireState(block);
    const prefix = statePrefix.nonce(address);
    const value = (await this.latestEntry(prefix, block, range)) ?? (await this.base(prefix, range, (hash) => this.source!.nonceAt(feltHex(address), hash)));
    if (value.length > 0) return value;
    if (await this.deployedSince(address, block, range)) return ZERO;
    throw new ContractNotFoundError(feltHex(address), block);
  }

  /** The class hash of the contract at `address` after block `block` (32 bytes). */
  async classHashAt(address: Uint8Array, block: number): Promise<Uint8Array> {
    const range = await this.requireState(block);
    const prefix = statePrefix.classHash(address);
    const value =
      (await this.latestEntry(prefix, block, range)) ?? (await this.base(prefix, range, (hash) => this.source!.classHashAt(feltHex(address), hash)));
    if (value.length > 0) return value;
    throw new ContractNotFoundError(feltHex(address), block);
  }

  /**
   * The definition of class `classHash` (as the upstream gave it) when it is declared by block
   * `block`: declared in a stored block ≤ `block`, or before the first block with state.
   */
  async classAt(classHash: Uint8Array, block: number): Promise<unknown> {
    const range = await this.requireState(block);
    const declared = await this.store.level.get(classDeclaredKey(classHash));
    let at = declared === undefined ? undefined : readBlockNumber(declared, 0);
    if (at === undefined) {
      // Not declared in a stored block: declared before the first block with state, or never.
      if (range.from === 0) throw new ClassHashNotFoundError(feltHex(classHash), block);
      at = range.from - 1;
      const definition = await this.fetchClass(classHash, at, range);
      if (definition === undefined) throw new ClassHashNotFoundError(feltHex(classHash), block);
      await this.store.level.batch([
        { type: 'put', key: classDefinitionKey(classHash), value: utf8Encoder.encode(JSON.stringify(definition)) },
        { type: 'put', key: classDeclaredKey(classHash), value: encodeBlockNumber(at) },
      ]);
      return definition;
    }
    if (at > block) throw new ClassHashNotFoundError(feltHex(classHash), block);
    const kept = await this.store.level.get(classDefinitionKey(classHash));
    if (kept !== undefined) return JSON.parse(utf8Decoder.decode(kept));
    const definition = await this.fetchClass(classHash, at, range);
    if (definition === undefined) throw new NotHeldError(`the upstream has no class ${feltHex(classHash)}, which block ${at} declared`);
    await this.store.level.put(classDefinitionKey(classHash), utf8Encoder.encode(JSON.stringify(definition)));
    return definition;
  }

  /** The state range, when it holds `block`; else {@link NotHeldError}. */
  private async requireState(block: number): Promise<StateRange> {
    const range = await this.store.stateRange();
    if (range === undefined) {
      throw new NotHeldError(`the state of block ${block} is not held: no state update is stored (import them with --state-updates, or follow an upstream)`);
    }
    if (block < range.from || block > range.through) {
      const held = range.through < range.from ? 'none' : `blocks ${range.from} to ${range.through}`;
      throw new NotHeldError(`the state of block ${block} is not held: state updates are stored for ${held}`);
    }
    return range;
  }

  /** The value of the highest entry of `prefix` at or below `block` and not below F − 1. */
  private async latestEntry(prefix: Uint8Array, block: number, range: StateRange): Promise<Uint8Array | undefined> {
    const floor = Math.max(range.from - 1, 0);
    const entries = await this.store.level.iterator({ gte: postingKey(prefix, floor), lte: postingKey(prefix, block), reverse: true, limit: 1 }).all();
    return entries[0]?.[1];
  }

  /**
   * The value of `prefix` before the first block with state: unset from block 0; otherwise asked
   * of the upstream at block F − 1 and kept there.
   */
  private async base(prefix: Uint8Array, range: StateRange, ask: (blockHash: string) => Promise<string | undefined>): Promise<Uint8Array> {
    if (range.from === 0) return ABSENT;
    const hash = await this.hashBefore(range, 'a value older than its first block with state');
    const answer = await ask(hash);
    const value = answer === undefined ? ABSENT : feltToBytes(answer);
    await this.store.level.put(postingKey(prefix, range.from - 1), value);
    return value;
  }

  /** Whether a contract is deployed at `address` by a stored block from F to `block`. */
  private async deployedSince(address: Uint8Array, block: number, range: StateRange): Promise<boolean> {
    const prefix = statePrefix.classHash(address);
    const entries = await this.store.level.iterator({ gte: postingKey(prefix, range.from), lte: postingKey(prefix, block), reverse: true, limit: 1 }).all();
    return entries.length === 1 && entries[0][1].length > 0;
  }

  private async fetchClass(classHash: Uint8Array, at: number, range: StateRange): Promise<unknown | undefined> {
    const hash = at === range.from - 1 ? await this.hashBefore(range, 'a class definition') : (await this.store.block(at))?.hash;
    if (hash === undefined) throw new NotHeldError(`block ${at}, which declared class ${feltHex(classHash)}, is not stored`);
    if (this.source === undefined)
      throw new NotHeldError(`the definition of class ${feltHex(classHash)} is not held: this network follows no upstream to ask for it`);
    return this.source.classAt(feltHex(classHash), hash);
  }

  /** The hash of block F − 1 (block F's parent), asked of the upstream; {@link NotHeldError} without one. */
  private async hashBefore(range: StateRange, what: string): Promise<string> {
    if (this.source === undefined) {
      throw new NotHeldError(
        `${what} is not held: state updates are stored from block ${range.from}, and this network follows no upstream to ask for what came before`,
      );
    }
    const first = await this.store.block(range.from);
    if (first === undefined) throw new NotHeldError(`block ${range.from}, the first with state, is not stored`);
    return first.parentHash;
  }
}
