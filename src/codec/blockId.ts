import { fixedDataToBytes, HexError, quantityToBigInt } from './hex.js';
import { quoteString } from './quote.js';
import { decoderSchema, type HexString, jsonType, wire } from './schemas.js';

/** Block tags. An imported chain has no pending block and no consensus client: see README. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';
const TAGS: readonly string[] = ['latest', 'earliest', 'pending', 'safe', 'finalized'];

/** A decoded block parameter (geth `BlockNumberOrHash`, EIP-1898). */
export type BlockId = { kind: 'tag'; tag: BlockTag } | { kind: 'number'; number: bigint } | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean };

function decodeNumberOrTag(s: string): BlockId {
  if (TAGS.includes(s)) return { kind: 'tag', tag: s as BlockTag };
  const n = quantityToBigInt(s, 64);
  if (n > 0x7fffffffffffffffn) throw new HexError('blocknumber too high');
  return { kind: 'number', number: n };
}

function decode(value: unknown, allowHash: boolean): BlockId {
  if (typeof value === 'string') {
    if (allowHash && value.length === 66) return { kind: 'hash', hash: fixedDataToBytes(value, 32, 'common.Hash'), requireCanonical: false };
    return decodeNumberOrTag(value);
  }
  if (allowHash && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      if (!['blockHash', 'blockNumber', 'requireCanonical'].includes(key)) throw new HexError(`unknown field ${quoteString(key)} in block parameter`);
    }
    const hasHash = o.blockHash !== undefined && o.blockHash !== null;
    const hasNumber = o.blockNumber !== undefined && o.blockNumber !== null;
    if (hasHash && hasNumber) throw new HexError('cannot specify both BlockHash and BlockNumber, choose one or the other');
    if (!hasHash && !hasNumber) throw new HexError('must specify either BlockHash or BlockNumber');
    if (o.requireCanonical !== undefined && typeof o.requireCanonical !== 'boolean') throw new HexError('requireCanonical must be a boolean');
    if (hasHash) {
      if (typeof o.blockHash !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(o.blockHash)} into Go value of type common.Hash`);
      return { kind: 'hash', hash: fixedDataToBytes(o.blockHash, 32, 'common.Hash'), requireCanonical: o.requireCanonical === true };
    }
    if (typeof o.blockNumber !== 'string') throw new HexError(`json: cannot unmarshal ${jsonType(o.blockNumber)} into Go value of type rpc.BlockNumber`);
    return decodeNumberOrTag(o.blockNumber);
  }
  throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type rpc.BlockNumber${allowHash ? 'OrHash' : ''}`);
}

/** A block parameter on the wire: a tag, a number or (where a hash is allowed) a hash or an EIP-1898 object. */
export type BlockParam = BlockTag | HexString | { blockHash?: HexString; blockNumber?: BlockTag | HexString; requireCanonical?: boolean };

function schema(allowHash: boolean) {
  return decoderSchema((value) => decode(value, allowHash));
}

/** Block number, tag, 32-byte hash, or EIP-1898 object: the state methods' block parameter. */
export const BlockNumberOrHash = wire<BlockParam>()(schema(true));
/** Block number or tag only (uncle getters, trace_block…). */
export const BlockNumberOrTag = wire<BlockTag | HexString>()(schema(false));
