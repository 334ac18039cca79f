import { defineMethod } from '../../rpc/method.js';
import { NONE } from '../raises.js';

/**
 * The Starknet JSON-RPC specification version this node's answers follow: 0.8.1
 * (starkware-libs/starknet-specs tag v0.8.1; pathfinder's `/rpc/v0_8` answers the same string).
 * Block ids also take the 0.9 tags `l1_accepted` and `pre_confirmed`.
 */
export const STARKNET_SPEC_VERSION = '0.8.1';

/** `starknet_specVersion`: {@link STARKNET_SPEC_VERSION}. */
export const specVersion = defineMethod({
  name: 'starknet_specVersion',
  raises: NONE,
  params: [],
  handler: (): string => STARKNET_SPEC_VERSION,
});
