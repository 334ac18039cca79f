import { describe, expect, it } from 'vitest';
import { decodeEventRecord, encodeEventRecord, type StoredEvent } from './eventRecord.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** An `E` value as schema version 1 writes it (fields in this order, felts as imported). */
const STORED_JSON =
  '[3,1,"0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7",["0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9","0x1"],["0x2","0x0"],"0x0abc"]';

const EVENT: StoredEvent = {
  txIndex: 3,
  eventIndex: 1,
  fromAddress: '0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7',
  keys: ['0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9', '0x1'],
  data: ['0x2', '0x0'],
  transactionHash: '0x0abc',
};

describe('event record', () => {
  it('decodes a stored value into named fields', () => {
    expect(decodeEventRecord(utf8(STORED_JSON))).toStrictEqual(EVENT);
  });

  it('encodes to the stored format, byte for byte (datadirs written before stay readable)', () => {
    expect(new TextDecoder().decode(encodeEventRecord(EVENT))).toBe(STORED_JSON);
  });

  it('round-trips events without keys or data, and felts as imported (case, leading zeros)', () => {
    for (const ev of [
      { ...EVENT, keys: [], data: [] },
      { ...EVENT, fromAddress: '0x0049D3', keys: ['0x00'], txIndex: 0, eventIndex: 0 },
    ]) {
      expect(decodeEventRecord(encodeEventRecord(ev))).toStrictEqual(ev);
    }
  });
});
