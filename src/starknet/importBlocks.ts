import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { DomainError } from '../errors/domainError.js';
import {
  type BlockStatus,
  type HeaderFields,
  IMPORTABLE_BLOCK_STATUSES,
  MAX_BLOCK_NUMBER,
  type ResourcePrice,
  type StarknetBlockInput,
  type StarknetEventInput,
  type StarknetTransactionInput,
} from './block.js';
import { type PreparedBlock, prepareBlock } from './blockOps.js';
import { feltToHex64 } from './felt.js';
import { array, felt, object } from './jsonInput.js';
import { parseStateUpdateJson } from './stateIndex.js';
import type { StarknetStore } from './store.js';

/**
 * Import of Starknet blocks from NDJSON: one `starknet_getBlockWithReceipts` result per line
 * (the format of `fixtures/starknet/`). Of each block the store keeps the header fields, every
 * transaction and receipt as given, and every receipt's events, indexed. Blank lines are skipped.
 * State updates (`starknet_getStateUpdate` results, one per line) may come with the blocks, in
 * the blocks' order: each is stored with the block whose hash it names.
 */

/** A line that is not a valid block. The import stops there; nothing of that block is written. */
export class StarknetImportError extends DomainError {
  override readonly name = 'StarknetImportError';
  constructor(
    readonly line: number,
    readonly detail: string,
    readonly source?: string,
  ) {
    super(`${source ? `${source} ` : ''}line ${line}: ${detail}`);
  }
}

/** Options of {@link importStarknetBlocks}. */
export interface StarknetImportOptions {
  /** Name of the input in error messages (a file path). */
  source?: string;
  /**
   * Where progress lines go (stderr), at most one every `everyMs` (the CLI passes
   * `import.progressIntervalMs`), and the warnings about skipped blocks; silent when undefined.
   */
  progress?: { to: NodeJS.WritableStream; everyMs: number };
  /** Checked between blocks: when aborted, the import stops after the current block's batch. */
  signal?: AbortSignal;
  /** State updates to store with the blocks, in the blocks' order (see {@link StateUpdateLines}). */
  stateUpdates?: StateUpdateLines;
}

/**
 * The lines of a state-update file, read along the blocks: the next update is stored with the
 * block whose hash it names; blocks it does not name get none. An update still unread when the
 * blocks end names no imported block: {@link StarknetImportError} (call {@link finish}).
 */
export class StateUpdateLines {
  private readonly it: AsyncIterator<string> | Iterator<string>;
  private lineNo = 0;
  private next: { line: number; update: ReturnType<typeof parseStateUpdateJson> } | null | undefined;

  constructor(
    lines: AsyncIterable<string> | Iterable<string>,
    readonly source?: string,
  ) {
    this.it = Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]();
  }

  /** The update of the block with this hash, when it is the next one. */
  async take(blockHash: string): Promise<ReturnType<typeof parseStateUpdateJson> | undefined> {
    const next = await this.peek();
    if (next === null || feltToHex64(next.update.blockHash) !== feltToHex64(blockHash)) return undefined;
    this.next = undefined;
    return next.update;
  }

  /** Fails when an update was left unread: it names no imported block (or blocks came in another order). */
  async finish(): Promise<void> {
    const next = await this.peek();
    if (next !== null) {
      throw new StarknetImportError(
        next.line,
        `state update of block ${next.update.blockHash} matches no imported block (state updates follow the blocks' order)`,
        this.source,
      );
    }
  }

  private async peek(): Promise<{ line: number; update: ReturnType<typeof parseStateUpdateJson> } | null> {
    while (this.next === undefined) {
      const r = await this.it.next();
      if (r.done) {
        this.next = null;
        break;
      }
      this.lineNo++;
      if (r.value.trim() === '') continue;
      try {
        this.next = { line: this.lineNo, update: parseStateUpdateJson(JSON.parse(r.value)) };
      } catch (err) {
        throw new StarknetImportError(this.lineNo, (err as Error).message, this.source);
      }
    }
    return this.next;
  }
}

