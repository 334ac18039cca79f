import { bytesToHex } from '@ethereumjs/util';
import { DomainError } from '../errors/domainError.js';

/**
 * Where an archive that starts at block N (`chain/archiveStart.ts`) finds the state it does not
 * hold: the followed node, over JSON-RPC (`follow/upstreamState.ts`), or, in an EVM worker, the
 * serving thread that asks it (`workers/stateChannel.ts`). This layer speaks no JSON-RPC: it asks
 * a {@link StateSource} for the proof of a key and checks what comes back (`remoteState.ts`).
 */

/**
 * A trie node the datadir does not hold, read in an archive that starts at block N (the trie
 * database of such a datadir throws it on a miss instead of answering nothing: `trieDb.ts`). Its
 * message is never @ethereumjs/mpt's 'Missing node in DB', which `findPath` takes for an absent
 * key: a node not held locally must never read as an absent account or slot.
 */
export class MissingTrieNodeError extends DomainError {
  override readonly name = 'MissingTrieNodeError';
  constructor(readonly hash: Uint8Array) {
    super(`missing trie node ${bytesToHex(hash)}`);
  }
}

/** Contract code the datadir does not hold, read by its hash in an archive that starts at block N. */
export class MissingCodeError extends DomainError {
  override readonly name = 'MissingCodeError';
  constructor(readonly codeHash: Uint8Array) {
    super(`missing code ${bytesToHex(codeHash)}`);
  }
}

/**
 * Why state that is not held locally could not be read:
 * - `unreachable`: the followed node did not answer (down, slow, rate-limiting, an error answer):
 *   retry later;
 * - `invalid`: it answered a proof or code that does not verify against the trusted state root or
 *   the account's code hash: nothing of it was stored; retry later (or follow another node);
 * - `unavailable`: its state at the blocks asked does not hold the node (it no longer has the
 *   state of the block read, and the node has changed since): retrying will not help;
 * - `noSource`: no node is followed to ask (the datadir is served without `--follow`).
 */
export type RemoteStateFailure = 'unreachable' | 'invalid' | 'unavailable' | 'noSource';

/** State not held locally could not be fetched; `methods/errors.ts` gives each {@link RemoteStateFailure} its wire error. */
export class RemoteStateError extends DomainError {
  override readonly name: 'RemoteStateError' | 'SiblingSearchError' = 'RemoteStateError';
  constructor(
    readonly kind: RemoteStateFailure,
    message: string,
  ) {
    super(message);
  }

  /** Whether asking again later may succeed (the upstream was away or answered garbage). */
  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'invalid';
  }
}

/** An EIP-1186 answer as the source got it: the proof nodes, root first, and the state root they hang from. */
export interface StateProof {
  /**
   * The state root of the block the proof was asked at: the header's, from this datadir (trusted:
   * a block checked by its hash, or one executed here), never the upstream's word.
   */
  root: Uint8Array;
  accountProof: Uint8Array[];
  /** One proof per slot asked, in order. */
  storageProofs: Uint8Array[][];
}

/**
 * The state this datadir does not hold. `stateRoot` is the state read (a header's state root);
 * the source asks at the block that has it, if its upstream still has that block's state, else at
 * its head (a node untouched since is the same there). What it answers is checked by the caller.
 */
export interface StateSource {
  /** The proof of `address` and of each of its 32-byte `slots`. */
  proveAccount(address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<StateProof>;
  /** The code of `address` (checked by the caller against the code hash it read). */
  code(address: Uint8Array, stateRoot: Uint8Array): Promise<Uint8Array>;
}
