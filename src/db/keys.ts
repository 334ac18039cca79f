/**
 * LevelDB key schema. Every key starts with a one-byte prefix naming its table; numbers are
 * 8-byte big-endian so that numeric order is key order.
 *
 * | prefix | key            | value                                   |
 * |--------|----------------|-----------------------------------------|
 * | `h`    | block hash     | header RLP                              |
 * | `b`    | block hash     | body RLP `[txs, uncles, withdrawals?]`  |
 * | `r`    | block hash     | receipts, our RLP encoding              |
 * | `d`    | block hash     | total difficulty (big-endian)           |
 * | `N`    | block hash     | block number (8 bytes)                  |
 * | `n`    | number         | canonical block hash                    |
 * | `x`    | tx hash        | block hash (32) + tx index (4)          |
 * | `s`    | trie node hash | state/storage trie node or contract code |
 * | `t`    | address ++ number | trace index: 1 byte, bit 0 from-side, bit 1 to-side (tracing/addressIndex.ts) |
 * | `a`    | address ++ … ++ number ++ tx index | address history (Otterscan search; tracing/addressHistory.ts) |
 * | `o`    | sender ++ nonce ++ number ++ tx index | the transaction of a sender's nonce (tracing/addressHistory.ts) |
 * | `c`    | contract ++ number ++ tx index | the creator of a contract (tracing/addressHistory.ts) |
 * | `l`    | number         | the address-history keys written for a height (tracing/addressHistory.ts) |
 * | `m`    | name (utf-8)   | metadata: head hash, genesis, schema    |
 */
export const PREFIX = {
  header: 0x68, // h
  body: 0x62, // b
  receipts: 0x72, // r
  td: 0x64, // d
  hashToNumber: 0x4e, // N
  canonical: 0x6e, // n
  txLookup: 0x78, // x
  state: 0x73, // s
  traceIndex: 0x74, // t
  addressHistory: 0x61, // a
  senderNonce: 0x6f, // o
  contractCreator: 0x63, // c
  historyList: 0x6c, // l
  meta: 0x6d, // m
} as const;

/** `prefix ++ bytes`. */
export function prefixed(prefix: number, bytes: Uint8Array): Uint8Array {
  const key = new Uint8Array(1 + bytes.length);
  key[0] = prefix;
  key.set(bytes, 1);
  return key;
}

/** 8-byte big-endian encoding of a block number. */
export function encodeNumber(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

/** Inverse of {@link encodeNumber}. */
export function decodeNumber(bytes: Uint8Array): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
}

const utf8 = new TextEncoder();
/** Metadata keys. */
export const META = {
  head: prefixed(PREFIX.meta, utf8.encode('head')),
  genesis: prefixed(PREFIX.meta, utf8.encode('genesis')),
  schema: prefixed(PREFIX.meta, utf8.encode('schema')),
  /** What the datadir holds: `ethereum` or `starknet` (the same key in both key schemas). */
  kind: prefixed(PREFIX.meta, utf8.encode('kind')),
  /**
   * A state root as a header names it (32 bytes) ++ the trie root that holds that state (32
   * bytes): written by `init --from-node` when the node's genesis header names the empty trie's
   * root for a state that is not empty (anvil, foundry issue 7366); read by `state/trieDb.ts`.
   */
  stateRootAlias: prefixed(PREFIX.meta, utf8.encode('stateRootAlias')),
  /**
   * Present (one byte, 1) when the chain's blocks are executed without the EIP-4788 and EIP-2935
   * system writes, as Hardhat makes them (`import/blockImporter.ts`, `chain/systemWrites.ts`).
   */
  systemWritesSkipped: prefixed(PREFIX.meta, utf8.encode('systemWritesSkipped')),
  /**
   * Present (one byte, 1) when the chain's blocks are executed keeping every account and storage
   * slot a transaction loaded, empty or zero, as anvil makes them (`import/blockImporter.ts`,
   * `chain/loadedState.ts`).
   */
  loadedStateKept: prefixed(PREFIX.meta, utf8.encode('loadedStateKept')),
  /**
   * Present (one byte, 1) when an OP-stack chain's blocks are executed as anvil's OP mode makes
   * them (`execution/op/opBlockRun.ts` `quirks: 'anvil'`; `import/blockImporter.ts`,
   * `chain/op/anvilQuirks.ts`).
   */
  opAnvilQuirks: prefixed(PREFIX.meta, utf8.encode('opAnvilQuirks')),
  /**
   * The first block of an archive that starts at block N (`init --at`, `serve --follow URL
   * --from …`): its number (8 bytes) ++ its hash (32 bytes). Absent in a datadir that holds the
   * chain from its genesis (`chain/archiveStart.ts`).
   */
  archiveStart: prefixed(PREFIX.meta, utf8.encode('archiveStart')),
  /**
   * The hashes of the up to 256 blocks below an archive's start, lowest first (32 bytes each), each
   * header checked by its hash and chained by parentHash to block N: what BLOCKHASH answers for
   * them in calls and replays at blocks from N (`chain/archiveStart.ts`).
   */
  archiveAncestors: prefixed(PREFIX.meta, utf8.encode('archiveAncestors')),
  /**
   * The name of the @ethereumjs/common built-in chain whose rules the datadir follows (`mainnet`,
   * `sepolia`, `holesky`, `hoodi`), in place of a genesis file's config: written by an archive
   * that starts at block N of a public network (`chain/chainRules.ts`).
   */
  builtinChain: prefixed(PREFIX.meta, utf8.encode('builtinChain')),
  /**
   * The number (8 bytes) of the first proof-of-stake block of a chain that merges by total
   * difficulty (a genesis `terminalTotalDifficulty` above 0 and no merge block): written with that
   * block (`chain/mergeByDifficulty.ts`).
   */
  mergeBlock: prefixed(PREFIX.meta, utf8.encode('mergeBlock')),
} as const;

/**
 * Version of this key schema (`db/schema.ts`). Schema 2 is schema 1 plus keys an older release
 * would misread by not knowing them: an archive that starts at block N (`archiveStart`,
 * `builtinChain`), the flags of development nodes' chains (`stateRootAlias`,
 * `systemWritesSkipped`, `loadedStateKept`, `opAnvilQuirks`) and the merge block of a chain merged by total
 * difficulty (`mergeBlock`). A datadir is written as schema 2 by the write that
 * first puts one of them there, so a release that reads only schema 1 refuses it, and every other
 * datadir stays schema 1, openable by that release too (a rollback).
 */
export const SCHEMA_VERSION = 2;

/** The schema of a datadir that holds none of schema 2's keys: what releases before them read. */
export const SCHEMA_VERSION_BASE = 1;

/** The value of {@link META.kind} in an Ethereum datadir. */
export const KIND_ETHEREUM = 'ethereum';
