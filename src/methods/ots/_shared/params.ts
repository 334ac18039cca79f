import { type BlockId, BlockNumberOrHash, type BlockParam, type BlockTag } from '../../../codec/blockId.js';
import { HexError, quantityToBigInt } from '../../../codec/hex.js';
import { decoderSchema, directDecoder, type HexString, jsonType, wire } from '../../../codec/schemas.js';

/**
 * Parameters as erigon's Otterscan API decodes them (`rpc/jsonrpc/otterscan_api.go`): page numbers,
 * page sizes, nonces and search blocks are Go unsigned integers, so JSON numbers only (Otterscan
 * sends numbers); block parameters are erigon's `rpc.BlockNumber`, which takes a JSON number, a
 * hex or decimal string, or a tag.
 */

const TAGS: readonly string[] = ['latest', 'earliest', 'pending', 'safe', 'finalized'];
const MAX_BLOCK = 0x7fffffffffffffffn;

/** A Go `uintN` from JSON: an integer number in range, with encoding/json's texts otherwise. */
function uintSchema(bits: 8 | 16 | 64) {
  const goType = `uint${bits === 64 ? '64' : bits}`;
  const max = bits === 64 ? BigInt(Number.MAX_SAFE_INTEGER) : (1n << BigInt(bits)) - 1n;
  return wire<number>()(
    decoderSchema((value): number => {
      if (typeof value !== 'number') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type ${goType}`);
      if (!Number.isInteger(value) || value < 0 || BigInt(value) > max) {
        throw new HexError(`json: cannot unmarshal number ${value} into Go value of type ${goType}`);
      }
      return value;
    }),
  );
}

/** A page number or page size of ots_getBlockTransactions (`uint8`). */
export const Uint8Param = uintSchema(8);
/** A page size of ots_searchTransactions* (`uint16`). */
export const Uint16Param = uintSchema(16);
/** A block number of ots_searchTransactions*, a nonce (`uint64`; at most 2^53−1 here). */
export const Uint64Param = uintSchema(64);

function decodeBlockNumber(value: unknown): Exclude<BlockId, { kind: 'hash' }> {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new HexError(`json: cannot unmarshal number ${value} into Go value of type rpc.BlockNumber`);
    return { kind: 'number', number: BigInt(value) };
  }
  if (typeof value !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type rpc.BlockNumber`);
  if (TAGS.includes(value)) return { kind: 'tag', tag: value as BlockTag };
  const number = /^(0|[1-9][0-9]{0,19})$/.test(value) ? BigInt(value) : quantityToBigInt(value, 64);
  if (number > MAX_BLOCK) throw new HexError('block number larger than int64');
  return { kind: 'number', number };
}

/** erigon's `rpc.BlockNumber`: a JSON number, a hex or decimal string, or a tag. */
export const OtsBlockNumber = wire<BlockTag | HexString | number>()(decoderSchema(decodeBlockNumber));

const decodeNumberOrHash = directDecoder(BlockNumberOrHash) as (value: unknown) => BlockId;

/** erigon's `rpc.BlockNumberOrHash` (ots_hasCode): also a JSON number, as Otterscan may send one. */
export const OtsBlockNumberOrHash = wire<BlockParam | number>()(
  decoderSchema((value): BlockId => (typeof value === 'number' ? decodeBlockNumber(value) : decodeNumberOrHash(value))),
);
