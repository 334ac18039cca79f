import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { equalsBytes } from '@ethereumjs/util';
import { readArchiveStart, recordedAncestorHash } from './archiveStart.js';
import type { ChainStore } from './store.js';

/** The block a VM executes on: the hash and number of the parent of the block it runs. */
export interface BranchTip {
  number: bigint;
  hash: Uint8Array;
}

/**
 * The chain as the EVM sees it: BLOCKHASH reads block hashes along the ancestry of the block being
 * executed — `tip()`, its parent, when given: a block of a side chain (an imported file's fork, a
 * reorganisation's new branch, a replay of a block no longer canonical) sees its own ancestors,
 * not the canonical blocks at their heights — else the canonical ones from the store; in an
 * archive that starts at block N, those below N from the hashes recorded with it
 * (META.archiveAncestors, checked against block N's ancestry when fetched), else from `below` (the
 * follower's, which fetches them). Read-only; the VM never writes blocks through it.
 */
export function evmBlockchain(
  store: ChainStore,
  below?: (number: bigint) => Promise<Uint8Array | undefined>,
  tip?: () => BranchTip | undefined,
): EVMMockBlockchainInterface {
  const branches = new BranchAncestry(store);
  const chain: EVMMockBlockchainInterface = {
    async getBlock(blockId: number | bigint) {
      const n = BigInt(blockId);
      const from = tip?.();
      const onBranch = from === undefined ? undefined : await branches.hashAt(from, n);
      const hash = onBranch ?? (await store.canonicalHash(n)) ?? (await recordedBelowStart(store, n)) ?? (await below?.(n));
      if (!hash) throw new Error(`block ${blockId} not found`);
      return { hash: () => hash };
    },
    async putBlock() {
      throw new Error('read-only chain');
    },
    shallowCopy() {
      return chain;
    },
  };
  return chain;
}

/**
 * The hashes of a side branch's blocks, from a tip down to the first canonical block below it
 * (kept for the last tip asked about: a VM runs one block at a time).
 */
class BranchAncestry {
  private tip: string | undefined;
  /** The branch's own blocks by number (those not canonical); empty when the tip is canonical. */
  private own = new Map<bigint, Uint8Array>();
  constructor(private readonly store: ChainStore) {}

  /** The hash of block `number` on the ancestry of `tip` where it leaves the canonical chain; undefined where it is canonical. */
  async hashAt(tip: BranchTip, number: bigint): Promise<Uint8Array | undefined> {
    if (number > tip.number) return undefined;
    const key = `${tip.number}:${tip.hash.join(',')}`;
    if (this.tip !== key) {
      this.tip = key;
      this.own = new Map();
      let hash = tip.hash;
      let n = tip.number;
      for (;;) {
        const canonical = await this.store.canonicalHash(n);
        if (canonical !== undefined && equalsBytes(canonical, hash)) break;
        const header = await this.store.headerByHash(hash);
        if (header === undefined) break;
        this.own.set(n, hash);
        if (n === 0n) break;
        hash = header.parentHash;
        n--;
      }
    }
    return this.own.get(number);
  }
}

/** The recorded hash of block `number` below the archive's start, if the datadir is such an archive and has it. */
async function recordedBelowStart(store: ChainStore, number: bigint): Promise<Uint8Array | undefined> {
  const start = await readArchiveStart(store.level);
  return start === undefined ? undefined : recordedAncestorHash(store.level, start, number);
}
