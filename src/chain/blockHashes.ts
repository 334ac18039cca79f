import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { ChainStore } from './store.js';

/**
 * The chain as the EVM sees it: BLOCKHASH reads canonical block hashes from the store, and, in an
 * archive that starts at block N, those below N from `below` (the follower's, checked against
 * block N's ancestry). Read-only; the VM never writes blocks through it.
 */
export function evmBlockchain(store: ChainStore, below?: (number: bigint) => Promise<Uint8Array | undefined>): EVMMockBlockchainInterface {
  const chain: EVMMockBlockchainInterface = {
    async getBlock(blockId: number | bigint) {
      const hash = (await store.canonicalHash(BigInt(blockId))) ?? (await below?.(BigInt(blockId)));
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
