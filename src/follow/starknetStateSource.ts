import { StateSourceError } from '../starknet/errors.js';
import { isFelt, normalizeFelt } from '../starknet/felt.js';
import type { StarknetStateSource } from '../starknet/stateReader.js';
import { type Upstream, UpstreamError, UpstreamRpcError } from './upstream.js';

/**
 * State older than a Starknet datadir's first block with state, asked of the followed upstream
 * (`starknet/stateReader.ts` keeps each answer): `starknet_getStorageAt`, `starknet_getNonce`,
 * `starknet_getClassHashAt` and `starknet_getClass` at a block named by its hash. The upstream's
 * "no such contract" (20 CONTRACT_NOT_FOUND) and "no such class" (28 CLASS_HASH_NOT_FOUND) are
 * answers; any other failure is a {@link StateSourceError} and nothing is kept.
 */

/** Starknet RPC's error codes for an address without a contract and an undeclared class. */
const CONTRACT_NOT_FOUND = 20;
const CLASS_HASH_NOT_FOUND = 28;

/** The state source of a followed upstream. */
export function upstreamStateSource(upstream: Upstream): StarknetStateSource {
  const ask = async (method: string, params: unknown[], missing: number): Promise<unknown> => {
    try {
      return await upstream.call(method, params);
    } catch (err) {
      if (err instanceof UpstreamRpcError && err.code === missing) return undefined;
      const reason = err instanceof UpstreamError ? err.message : String(err);
      throw new StateSourceError(`the followed node did not answer ${method}: ${reason}`);
    }
  };
  const felt = (value: unknown, method: string): string | undefined => {
    if (value === undefined) return undefined;
    if (!isFelt(value)) throw new StateSourceError(`the followed node answered ${method} with a malformed felt`);
    return normalizeFelt(value);
  };
  return {
    storageAt: async (address, key, blockHash) =>
      felt(await ask('starknet_getStorageAt', [address, key, { block_hash: blockHash }], CONTRACT_NOT_FOUND), 'starknet_getStorageAt'),
    nonceAt: async (address, blockHash) => felt(await ask('starknet_getNonce', [{ block_hash: blockHash }, address], CONTRACT_NOT_FOUND), 'starknet_getNonce'),
    classHashAt: async (address, blockHash) =>
      felt(await ask('starknet_getClassHashAt', [{ block_hash: blockHash }, address], CONTRACT_NOT_FOUND), 'starknet_getClassHashAt'),
    classAt: async (classHash, blockHash) => {
      const definition = await ask('starknet_getClass', [{ block_hash: blockHash }, classHash], CLASS_HASH_NOT_FOUND);
      if (definition !== undefined && (typeof definition !== 'object' || definition === null)) {
        throw new StateSourceError('the followed node answered starknet_getClass with something that is not a class');
      }
      return definition;
    },
  };
}
