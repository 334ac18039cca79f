import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../config/settings.js';
import { prepareBlock } from '../../../starknet/blockOps.js';
import { parseBlockJson } from '../../../starknet/importBlocks.js';
import { blockKey } from '../../../starknet/keys.js';
import { openStarknetStore } from '../../../starknet/store.js';
import { formatBlockHeader } from './blockHeader.js';

/** The Starknet block cache's size: the setting's default. */
const STORE_BLOCK_CACHE = SETTINGS.starknet.blockCacheEntries.default;

/** Mainnet block 619596's header as the fixture holds it (`fixtures/starknet/mainnet-blocks.ndjson`). */
const BLOCK_619596 = {
  status: 'ACCEPTED_ON_L1',
  block_hash: '0x3ebe3c1df00f646b7d4a10591383a8c4b19f54c05e6866e9635845f94d9418a',
  parent_hash: '0x20e6003e5fbc2be11432827241042cdde630025a61d434f6f2e76066e88b254',
  block_number: 619596,
  new_root: '0xae159a0a5040b84efee7b898a7cf54c109f263ba8034567a3335ab521bde10',
  timestamp: 1710598967,
  sequencer_address: '0x1176a1bd84444c89232ec27754698e5d2e7e1a7f1539f12027f28b23ec9f3d8',
  starknet_version: '0.13.1',
  l1_gas_price: { price_in_fri: '0x3afeacfe53b2', price_in_wei: '0x8ab63076f' },
  l1_data_gas_price: { price_in_fri: '0x6ce', price_in_wei: '0x1' },
  l1_da_mode: 'BLOB',
  transactions: [],
};

describe('BLOCK_HEADER of a stored block', () => {
  it('the header fields round-trip through the block record; a record from before they were kept reads with the documented values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracenode-snheader-'));
    const store = await openStarknetStore(dir, { create: true, blockCacheEntries: STORE_BLOCK_CACHE });
    try {
      await store.appendBlock(prepareBlock(parseBlockJson(BLOCK_619596)));
      const { transactions: _, status: __, ...header } = BLOCK_619596;
      // l2_gas_price is absent from the source: pathfinder's 0x1.
      expect(formatBlockHeader((await store.block(619596))!)).toEqual({ ...header, l2_gas_price: { price_in_fri: '0x1', price_in_wei: '0x1' } });

      // A record as an earlier tracenode wrote it (schema 1, no `hdr`).
      const old = { hash: '0xabc', parent: '0xab', time: 1700000000, status: 'ACCEPTED_ON_L2', txs: 0, events: 0 };
      await store.level.put(blockKey(7), new TextEncoder().encode(JSON.stringify(old)));
      expect(formatBlockHeader((await store.block(7))!)).toEqual({
        block_hash: '0xabc',
        parent_hash: '0xab',
        block_number: 7,
        new_root: '0x0',
        timestamp: 1700000000,
        sequencer_address: '0x0',
        l1_gas_price: { price_in_fri: '0x0', price_in_wei: '0x0' },
        l2_gas_price: { price_in_fri: '0x1', price_in_wei: '0x1' },
        l1_data_gas_price: { price_in_fri: '0x0', price_in_wei: '0x0' },
        l1_da_mode: 'CALLDATA',
        starknet_version: '',
      });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a malformed header field is refused with its name', () => {
    expect(() => parseBlockJson({ ...BLOCK_619596, l1_da_mode: 'SOMETIMES' })).toThrow('l1_da_mode: want "BLOB" or "CALLDATA"');
    expect(() => parseBlockJson({ ...BLOCK_619596, l1_gas_price: { price_in_fri: '0xzz', price_in_wei: '0x1' } })).toThrow('l1_gas_price.price_in_fri');
    expect(() => parseBlockJson({ ...BLOCK_619596, new_root: 5 })).toThrow('new_root: want a felt string, got number');
  });
});
