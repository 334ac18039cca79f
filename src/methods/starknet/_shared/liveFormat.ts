import type { StarknetEventsFormat } from '../../../live/starknet/starknetEvents.js';
import type { StarknetNotification } from '../../../live/starknet/subscriptionHub.js';
import { formatBlockHeader } from './blockHeader.js';
import { toRpcEvent } from './emittedEvent.js';

/** The spec's notification method of each kind (Starknet WebSocket spec v0.8, `api/starknet_ws_api.json`). */
const METHOD: Record<StarknetNotification, string> = {
  newHeads: 'starknet_subscriptionNewHeads',
  events: 'starknet_subscriptionEvents',
  reorg: 'starknet_subscriptionReorg',
};

/**
 * The wire side of a Starknet network's subscriptions, given to the live layer
 * (`live/starknet/`), which renders each header, event and reorganisation once through it:
 * BLOCK_HEADER, EMITTED_EVENT and REORG_DATA, in the envelope
 * `{"jsonrpc":"2.0","method":M,"params":{"subscription_id":ID,"result":…}}`.
 */
export const STARKNET_LIVE_FORMAT: StarknetEventsFormat = {
  render: {
    header: formatBlockHeader,
    event: (block, ev) =>
      toRpcEvent({
        fromAddress: ev.fromAddress,
        keys: ev.keys,
        data: ev.data,
        blockHash: block.hash,
        blockNumber: block.number,
        transactionHash: ev.transactionHash,
        transactionIndex: ev.txIndex,
        eventIndex: ev.eventIndex,
      }),
    reorg: (first, last) => ({
      starting_block_hash: first.hash,
      starting_block_number: first.number,
      ending_block_hash: last.hash,
      ending_block_number: last.number,
    }),
  },
  frame: (kind, id, result) => `{"jsonrpc":"2.0","method":"${METHOD[kind]}","params":{"subscription_id":"${id}","result":${result}}}`,
};
