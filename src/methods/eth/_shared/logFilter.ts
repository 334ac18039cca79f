import { equalsBytes } from '@ethereumjs/util';
import type { StoredLog } from '../../../chain/receipts.js';
import { type BlockId, BlockNumberOrTag, type BlockParam } from '../../../codec/blockId.js';
import { dataToBytes, HexError } from '../../../codec/hex.js';
import { decoderSchema, Hash, type HexString, jsonType, wire } from '../../../codec/schemas.js';
import { type BloomBits, bloomBits, bloomMayContain } from './bloom.js';

/** Most topic positions a filter may have: a log has at most four (LOG0…LOG4); geth `maxTopics`. */
export const MAX_TOPIC_POSITIONS = 4;
/** Most addresses, and most alternatives per topic position; geth's `maxSubTopics` (1000). */
export const MAX_FILTER_ALTERNATIVES = 1000;

/** A block-number field of a filter: a number or a tag, never a hash. */
export type FilterBlock = Exclude<BlockId, { kind: 'hash' }>;

/**
 * An `eth_getLogs` filter, decoded. `topics[i]` lists the values allowed at position i; an empty
 * list is a wildcard. `addresses` empty means any emitter.
 */
export interface LogFilterCriteria {
  blockHash?: Uint8Array;
  fromBlock?: FilterBlock;
  toBlock?: FilterBlock;
  addresses: Uint8Array[];
  topics: Uint8Array[][];
}

const FIELDS = ['blockHash', 'fromBlock', 'toBlock', 'address', 'topics'] as const;
type Field = (typeof FIELDS)[number];

function decodeFixed(input: string, size: number, what: string): Uint8Array {
  const bytes = dataToBytes(input);
  if (bytes.length !== size) throw new HexError(`hex has invalid length ${bytes.length} after decoding; expected ${size} for ${what}`);
  return bytes;
}

function decodeBlock(value: unknown): FilterBlock {
  const parsed = BlockNumberOrTag.safeParse(value);
  if (!parsed.success) throw new HexError(parsed.error.issues[0]?.message ?? 'invalid block number');
  return parsed.data as FilterBlock;
}

function decodeAddresses(value: unknown): Uint8Array[] {
  if (typeof value === 'string') {
    try {
      return [decodeFixed(value, 20, 'address')];
    } catch (err) {
      throw new HexError(`invalid address: ${(err as Error).message}`);
    }
  }
  if (!Array.isArray(value)) throw new HexError('invalid addresses in query');
  return value.map((item, i) => {
    if (typeof item !== 'string') throw new HexError(`non-string address at index ${i}`);
    try {
      return decodeFixed(item, 20, 'address');
    } catch (err) {
      throw new HexError(`invalid address at index ${i}: ${(err as Error).message}`);
    }
  });
}

/**
 * Topics as geth reads them: each position is null (any), a topic, or a list of alternatives; a
 * null inside a list, or an empty list, makes the whole position a wildcard.
 */
function decodeTopics(value: unknown): Uint8Array[][] {
  if (!Array.isArray(value)) throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go struct field input.topics of type []interface {}`);
  return value.map((position): Uint8Array[] => {
    if (position === null) return [];
    if (typeof position === 'string') return [decodeFixed(position, 32, 'topic')];
    if (!Array.isArray(position)) throw new HexError('invalid topic(s)');
    const alternatives: Uint8Array[] = [];
    for (const item of position) {
      if (item === null) return [];
      if (typeof item !== 'string') throw new HexError('invalid topic(s)');
      alternatives.push(decodeFixed(item, 32, 'topic'));
    }
    return alternatives;
  });
}

function decodeCriteria(value: unknown): LogFilterCriteria {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HexError(`json: cannot unmarshal ${jsonType(value)} into Go value of type filters.FilterCriteria`);
  }
  // Go's encoding/json matches field names case-insensitively, ignores unknown ones, and treats
  // null as absent; so do we.
  const raw: Partial<Record<Field, unknown>> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = FIELDS.find((f) => f.toLowerCase() === key.toLowerCase());
    if (field && v !== null) raw[field] = v;
  }
  const criteria: LogFilterCriteria = { addresses: [], topics: [] };
  if (raw.blockHash !== undefined) {
    const parsed = Hash.safeParse(raw.blockHash);
    if (!parsed.success) throw new HexError(parsed.error.issues[0]?.message ?? 'invalid block hash');
    criteria.blockHash = parsed.data;
  }
  const fromBlock = raw.fromBlock === undefined ? undefined : decodeBlock(raw.fromBlock);
  const toBlock = raw.toBlock === undefined ? undefined : decodeBlock(raw.toBlock);
  if (criteria.blockHash) {
    if (fromBlock || toBlock) throw new HexError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  } else {
    if (fromBlock) criteria.fromBlock = fromBlock;
    if (toBlock) criteria.toBlock = toBlock;
  }
  if (raw.address !== undefined) criteria.addresses = decodeAddresses(raw.address);
  if (raw.topics !== undefined) criteria.topics = decodeTopics(raw.topics);
  return criteria;
}

/**
 * The filter object of `eth_getLogs` with geth's decoding rules and texts
 * (go-ethereum `eth/filters/api.go`, `FilterCriteria.UnmarshalJSON`).
 */
/** A log filter on the wire (geth `FilterCriteria`). */
export interface LogFilterWire {
  fromBlock?: BlockParam;
  toBlock?: BlockParam;
  blockHash?: HexString;
  address?: HexString | readonly HexString[] | null;
  topics?: readonly (HexString | readonly HexString[] | null)[] | null;
}

export const LogFilterSchema = wire<LogFilterWire>()(decoderSchema(decodeCriteria));

/** A filter ready to test blooms and logs; hashes of the filter values are computed once. */
export interface CompiledLogFilter {
  /** False when the bloom proves no log of the block (or receipt) can match. */
  mayMatchBloom(bloom: Uint8Array): boolean;
  /** Whether one log matches the addresses and topics. */
  matches(log: StoredLog): boolean;
}

function includes(list: readonly Uint8Array[], value: Uint8Array): boolean {
  for (const item of list) if (equalsBytes(item, value)) return true;
  return false;
}

/**
 * Compiles the address and topic rules of a filter (geth `filterLogs` and `bloomFilter`):
 * the emitter must be one of `addresses` (if any), and for each position i with alternatives the
 * log's topic i must exist and be one of them.
 */
export function compileLogFilter(addresses: readonly Uint8Array[], topics: readonly (readonly Uint8Array[])[]): CompiledLogFilter {
  const addressBits: BloomBits[] = addresses.map(bloomBits);
  const topicBits: BloomBits[][] = topics.filter((alts) => alts.length > 0).map((alts) => alts.map(bloomBits));
  // Positions past the last non-wildcard one still require the log to have that many topics.
  const minTopics = topics.length;
  return {
    mayMatchBloom(bloom) {
      if (addressBits.length > 0 && !addressBits.some((bits) => bloomMayContain(bloom, bits))) return false;
      for (const alternatives of topicBits) {
        if (!alternatives.some((bits) => bloomMayContain(bloom, bits))) return false;
      }
      return true;
    },
    matches([address, logTopics]) {
      if (addresses.length > 0 && !includes(addresses, address)) return false;
      if (logTopics.length < minTopics) return false;
      for (let i = 0; i < topics.length; i++) {
        if (topics[i].length > 0 && !includes(topics[i], logTopics[i])) return false;
      }
      return true;
    },
  };
}
