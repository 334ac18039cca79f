import type { ResourcePrice } from '../../../starknet/block.js';
import type { StoredBlock } from '../../../starknet/store.js';

/**
 * A stored block as the spec's BLOCK_HEADER (starkware-libs/starknet-specs v0.8
 * `api/starknet_api_openrpc.json`), the result of `starknet_subscriptionNewHeads`.
 *
 * Every field is the block's own, as its source gave it (the followed upstream's
 * `starknet_getBlockWithReceipts`, or an imported NDJSON line). A field the source did not give
 * (old NDJSON files, blocks stored by a tracenode from before the header was kept) gets the value
 * pathfinder stores for it: `sequencer_address` 0x0 and prices 0x0 (what blocks from before
 * those fields existed carry), `l2_gas_price` 0x1 (pathfinder's value for blocks before
 * Starknet 0.13.3), `l1_da_mode` CALLDATA, `starknet_version` "" and, having no better,
 * `new_root` 0x0.
 */

/** BLOCK_HEADER on the wire, in the spec's field order. */
export interface RpcBlockHeader {
  block_hash: string;
  parent_hash: string;
  block_number: number;
  new_root: string;
  timestamp: number;
  sequencer_address: string;
  l1_gas_price: RpcResourcePrice;
  l2_gas_price: RpcResourcePrice;
  l1_data_gas_price: RpcResourcePrice;
  l1_da_mode: 'BLOB' | 'CALLDATA';
  starknet_version: string;
}

/** RESOURCE_PRICE on the wire. */
export interface RpcResourcePrice {
  price_in_fri: string;
  price_in_wei: string;
}

const ZERO_PRICE: ResourcePrice = { priceInFri: '0x0', priceInWei: '0x0' };
const ONE_PRICE: ResourcePrice = { priceInFri: '0x1', priceInWei: '0x1' };

const rpcPrice = (p: ResourcePrice): RpcResourcePrice => ({ price_in_fri: p.priceInFri, price_in_wei: p.priceInWei });

/** The BLOCK_HEADER of a stored block (see the module comment for absent fields). */
export function formatBlockHeader(block: StoredBlock): RpcBlockHeader {
  const f = block.fields ?? {};
  return {
    block_hash: block.hash,
    parent_hash: block.parentHash,
    block_number: block.number,
    new_root: f.newRoot ?? '0x0',
    timestamp: block.timestamp,
    sequencer_address: f.sequencerAddress ?? '0x0',
    l1_gas_price: rpcPrice(f.l1GasPrice ?? ZERO_PRICE),
    l2_gas_price: rpcPrice(f.l2GasPrice ?? ONE_PRICE),
    l1_data_gas_price: rpcPrice(f.l1DataGasPrice ?? ZERO_PRICE),
    l1_da_mode: f.l1DaMode ?? 'CALLDATA',
    starknet_version: f.starknetVersion ?? '',
  };
}
