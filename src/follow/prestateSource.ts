import type { Block, BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bytesToHex, bytesToUnprefixedHex, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { type FetchedStateStore, provenNodes } from '../state/remoteState.js';
import { type NodeLookup, walkKey } from '../state/trieWalk.js';
import { type Call, type Upstream, UpstreamError } from './upstream.js';
import { hexString } from './upstreamBlocks.js';
import { parseProof } from './upstreamState.js';

/**
 * What a block touches, discovered and fetched before it runs, for an upstream without
 * `debug_executionWitness` (anvil): `debug_traceBlockByNumber(n, {tracer: 'prestateTracer'})`
 * names every account and storage slot the block's transactions read, with their code; the
 * block-level reads are added (the coinbase, the withdrawals' recipients, the EIP-4788 and
 * EIP-2935 slots written before the transactions); then one batch of `eth_getProof` at the
 * parent, by its hash (EIP-1898), brings the paths the datadir does not hold already. A proof's nodes are let in only when they
 * hang from the parent's state root (`state/remoteState.ts` provenNodes; one that does not and
 * nothing of the answer is stored: `invalid`), a code only when an account leaf let in names its
 * hash. What the trace does not name (a sibling that a deletion merges upwards, a read the
 * tracer leaves out) is fetched on miss while the block runs (`state/fetchOnMiss.ts`).
 */

/** eth_getProof calls per batch request. */
const PROOFS_PER_BATCH = 64;

/** EIP-4788's beacon roots contract and ring size; EIP-2935's history contract and window. */
const BEACON_ROOTS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
const BEACON_RING = 8191n;
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';
const HISTORY_WINDOW = 8191n;

/** What one block's prestate brought. */
export interface PrestateFetch {
  /** JSON-RPC calls made (the trace, one eth_getProof per account). */
  calls: number;
  nodes: number;
  codes: number;
  bytes: number;
}

/** The prestate trace of block `number`. */
function prestateTrace(upstream: Upstream, number: bigint): Promise<unknown> {
  return upstream.call('debug_traceBlockByNumber', [`0x${number.toString(16)}`, { tracer: 'prestateTracer' }]);
}

/** eth_getProof answers, with the keys they were asked for. */
type ProofAnswers = Array<{ slots: number; answer: unknown }>;

/**
 * A block's prestate asked ahead of its execution (`blockState.ts`): its trace, then the proofs,
 * at its parent by hash, of the keys whose paths the datadir does not hold in the state
 * `heldRoot` (the newest it holds whole; those the blocks in between touch will be held too).
 * Nothing of it is trusted before its block is prepared, against its parent's state root.
 */
export interface PrestateAhead {
  trace: Promise<unknown>;
  proofs: Promise<ProofAnswers>;
  /** The code hashes of the accounts found held (their codes, when the trace gives them, may be stored). */
  codeHashes: Set<string>;
  /** JSON-RPC calls made. */
  calls: number;
}

export function askPrestate(upstream: Upstream, block: Block, held: NodeLookup, heldRoot: Uint8Array | undefined): PrestateAhead {
  const trace = prestateTrace(upstream, block.header.number);
  const ahead: PrestateAhead = { trace, calls: 1, proofs: Promise.resolve([]), codeHashes: new Set() };
  ahead.proofs =
    heldRoot === undefined
      ? Promise.reject(new Error('no state held to ask ahead from'))
      : trace.then(async (answer) => {
          const keys = touched(answer).keys;
          blockLevelKeys(block, keys);
          const entries = await notHeldKeys(held, heldRoot, keys, ahead.codeHashes);
          ahead.calls += entries.length;
          return askProofs(upstream, entries, block.header.parentHash);
        });
  ahead.trace.catch(() => undefined);
  ahead.proofs.catch(() => undefined);
  return ahead;
}

/**
 * Fetches, checks and stores what `block` reads of `parent`'s state: the keys of its prestate
 * trace whose path the datadir does not hold already (`held`: an account or slot a recent block
 * touched is held, its nodes written by executing that block), with what was asked `ahead`.
 */
export async function fetchPrestate(
  upstream: Upstream,
  block: Block,
  parent: BlockHeader,
  store: FetchedStateStore,
  held: NodeLookup,
  ahead?: PrestateAhead,
): Promise<PrestateFetch> {
  const { keys, codes } = touched(await (ahead?.trace ?? prestateTrace(upstream, block.header.number)));
  blockLevelKeys(block, keys);
  const codeHashes = new Set<string>();
  const nodes = new Map<string, Uint8Array>();
  let bytes = 0;
  // The proofs of one block repeat the nodes near the roots: each is decoded (and hashed) once.
  const interned = new Map<string, Uint8Array>();
  const accept = (answers: ProofAnswers) => {
    for (const { slots, answer } of answers) {
      const proof = parseProof(answer, slots, interned);
      proof.root = parent.stateRoot;
      for (const [hash, node] of provenNodes(proof, codeHashes)) {
        nodes.set(hash, node);
        bytes += node.length;
      }
    }
  };
  // Asked ahead: the proofs of the keys not held in an older state this datadir holds whole (checked
  // here against the parent's root, as all); a key held there is held in the parent's state too,
  // whose new nodes executing the blocks between wrote. Else: the keys not held in the parent's.
  const early = ahead === undefined ? undefined : await ahead.proofs.catch(() => undefined);
  let entries: Array<[string, Set<string>]> = [];
  if (early !== undefined) {
    accept(early);
    for (const hash of ahead!.codeHashes) codeHashes.add(hash);
  } else {
    entries = await notHeldKeys(held, parent.stateRoot, keys, codeHashes);
    accept(await askProofs(upstream, entries, parent.hash()));
  }
  // A transaction's prestate is the state before it, not before the block: an account an earlier
  // transaction of the block created shows its code. Only codes an account leaf of the parent
  // names are kept; any other (or an altered one) is fetched on miss if the block reads it.
  const checked: Array<[Uint8Array, Uint8Array]> = [];
  for (const hex of new Set(codes.values())) {
    const code = hexToBytes(hexString(hex, 'prestate code') as `0x${string}`);
    const hash = keccak256(code);
    if (!codeHashes.has(bytesToUnprefixedHex(hash))) continue;
    checked.push([hash, code]);
    bytes += code.length;
  }
  await store.storeNodes(nodes);
  for (const [hash, code] of checked) await store.storeCode(hash, code);
  return { calls: (ahead === undefined ? 1 : 0) + entries.length, nodes: nodes.size, codes: checked.length, bytes };
}

/** eth_getProof of each account and its slots at the block `blockHash`, in batches. */
async function askProofs(upstream: Upstream, entries: Array<[string, Set<string>]>, blockHash: Uint8Array): Promise<ProofAnswers> {
  const out: ProofAnswers = [];
  for (let i = 0; i < entries.length; i += PROOFS_PER_BATCH) {
    const chunk = entries.slice(i, i + PROOFS_PER_BATCH);
    const calls = chunk.map(([address, slots]): Call => ({ method: 'eth_getProof', params: [address, [...slots], { blockHash: bytesToHex(blockHash) }] }));
    const answers = await upstream.batch(calls);
    for (const [j, answer] of answers.entries()) out.push({ slots: chunk[j][1].size, answer });
  }
  return out;
}

/** The keys whose paths in the state `root` the datadir does not hold ({@link notHeld} of each account). */
async function notHeldKeys(held: NodeLookup, root: Uint8Array, keys: Map<string, Set<string>>, codeHashes: Set<string>): Promise<Array<[string, Set<string>]>> {
  const entries: Array<[string, Set<string>]> = [];
  for (const [address, slots] of keys) {
    const missing = await notHeld(held, root, address, slots, codeHashes);
    if (missing !== undefined) entries.push([address, missing]);
  }
  return entries;
}

/**
 * The slots of `address` whose path in the state `root` the datadir does not hold (all of them
 * when the account's own path is not held); undefined when everything is held. The code hash of
 * an account held goes to `codeHashes` (its code, when the trace gives it, may then be stored).
 */
async function notHeld(held: NodeLookup, root: Uint8Array, address: string, slots: Set<string>, codeHashes: Set<string>): Promise<Set<string> | undefined> {
  const account = await walkKey(held, root, keccak256(hexToBytes(address as `0x${string}`)));
  if (account.missing !== undefined) return slots;
  if (!account.value) return undefined;
  const fields = RLP.decode(account.value) as Uint8Array[];
  codeHashes.add(bytesToUnprefixedHex(fields[3]));
  const missing = new Set<string>();
  for (const slot of slots) if ((await walkKey(held, fields[2], keccak256(hexToBytes(slot as `0x${string}`)))).missing !== undefined) missing.add(slot);
  return missing.size > 0 ? missing : undefined;
}

/** The accounts (lower-case hex) with the slots (32-byte hex) a prestate trace names, and the codes it gives (hex). */
function touched(trace: unknown): { keys: Map<string, Set<string>>; codes: Map<string, string> } {
  if (!Array.isArray(trace)) throw new UpstreamError('upstream answered debug_traceBlockByNumber (prestateTracer) with something that is not a list');
  const keys = new Map<string, Set<string>>();
  const codes = new Map<string, string>();
  for (const item of trace) {
    const result = (item as { result?: unknown } | null)?.result;
    // A transaction the node could not trace (anvil answers `{error: "Resource not found"}` past
    // its kept states): its reads are fetched as the block makes them.
    if (result === null || typeof result !== 'object') continue;
    for (const [address, account] of Object.entries(result as Record<string, { code?: unknown; storage?: unknown }>)) {
      const key = hexString(address, 'prestate address').toLowerCase();
      const slots = keys.get(key) ?? new Set<string>();
      keys.set(key, slots);
      for (const slot of Object.keys((account?.storage as Record<string, unknown> | undefined) ?? {})) slots.add(word(slot));
      if (typeof account?.code === 'string' && account.code.length > 2) codes.set(key, account.code);
    }
  }
  return { keys, codes };
}

/** A slot as 32-byte hex (tracers may give it shorter). */
function word(slot: string): string {
  return bytesToHex(setLengthLeft(hexToBytes(hexString(slot, 'prestate slot') as `0x${string}`), 32));
}

/** What a block reads outside its transactions: the coinbase, the withdrawals' recipients, the system writes' slots. */
function blockLevelKeys(block: Block, keys: Map<string, Set<string>>): void {
  const add = (address: string, slot?: bigint) => {
    const slots = keys.get(address) ?? new Set<string>();
    keys.set(address, slots);
    if (slot !== undefined) slots.add(bytesToHex(setLengthLeft(bigIntToBytes(slot), 32)));
  };
  const h = block.header;
  add(h.coinbase.toString());
  for (const w of block.withdrawals ?? []) add(w.address.toString());
  if (block.common.isActivatedEIP(4788)) {
    add(BEACON_ROOTS, h.timestamp % BEACON_RING);
    add(BEACON_ROOTS, (h.timestamp % BEACON_RING) + BEACON_RING);
  }
  if (block.common.isActivatedEIP(2935) && h.number > 0n) add(HISTORY, (h.number - 1n) % HISTORY_WINDOW);
}
