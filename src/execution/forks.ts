import type { Common } from '@ethereumjs/common';
import { getActivePrecompiles, type PrecompileFunc } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { fastEipLookup } from './evm/common.js';
import { type MessageParams, messageParams } from './messageParams.js';

/**
 * What the call engine builds once per hardfork and reuses for every call on it: a Common set to
 * that fork, the transaction parameters messages are charged with, and the fork's precompiles.
 */

/** The rules of one hardfork, as calls on it need them. */
export interface Fork {
  /** The chain's Common copied and set to this fork (never changes fork afterwards). */
  common: Common;
  params: MessageParams;
  /** The fork's standard precompiles by unprefixed address (stateless functions, shareable). */
  precompiles: ReadonlyMap<string, PrecompileFunc>;
  /** Their addresses, which geth warms (not the set state overrides edit). */
  precompileAddresses: string[];
}

/** {@link Fork}s of one chain by hardfork name, built on first use. */
export class Forks {
  private readonly byName = new Map<string, Fork>();

  /**
   * `chainCommon` is the chain's Common (fork schedule, chain id, crypto); it is only copied.
   * With `fastPaths` off (`execution.evmFastPaths`), a fork's Common answers EIP lookups as the library does.
   */
  constructor(
    private readonly chainCommon: Common,
    private readonly fastPaths = true,
  ) {}

  /** The hardfork active at a block number and timestamp on this chain. */
  hardforkAt(blockNumber: bigint, timestamp: bigint): string {
    return this.chainCommon.getHardforkBy({ blockNumber, timestamp });
  }

  get(hardfork: string): Fork {
    let fork = this.byName.get(hardfork);
    if (!fork) {
      const common = this.chainCommon.copy();
      common.setHardfork(hardfork);
      // The transaction parameters (@ethereumjs/tx adds them the same way when it builds a tx).
      common.updateParams(paramsTx);
      if (this.fastPaths) fastEipLookup(common);
      const precompiles = getActivePrecompiles(common);
      fork = { common, params: messageParams(common), precompiles, precompileAddresses: [...precompiles.keys()] };
      this.byName.set(hardfork, fork);
    }
    return fork;
  }
}