/** Outcome of an import run. */
export interface StarknetImportResult {
  imported: number;
  skipped: number;
  /** Events written (of imported blocks only). */
  events: number;
  /** Lines read, blank ones included. */
  lines: number;
  seconds: number;
  /** Highest stored block after the run. */
  latest: number | undefined;
}

/**
 * Imports blocks line by line. Each valid line becomes one atomic batch; a block whose number or
 * hash is already stored is skipped (and, when its hash differs from the stored block of that
 * number, a warning goes to the progress stream). The first malformed line throws a
 * {@link StarknetImportError} naming it; blocks of earlier lines stay imported, so a corrected
 * file can be imported again and resumes there.
 */
export async function importStarknetBlocks(
  store: StarknetStore,
  lines: AsyncIterable<string> | Iterable<string>,
  opts: StarknetImportOptions = {},
): Promise<StarknetImportResult> {
  const started = performance.now();
  const out = opts.progress?.to;
  const interval = opts.progress?.everyMs ?? 0;
  let lastReport = started;
  let lineNo = 0;
  let imported = 0;
  let skipped = 0;
  let events = 0;
  const rate = (now: number) => {
    const secs = Math.max((now - started) / 1000, 1e-9);
    return { secs, bps: imported / secs, eps: events / secs };
  };
  // Block N's batch is written while line N + 1 is parsed and prepared (one write in flight at
  // most; each commit starts after the previous one finished, so its presence check sees it).
  let inflight: Promise<void> | undefined;
  const commit = async (prepared: PreparedBlock, at: number) => {
    const { block } = prepared;
    const result = await store.commitBlock(prepared);
    if (result.status === 'imported') {
      imported++;
      events += result.events;
    } else {
      skipped++;
      if (out && result.reason !== 'present') {
        const why =
          result.reason === 'number taken' ? `block ${block.number} is already stored with hash ${result.storedHash}` : `hash ${block.hash} is already stored`;
        out.write(`import-starknet: line ${at}: skipped block ${block.number} ${block.hash}: ${why}\n`);
      }
    }
    const now = performance.now();
    if (out && now - lastReport >= interval) {
      lastReport = now;
      const { bps, eps } = rate(now);
      out.write(`import-starknet: block ${block.number}  ${imported} imported  ${skipped} skipped  ${bps.toFixed(1)} blocks/s  ${Math.round(eps)} events/s\n`);
    }
  };
  try {
    for await (const line of lines) {
      lineNo++;
      if (opts.signal?.aborted) break;
      if (line.trim() === '') continue;
      let block: StarknetBlockInput;
      try {
        block = parseBlockLine(line);
      } catch (err) {
        throw new StarknetImportError(lineNo, (err as Error).message, opts.source);
      }
      const stateUpdate = await opts.stateUpdates?.take(block.hash);
      const prepared = prepareBlock(stateUpdate === undefined ? block : { ...block, stateUpdate });
      await inflight;
      inflight = commit(prepared, lineNo);
      // Handled here so that a failing write is not reported as unhandled while the next line is
      // read; the next `await inflight` still throws it.
      inflight.catch(() => {});
    }
  } finally {
    // Even when a line fails, the block before it is committed (or its error wins).
    await inflight;
  }
  const { secs } = rate(performance.now());
  return { imported, skipped, events, lines: lineNo, seconds: secs, latest: await store.latestNumber() };
}

/** The lines of a file, streamed (`\n` or `\r\n` separated). */
export async function* readFileLines(path: string): AsyncGenerator<string> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
  } finally {
    rl.close();
    input.destroy();
  }
}

/**
 * Parses and validates one NDJSON line. Throws an Error whose message names the offending field
 * (`transactions[3].receipt.events[0].keys[1]: invalid felt "0xzz"`).
 */
export function parseBlockLine(line: string): StarknetBlockInput {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  return parseBlockJson(raw);
}

