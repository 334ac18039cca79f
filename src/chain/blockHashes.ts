import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { readArchiveStart, recordedAncestorHash } from './archiveStart.js';
import type { ChainStore } from './store.js';

/**
 * The chain as the EVM sees it: BLOCKHASH reads canonical block hashes from the store, and, in an
 * archive that starts at block N, those below N from the hashes recorded with it
 * (META.archiveAncestors, checked against block N's ancestry when fetched), else from `below`
 * (the follower's, which fetches them). Read-only; the VM never writes blocks through it.
 */
export function evmBlockchain(store: ChainStore, below?: (number: bigint) => Promise<Uint8Array | undefined>): EVMMockBlockchainInterface {
  const chain: EVMMockBlockchainInterface = {
    async getBlock(blockId: number | bigint) {
      const n = BigInt(blockId);
      const hash = (await store.canonicalHash(n)) ?? (await recordedBelowStart(store, n)) ?? (await below?.(n));
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

/** The recorded hash of block `number` below the archive's start, if the datadir is such an archive and has it. */
async function recordedBelowStart(store: ChainStore, number: bigint): Promise<Uint8Array | undefined> {
  const start = await readArchiveStart(store.level);
  return start === undefined ? undefined : recordedAncestorHash(store.level, start, number);
}
