import { createMethodTable, type MethodTable } from '../rpc/method.js';
import { toRpcError } from './errors.js';
import { blockNumber } from './starknet/blockNumber.js';
import type { StarknetContext } from './starknet/context.js';
import { getEvents } from './starknet/getEvents.js';
import { subscribeEvents } from './starknet/subscribeEvents.js';
import { subscribeNewHeads } from './starknet/subscribeNewHeads.js';
import { unsubscribe } from './starknet/unsubscribe.js';

/**
 * The Starknet method table, and the context API the CLI builds networks with (re-exported from
 * `starknet/context.ts`, where the method files import it from).
 */
export { closeStarknetContext, createStarknetContext, type StarknetContext, starknetHead } from './starknet/context.js';

/**
 * Every method a Starknet network serves, sorted by wire name. Anything else is -32601. Domain
 * errors the handlers let through become Starknet wire errors in `toRpcError` (`errors.ts`).
 */
export const starknetMethods: MethodTable<StarknetContext> = createMethodTable<StarknetContext>(
  [
    blockNumber, // starknet_blockNumber
    getEvents, // starknet_getEvents
    subscribeEvents, // starknet_subscribeEvents (WebSocket)
    subscribeNewHeads, // starknet_subscribeNewHeads (WebSocket)
    unsubscribe, // starknet_unsubscribe (WebSocket)
  ],
  toRpcError,
);