/**
 * Validates one `starknet_getBlockWithReceipts` result, parsed (an NDJSON line, or an upstream's
 * answer when following). Throws as {@link parseBlockLine} does.
 */
export function parseBlockJson(raw: unknown): StarknetBlockInput {
  const b = object(raw, 'block');
  const number = blockNumber(b.block_number, 'block_number');
  const hash = felt(b.block_hash, 'block_hash');
  const parentHash = felt(b.parent_hash, 'parent_hash');
  const timestamp = b.timestamp;
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('timestamp: want a non-negative integer');
  const status = b.status;
  if (!IMPORTABLE_BLOCK_STATUSES.includes(status as BlockStatus)) {
    throw new Error(`status: ${JSON.stringify(status)} is not importable (want ${IMPORTABLE_BLOCK_STATUSES.join(' or ')})`);
  }
  const txs = array(b.transactions, 'transactions');
  const transactions: StarknetTransactionInput[] = txs.map((item, t) => {
    const where = `transactions[${t}]`;
    const entry = object(item, where);
    const receipt = object(entry.receipt, `${where}.receipt`);
    const txHash = felt(receipt.transaction_hash, `${where}.receipt.transaction_hash`);
    if (entry.transaction !== undefined) {
      const tx = object(entry.transaction, `${where}.transaction`);
      const declared = felt(tx.transaction_hash, `${where}.transaction.transaction_hash`);
      if (feltToHex64(declared) !== feltToHex64(txHash)) throw new Error(`${where}: transaction_hash ${declared} != receipt.transaction_hash ${txHash}`);
    }
    const evs = array(receipt.events, `${where}.receipt.events`);
    const events: StarknetEventInput[] = evs.map((e, i) => {
      const ewhere = `${where}.receipt.events[${i}]`;
      const ev = object(e, ewhere);
      return {
        fromAddress: felt(ev.from_address, `${ewhere}.from_address`),
        keys: felts(ev.keys, `${ewhere}.keys`),
        data: felts(ev.data, `${ewhere}.data`),
      };
    });
    const transaction = entry.transaction === undefined ? undefined : (entry.transaction as Record<string, unknown>);
    return { hash: txHash, events, transaction, receipt };
  });
  return { number, hash, parentHash, timestamp, status: status as BlockStatus, fields: headerFields(b), transactions };
}

/**
 * The other BLOCK_HEADER fields, each checked when present and left out when absent (old
 * blocks and NDJSON files without them import as before).
 */
function headerFields(b: Record<string, unknown>): HeaderFields {
  const optional = <T>(key: string, read: (v: unknown, where: string) => T): T | undefined => (b[key] === undefined ? undefined : read(b[key], key));
  const fields: HeaderFields = {
    newRoot: optional('new_root', felt),
    sequencerAddress: optional('sequencer_address', felt),
    starknetVersion: optional('starknet_version', (v, where) => {
      if (typeof v !== 'string' || v.length > 32) throw new Error(`${where}: want a version string`);
      return v;
    }),
    l1GasPrice: optional('l1_gas_price', price),
    l2GasPrice: optional('l2_gas_price', price),
    l1DataGasPrice: optional('l1_data_gas_price', price),
    l1DaMode: optional('l1_da_mode', (v, where) => {
      if (v !== 'BLOB' && v !== 'CALLDATA') throw new Error(`${where}: want "BLOB" or "CALLDATA"`);
      return v;
    }),
  };
  return fields;
}

function price(v: unknown, where: string): ResourcePrice {
  const p = object(v, where);
  return { priceInFri: felt(p.price_in_fri, `${where}.price_in_fri`), priceInWei: felt(p.price_in_wei, `${where}.price_in_wei`) };
}

function felts(v: unknown, where: string): string[] {
  return array(v, where).map((x, i) => felt(x, `${where}[${i}]`));
}

function blockNumber(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_BLOCK_NUMBER) throw new Error(`${where}: want a non-negative integer`);
  return v;
}
