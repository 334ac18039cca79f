import { type BlockHeader, createBlockHeaderFromRPC } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToUnprefixedHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { type FetchedStateStore, hangingNodes } from '../state/remoteState.js';
import { type Upstream, UpstreamError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';

/**
 * A block's execution witness from the followed node (`debug_executionWitness`: geth, reth and
 * erigon serve it, and tracenode), as an archive that starts at block N takes it before executing
 * the block: every trie node and code the block reads, in one call. Two shapes are read: geth's
 * (`{headers: [header JSON], codes, state, keys: null}`) and reth's (alloy's `ExecutionWitness`:
 * `{state, codes, keys, headers: [RLP]}`).
 *
 * Nothing of it is taken on the node's word. A trie node is let in only when it hangs from the
 * parent's state root (`state/remoteState.ts` hangingNodes: the state trie from that root, each
 * storage trie from the storage root of an account leaf let in); any other is left out, never
 * stored. Real witnesses hold such nodes (reth's of Hoodi block 1,281,069 holds 2,797, and a
 * mainnet one from zeth's test data 9), and an altered node is one too: whatever the block then
 * lacks is fetched by proof as it reads it (`state/fetchOnMiss.ts`), or its run stops naming the
 * node. A code is stored only when an account
 * leaf let in names its hash (a code the block itself creates and runs is in geth's witness too,
 * and made again by execution). The headers only answer BLOCKHASH below the archive's start, and
 * only those chained by their hashes to the parent (each one's hash is the next one's
 * parentHash, the last one is the parent).
 */

/** What one witness brought. */
export interface WitnessFetch {
  nodes: number;
  codes: number;
  bytes: number;
  /** Nodes of the witness that hang from nothing trusted: left out. */
  unreachable: number;
  /** Hashes of ancestors, by number, chained to the parent (BLOCKHASH). */
  ancestors: Map<bigint, Uint8Array>;
}

/** The execution witness of block `number` as the upstream answers it (asked ahead of its execution by `blockState.ts`). */
export function witnessOf(upstream: Upstream, number: bigint): Promise<unknown> {
  return upstream.call('debug_executionWitness', [`0x${number.toString(16)}`]);
}

/**
 * Checks and stores the witness of block `number` (executed on `parent`, whose hash its
 * parentHash names): `answer` when it was asked ahead, else asked now.
 */
export async function fetchWitness(
  upstream: Upstream,
  number: bigint,
  parent: BlockHeader,
  store: FetchedStateStore,
  common: Common,
  answer?: Promise<unknown>,
): Promise<WitnessFetch> {
  const json = (await (answer ?? witnessOf(upstream, number))) as { state?: unknown; codes?: unknown; headers?: unknown } | null;
  const state = hexList(json?.state, 'state');
  const codes = hexList(json?.codes ?? [], 'codes');
  const { accepted, codeHashes, unreachable } = hangingNodes(parent.stateRoot, state);
  await store.storeNodes(accepted);
  let stored = 0;
  let bytes = state.reduce((n, b) => n + b.length, 0);
  for (const code of codes) {
    bytes += code.length;
    const hash = keccak256(code);
    if (!codeHashes.has(bytesToUnprefixedHex(hash))) continue;
    await store.storeCode(hash, code);
    stored++;
  }
  return { nodes: accepted.size, codes: stored, bytes, unreachable, ancestors: chainedAncestors(json?.headers, parent, common) };
}

function hexList(value: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(value)) throw new UpstreamError(`upstream answered debug_executionWitness without ${what}`);
  return value.map((v) => hexToBytes(hexString(v, `witness ${what} entry`) as `0x${string}`));
}

/**
 * The headers of a witness that chain to `parent` by their hashes, as number → hash; none when
 * they do not (they only serve BLOCKHASH, which then asks the upstream for the headers).
 */
function chainedAncestors(headers: unknown, parent: BlockHeader, common: Common): Map<bigint, Uint8Array> {
  const out = new Map<bigint, Uint8Array>();
  if (!Array.isArray(headers)) return out;
  const decoded: Array<{ number: bigint; hash: Uint8Array; parentHash: Uint8Array }> = [];
  for (const header of headers) {
    const one = decodeHeader(header, common);
    if (one === undefined) return out;
    decoded.push(one);
  }
  let expected = parent.hash();
  for (let i = decoded.length - 1; i >= 0; i--) {
    if (!equalsBytes(decoded[i].hash, expected)) return out;
    out.set(decoded[i].number, decoded[i].hash);
    expected = decoded[i].parentHash;
  }
  return out;
}

/** A witness header: geth's JSON object, or reth's RLP bytes; undefined when it cannot be read. */
function decodeHeader(header: unknown, common: Common): { number: bigint; hash: Uint8Array; parentHash: Uint8Array } | undefined {
  try {
    if (typeof header === 'string') {
      const bytes = hexToBytes(hexString(header, 'witness header') as `0x${string}`);
      const fields = RLP.decode(bytes) as Uint8Array[];
      return { number: bytesToBigInt(fields[8]), hash: keccak256(bytes), parentHash: fields[0] };
    }
    const fields = Object.fromEntries(Object.entries(header as Record<string, unknown>).filter(([, v]) => v !== null));
    const built = createBlockHeaderFromRPC(fields as never, { common: common.copy(), setHardfork: true });
    return { number: built.number, hash: built.hash(), parentHash: built.parentHash };
  } catch {
    return undefined;
  }
}
