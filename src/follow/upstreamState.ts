import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { ArchiveStart } from '../chain/archiveStart.js';
import { LruCache } from '../chain/lru.js';
import type { ChainStore } from '../chain/store.js';
import { RemoteStateError, type StateProof, type StateSource } from '../state/stateSource.js';
import { type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';

/**
 * The followed node as the {@link StateSource} of an archive that starts at block N: the proofs
 * (`eth_getProof`) and code (`eth_getCode`) of the keys a read at block M ≥ N needs and the datadir
 * does not hold. A node missing at M was in the state of block N and untouched up to M (else it
 * would have been written here), so the upstream holds it in M's state, and in any later state in
 * which it is still untouched. The block is named by hash (EIP-1898), so a reorganisation of the
 * upstream cannot slip another state in:
 *
 * 1. block M itself (a canonical block of this datadir among the last {@link RECENT_BLOCKS}
 *    whose header names that state root), when the upstream still has its state;
 * 2. else this datadir's head (a pruned node keeps the state of its last ~128 blocks only).
 *
 * The proof is answered with the state root of the block asked, from this datadir's header (the
 * trust anchor the caller checks every node against: `state/remoteState.ts`). Requests for the
 * same key at once share one fetch. Counts fetches, bytes, time and failures by kind for the
 * metrics.
 */

/** Canonical blocks below the head searched for the block of a state root. */
const RECENT_BLOCKS = 128;

/** What the upstream was asked for, by kind, since start. */
export interface RemoteFetchStats {
  /** Fetches that were answered (and handed on to be checked). */
  fetches: number;
  /** Fetches that failed (unreachable, an error answer, a malformed one). */
  failures: number;
  /** Bytes of proof nodes or code received. */
  bytes: number;
  /** Time spent waiting for the upstream, seconds. */
  seconds: number;
}

type Kind = 'proof' | 'code';

export class UpstreamStateSource implements StateSource {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly blockOfRoot = new LruCache<string, Uint8Array>(1024);
  private readonly counts: Record<Kind, RemoteFetchStats> = {
    proof: { fetches: 0, failures: 0, bytes: 0, seconds: 0 },
    code: { fetches: 0, failures: 0, bytes: 0, seconds: 0 },
  };

  constructor(
    private readonly upstream: Upstream,
    private readonly store: ChainStore,
    private readonly start: ArchiveStart,
  ) {}

  stats(): Record<Kind, RemoteFetchStats> {
    return { proof: { ...this.counts.proof }, code: { ...this.counts.code } };
  }

  proveAccount(address: Uint8Array, slots: readonly Uint8Array[], stateRoot: Uint8Array): Promise<StateProof> {
    const key = `p${bytesToHex(address)}${slots.map(bytesToHex).join('')}${bytesToHex(stateRoot)}`;
    return this.shared(key, () =>
      this.atBestBlock('proof', stateRoot, async (header) => {
        const answer = await this.upstream.call('eth_getProof', [bytesToHex(address), slots.map(bytesToHex), { blockHash: bytesToHex(header.hash()) }]);
        const proof = parseProof(answer, slots.length);
        proof.root = header.stateRoot;
        return { value: proof, bytes: [...proof.accountProof, ...proof.storageProofs.flat()].reduce((n, b) => n + b.length, 0) };
      }),
    );
  }

  code(address: Uint8Array, stateRoot: Uint8Array): Promise<Uint8Array> {
    return this.shared(`c${bytesToHex(address)}${bytesToHex(stateRoot)}`, () =>
      this.atBestBlock('code', stateRoot, async (header) => {
        const code = hexToBytes(
          hexString(await this.upstream.call('eth_getCode', [bytesToHex(address), { blockHash: bytesToHex(header.hash()) }]), 'code') as `0x${string}`,
        );
        return { value: code, bytes: code.length };
      }),
    );
  }

  /** One fetch per key at a time: callers asking for the same key share it. */
  private shared<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    const p = fetch().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /**
   * `ask` at the block of `stateRoot`, then at the head when the upstream no longer has that
   * block's state (an error answer); an unreachable upstream fails at once (retryable).
   */
  private async atBestBlock<T>(kind: Kind, stateRoot: Uint8Array, ask: (header: BlockHeader) => Promise<{ value: T; bytes: number }>): Promise<T> {
    const candidates = await this.candidates(stateRoot);
    let lastError: Error | undefined;
    for (const header of candidates) {
      const t0 = performance.now();
      try {
        const { value, bytes } = await ask(header);
        this.counts[kind].fetches++;
        this.counts[kind].bytes += bytes;
        this.counts[kind].seconds += (performance.now() - t0) / 1000;
        return value;
      } catch (err) {
        this.counts[kind].failures++;
        this.counts[kind].seconds += (performance.now() - t0) / 1000;
        if (!(err instanceof UpstreamRpcError)) throw unreachable(err);
        lastError = err;
      }
    }
    throw new RemoteStateError('unreachable', `the upstream could not give the state (${lastError?.message ?? 'no block to ask at'}): retry later`);
  }

  /** The headers to ask at: the block of `stateRoot` (if recent and canonical), then the head. */
  private async candidates(stateRoot: Uint8Array): Promise<BlockHeader[]> {
    const head = await this.store.headHeader();
    if (!head) throw new RemoteStateError('unreachable', 'the datadir has no head block to ask the upstream at');
    const own = await this.blockOf(stateRoot, head);
    return own === undefined || equalsBytes(own.hash(), head.hash()) ? [head] : [own, head];
  }

  /** The canonical block among the head's last {@link RECENT_BLOCKS} (and the start) whose header names `stateRoot`. */
  private async blockOf(stateRoot: Uint8Array, head: BlockHeader): Promise<BlockHeader | undefined> {
    const key = bytesToHex(stateRoot);
    const known = this.blockOfRoot.get(key);
    if (known) return this.store.headerByHash(known);
    const lowest = head.number - BigInt(RECENT_BLOCKS) > this.start.number ? head.number - BigInt(RECENT_BLOCKS) : this.start.number;
    for (let n = head.number; n >= lowest; n--) {
      const header = n === head.number ? head : await this.store.headerByNumber(n);
      if (header && equalsBytes(header.stateRoot, stateRoot)) {
        this.blockOfRoot.set(key, header.hash());
        return header;
      }
    }
    return undefined;
  }
}

/** An upstream failure as the state layer names it: retryable. */
export function unreachable(err: unknown): RemoteStateError {
  if (err instanceof RemoteStateError) return err;
  const reason = err instanceof UpstreamError ? err.message : `upstream answered something unreadable: ${(err as Error).message}`;
  return new RemoteStateError('unreachable', `state not held locally, and the upstream could not give it: ${reason}; retry later`);
}

/** An EIP-1186 answer's proof nodes (the root is the caller's); `interned` makes a node repeated across answers one array. */
export function parseProof(answer: unknown, slots: number, interned?: Map<string, Uint8Array>): StateProof {
  const json = answer as { accountProof?: unknown; storageProof?: unknown } | null;
  const node = (n: unknown, what: string): Uint8Array => {
    const hex = hexString(n, `${what} node`);
    const known = interned?.get(hex);
    if (known !== undefined) return known;
    const bytes = hexToBytes(hex as `0x${string}`);
    interned?.set(hex, bytes);
    return bytes;
  };
  const nodes = (list: unknown, what: string): Uint8Array[] => {
    if (!Array.isArray(list)) throw new UpstreamError(`upstream answered eth_getProof without ${what}`);
    return list.map((n) => node(n, what));
  };
  const accountProof = nodes(json?.accountProof, 'accountProof');
  const storage = json?.storageProof;
  if (!Array.isArray(storage) || storage.length !== slots)
    throw new UpstreamError(`upstream answered eth_getProof with ${Array.isArray(storage) ? storage.length : 'no'} storage proofs for ${slots} keys`);
  const storageProofs = storage.map((p: { proof?: unknown }) => nodes(p?.proof, 'storageProof'));
  return { root: new Uint8Array(32), accountProof, storageProofs };
}
