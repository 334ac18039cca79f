import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { type PeerPair, type RawAnswer, rawCall, rawResult, usePeerPair } from '../helpers/anvilPeer.js';
import { describeWithFoundry } from '../helpers/foundry.js';
import {
  erigonBlock,
  erigonHeader,
  erigonInternalOps,
  erigonReceipt,
  erigonTraceEntries,
  histories,
  type InternalOp,
  type ParityTrace,
  PRECOMPILES,
  pageModel,
  rlpSizes,
  type TraceEntry,
  type TxAt,
} from '../helpers/otsReference.js';

const describeWithAnvil = describeWithFoundry(['anvil'], 'anvil differential tests (Otterscan)');

/**
 * Otterscan's API (ots_*, erigon_getHeaderByNumber) against anvil 1.7.1, which serves it at API
 * level 8, on the anvil-mined `traces` and `state` chains imported into tracenode: every method
 * for every block, transaction and address of both chains (the accounts, the contracts, every
 * address a trace names, the precompiles, the coinbase and one never used).
 *
 * tracenode answers as erigon does (docs/methods.md#otterscan). Where anvil differs from erigon,
 * its answer is normalised first, each normalisation named in test/helpers/otsReference.ts with the
 * erigon source that decides it:
 * - ots_traceTransaction: anvil lists CALL-family frames only, precompiles included, with values
 *   for STATICCALL/DELEGATECALL (`erigonTraceEntries`);
 * - ots_getInternalOperations: anvil lists the transaction's own transfer or creation
 *   (`erigonInternalOps`);
 * - blocks: anvil keeps `logsBloom` and `totalDifficulty`, and its `size` leaves out the empty
 *   withdrawals list (`erigonBlock`, the size taken from the exported RLP); its
 *   erigon_getHeaderByNumber is a whole block (`erigonHeader`);
 * - ots_getBlockTransactions: anvil pages from the block's start, counts the page's transactions
 *   as `transactionCount`, keeps receipts' logs and bloom and adds a `timestamp`; erigon pages from
 *   the end (`GetBlockTransactions`, "Crop page"), counts the block's and nulls logs and bloom;
 * - ots_searchTransactions*: anvil's address rule leaves out a SELFDESTRUCT's beneficiary, its
 *   flags and in-block order differ (below), its receipts carry a hex `timestamp` and a
 *   `blobGasPrice` (`erigonReceipt`);
 * - missing things: anvil errs where erigon answers null (blocks beyond the head), and answers
 *   `[]`, `0x` or null where erigon errs (unknown transactions, headers beyond the head).
 */
const chains = [usePeerPair('traces'), usePeerPair('state')];

type Json = Record<string, unknown>;

async function both(pair: PeerPair, method: string, params: unknown[]): Promise<[RawAnswer, RawAnswer]> {
  return Promise.all([rawCall(pair.ours, method, params), rawCall(pair.theirs, method, params)]);
}

/** What the test needs of a chain, read from anvil once. */
interface ChainFacts {
  head: number;
  blocks: Array<{ number: number; hash: string; transactions: Json[] }>;
  txs: Json[];
  traces: ParityTrace[];
  addresses: string[];
  /** Each mined block's RLP length (blocks 1…), from the exported chain file. */
  sizes: Map<number, number>;
}

const facts = new Map<PeerPair, ChainFacts>();

async function factsOf(pair: PeerPair): Promise<ChainFacts> {
  const known = facts.get(pair);
  if (known) return known;
  const head = pair.built.blocks.at(-1)!.number;
  const blocks: ChainFacts['blocks'] = [];
  const traces: ParityTrace[] = [];
  for (let n = 0; n <= head; n++) {
    blocks.push((await rawResult(pair.theirs, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as ChainFacts['blocks'][number]);
    if (n > 1) traces.push(...((await rawResult(pair.theirs, 'trace_block', [`0x${n.toString(16)}`])) as ParityTrace[]));
  }
  const txs = blocks.flatMap((b) => b.transactions);
  const addresses = new Set<string>([...PRECOMPILES, '0x0000000000000000000000000000000000000000', '0x00000000000000000000000000000000deadbeef']);
  for (const t of traces)
    for (const a of [t.action.from, t.action.to, t.action.address, t.action.refundAddress, t.result?.address]) if (a) addresses.add(a.toLowerCase());
  for (const a of Object.values({ ...pair.built.info.contracts, ...pair.built.info.accounts }))
    if (typeof a === 'string' && a.startsWith('0x')) addresses.add(a.toLowerCase());
  const sizes = rlpSizes(readFileSync(pair.built.rlpPath));
  const out = { head, blocks, txs, traces, addresses: [...addresses].sort(), sizes };
  facts.set(pair, out);
  return out;
}

describeWithAnvil('Otterscan API vs anvil on anvil-mined chains', () => {
  it('ots_getApiLevel is 8 on both', async () => {
    const [ours, theirs] = await both(chains[0](), 'ots_getApiLevel', []);
    expect(ours.result).toBe(8);
    expect(theirs.result).toBe(8);
  });

  it('ots_getBlockDetails (by number, hex and hash), erigon_getHeaderByNumber and ots_getHeaderByNumber of every block', async () => {
    for (const getPair of chains) {
      const pair = getPair();
      const { head, blocks, sizes } = await factsOf(pair);
      for (let n = 0; n <= head; n++) {
        const [ours, theirs] = await both(pair, 'ots_getBlockDetails', [n]);
        const expected = theirs.result as Json;
        const normalised = { ...expected, block: erigonBlock(expected.block as Json, sizes.get(n)) };
        expect(ours.result, `block ${n}`).toEqual(normalised);
        expect((await rawCall(pair.ours, 'ots_getBlockDetails', [`0x${n.toString(16)}`])).result).toEqual(normalised);
        expect((await rawCall(pair.ours, 'ots_getBlockDetailsByHash', [blocks[n].hash])).result).toEqual(normalised);
        const header = erigonHeader((await rawCall(pair.theirs, 'erigon_getHeaderByNumber', [n])).result as Json);
        expect((await rawCall(pair.ours, 'erigon_getHeaderByNumber', [n])).result, `header ${n}`).toEqual(header);
        expect((await rawCall(pair.ours, 'ots_getHeaderByNumber', [n])).result).toEqual(header);
      }
      const latest = erigonHeader((await rawCall(pair.theirs, 'erigon_getHeaderByNumber', ['latest'])).result as Json);
      expect((await rawCall(pair.ours, 'erigon_getHeaderByNumber', ['latest'])).result).toEqual(latest);
    }
  });

  it('missing blocks: null where erigon answers null (anvil errs), erigon’s errors where anvil answers null', async () => {
    const pair = chains[0]();
    const beyond = (await factsOf(pair)).head + 10;
    // erigon: `if b == nil { return nil, nil }` (GetBlockDetails, GetBlockTransactions); anvil: -32001.
    for (const [method, params] of [
      ['ots_getBlockDetails', [beyond]],
      ['ots_getBlockTransactions', [beyond, 0, 25]],
    ] as const) {
      const [ours, theirs] = await both(pair, method, [...params]);
      expect(ours).toMatchObject({ result: null });
      expect(theirs.error).toMatchObject({ code: -32001 });
    }
    // erigon_block.go GetHeaderByNumber: `block header not found: %d`; anvil and reth: null.
    const [header, theirHeader] = await both(pair, 'erigon_getHeaderByNumber', [beyond]);
    expect(header.error).toEqual({ code: -32000, message: `block header not found: ${beyond}` });
    expect(theirHeader.result).toBeNull();
    expect((await rawCall(pair.ours, 'ots_getHeaderByNumber', [beyond])).result).toBeNull();
    // otterscan_block_details.go GetBlockDetailsByHash: `couldn't find block number for hash %v` of the hash's bytes.
    const unknown = `0x${'12'.repeat(32)}`;
    const [byHash, theirByHash] = await both(pair, 'ots_getBlockDetailsByHash', [unknown]);
    expect(byHash.error).toEqual({ code: -32000, message: `couldn't find block number for hash [${Array(32).fill(18).join(' ')}]` });
    expect(theirByHash.error).toMatchObject({ code: -32001 });
  });

  it('ots_getBlockTransactions of every block, in pages of 1, 2 and 25 counted from the block’s end', async () => {
    let pages = 0;
    for (const getPair of chains) {
      const pair = getPair();
      const { head, sizes } = await factsOf(pair);
      for (let n = 1; n <= head; n++) {
        const all = (await rawCall(pair.theirs, 'ots_getBlockTransactions', [n, 0, 255])).result as {
          fullblock: Json & { transactions: Json[] };
          receipts: Json[];
        };
        const count = all.fullblock.transactions.length;
        for (const size of [1, 2, 25]) {
          for (let page = 0; page * size < Math.max(count, 1); page++) {
            const end = Math.max(0, count - page * size);
            const start = Math.max(0, end - size);
            const expected = {
              fullblock: { ...erigonBlock(all.fullblock, sizes.get(n)), transactions: all.fullblock.transactions.slice(start, end), transactionCount: count },
              receipts: all.receipts.slice(start, end).map((r, i) => {
                const { timestamp: _t, ...rest } = erigonReceipt(r, all.fullblock.transactions[start + i]);
                return { ...rest, logs: null, logsBloom: null };
              }),
            };
            expect((await rawCall(pair.ours, 'ots_getBlockTransactions', [n, page, size])).result, `block ${n} page ${page}/${size}`).toEqual(expected);
            pages++;
          }
        }
      }
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError of every transaction', async () => {
    let withCreates = 0;
    let withSelfdestructs = 0;
    let reverted = 0;
    for (const getPair of chains) {
      const pair = getPair();
      const { txs } = await factsOf(pair);
      for (const tx of txs) {
        const hash = tx.hash as string;
        const parity = (await rawResult(pair.theirs, 'trace_transaction', [hash])) as ParityTrace[];
        const [trace, theirTrace] = await both(pair, 'ots_traceTransaction', [hash]);
        const expected = erigonTraceEntries(theirTrace.result as TraceEntry[], parity);
        expect(trace.result, `trace ${hash}`).toEqual(expected);
        if (expected.some((e) => e.type.startsWith('CREATE'))) withCreates++;
        if (expected.some((e) => e.type === 'SELFDESTRUCT')) withSelfdestructs++;
        const [ops, theirOps] = await both(pair, 'ots_getInternalOperations', [hash]);
        expect(ops.result, `operations ${hash}`).toEqual(
          erigonInternalOps(theirOps.result as InternalOp[], tx as { from: string; to: string | null; value: string }),
        );
        const [error, theirError] = await both(pair, 'ots_getTransactionError', [hash]);
        expect(error.result, `error ${hash}`).toEqual(theirError.result);
        if (error.result !== '0x') reverted++;
      }
    }
    expect([withCreates > 5, withSelfdestructs >= 3, reverted >= 2]).toEqual([true, true, true]);
  });

  it('unknown transactions: erigon’s `transaction … not found` where anvil answers [], -32603 or 0x', async () => {
    const pair = chains[0]();
    const unknown = `0x${'ab'.repeat(32)}`;
    const notFound = { code: -32000, message: `transaction ${unknown} not found` };
    const [trace, theirTrace] = await both(pair, 'ots_traceTransaction', [unknown]);
    expect([trace.error, theirTrace.result]).toEqual([notFound, []]);
    const [ops, theirOps] = await both(pair, 'ots_getInternalOperations', [unknown]);
    expect([ops.error, theirOps.error?.code]).toEqual([notFound, -32603]);
    const [error, theirError] = await both(pair, 'ots_getTransactionError', [unknown]);
    expect([error.error, theirError.result]).toEqual([notFound, '0x']);
  });

  it('ots_getTransactionBySenderAndNonce for every sender and nonce (and one past the last)', async () => {
    let found = 0;
    for (const getPair of chains) {
      const pair = getPair();
      const { txs } = await factsOf(pair);
      const nonces = new Map<string, number>();
      for (const tx of txs) nonces.set(tx.from as string, Math.max(nonces.get(tx.from as string) ?? 0, Number(BigInt(tx.nonce as string)) + 1));
      for (const [sender, next] of nonces) {
        for (let nonce = 0; nonce <= next; nonce++) {
          const [ours, theirs] = await both(pair, 'ots_getTransactionBySenderAndNonce', [sender, nonce]);
          expect(ours.result, `${sender} ${nonce}`).toEqual(theirs.result);
          if (ours.result !== null) found++;
        }
      }
    }
    expect(found).toBeGreaterThan(60);
  });

  it('ots_getContractCreator and ots_hasCode of every address, at every block', async () => {
    let creators = 0;
    for (const getPair of chains) {
      const pair = getPair();
      const { head, addresses } = await factsOf(pair);
      for (const address of addresses) {
        const [ours, theirs] = await both(pair, 'ots_getContractCreator', [address]);
        expect(ours.result, `creator ${address}`).toEqual(theirs.result);
        if (ours.result !== null) creators++;
        for (const block of [...Array.from({ length: head }, (_, i) => i + 1), 'latest', `0x${head.toString(16)}`]) {
          const [has, theirHas] = await both(pair, 'ots_hasCode', [address, block]);
          expect(has.result, `hasCode ${address} ${block}`).toEqual(theirHas.result);
        }
      }
    }
    expect(creators).toBeGreaterThan(10);
  });

  it('ots_searchTransactionsBefore/After: every address, paged to the end both ways (pages of 1, 3 and 25), equal to erigon’s pages and to anvil’s', async () => {
    let compared = 0;
    let beneficiaryOnly = 0;
    for (const getPair of chains) {
      const pair = getPair();
      const f = await factsOf(pair);
      const erigonLists = histories(f.traces);
      const anvilLists = histories(f.traces, true);
      const txByHash = new Map(f.txs.map((t) => [t.hash as string, t]));
      for (const address of f.addresses) {
        const list = erigonLists.get(address) ?? [];
        const sameRule = sameHashes(list, anvilLists.get(address) ?? []);
        if (!sameRule) beneficiaryOnly++;
        for (const pageSize of [1, 3, 25]) {
          for (const direction of ['before', 'after'] as const) {
            compared += await walkPages(pair, f, address, direction, pageSize, list, sameRule, txByHash);
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    // eve and carol receive a SELFDESTRUCT's balance (traces chain): erigon lists those transactions, anvil does not.
    expect(beneficiaryOnly).toBeGreaterThanOrEqual(1);
  });

  it('search limits and parameters as erigon’s: page size at most 25, JSON numbers only; the empty page before block 1', async () => {
    const pair = chains[0]();
    const alice = pair.built.info.accounts.alice as string;
    const tooBig = await rawCall(pair.ours, 'ots_searchTransactionsBefore', [alice, 0, 26]);
    expect(tooBig.error).toEqual({ code: -32000, message: 'max allowed page size: 25' });
    const hex = await rawCall(pair.ours, 'ots_searchTransactionsAfter', [alice, '0x0', 25]);
    expect(hex.error).toEqual({ code: -32602, message: 'invalid argument 1: json: cannot unmarshal string into Go value of type uint64' });
    const nonce = await rawCall(pair.ours, 'ots_getTransactionBySenderAndNonce', [alice, -1]);
    expect(nonce.error).toEqual({ code: -32602, message: 'invalid argument 1: json: cannot unmarshal number -1 into Go value of type uint64' });
    // erigon searches from the head for block 1 (otterscan_search_v3.go: "reproduce bug-compatibility
    // for == 1"); nothing lies before block 1: the empty last page (docs/methods.md#otterscan).
    expect((await rawCall(pair.ours, 'ots_searchTransactionsBefore', [alice, 1, 25])).result).toEqual({
      txs: [],
      receipts: [],
      firstPage: false,
      lastPage: true,
    });
  });
});

function sameHashes(a: TxAt[], b: TxAt[]): boolean {
  return a.length === b.length && a.every((t, i) => t.hash === b[i].hash);
}

/**
 * Walks an address's pages as Otterscan does (the next page from the last block of the one before)
 * and checks each against erigon's page model (hashes and flags) with anvil's transactions and
 * receipts, and against anvil's own answer where anvil's address rule agrees, normalised:
 * - `firstPage` of a `before` page: anvil's is also true when the search starts above the head
 *   (its `first_page = from >= best`); erigon's only for block 0 (`if fromBlockNum == 0 { isFirstPage = true }`);
 * - `lastPage` of `before` and `firstPage` of `after`: anvil's is true only when its scan reached
 *   the chain's end without filling the page; erigon's when no match is left (`hasMore` set only
 *   `if blockNumChanged && reachedPageSize`): anvil's `false` is accepted when its next page is empty;
 * - `after` pages: anvil lists a block's transactions oldest first within newest-first blocks (it
 *   reverses each block's traces, then the whole list); erigon's are newest first throughout
 *   (`slices.Reverse` after an ascending scan).
 */
async function walkPages(
  pair: PeerPair,
  f: ChainFacts,
  address: string,
  direction: 'before' | 'after',
  pageSize: number,
  list: TxAt[],
  sameRule: boolean,
  txByHash: Map<string, Json>,
): Promise<number> {
  const method = direction === 'before' ? 'ots_searchTransactionsBefore' : 'ots_searchTransactionsAfter';
  let block = 0;
  let pages = 0;
  for (;;) {
    const label = `${method}(${address}, ${block}, ${pageSize})`;
    const model = pageModel(list, direction, block, pageSize);
    const ours = (await rawCall(pair.ours, method, [address, block, pageSize])).result as {
      txs: Json[];
      receipts: Json[];
      firstPage: boolean;
      lastPage: boolean;
    };
    expect({ hashes: ours.txs.map((t) => t.hash), firstPage: ours.firstPage, lastPage: ours.lastPage }, label).toEqual(model);
    const receipts = await Promise.all(model.hashes.map((h) => rawResult(pair.theirs, 'eth_getTransactionReceipt', [h]) as Promise<Json>));
    expect(ours.txs, label).toEqual(model.hashes.map((h) => txByHash.get(h)));
    expect(ours.receipts, label).toEqual(receipts.map((r, i) => erigonReceipt({ ...r, timestamp: blockTimestamp(f, r) }, ours.txs[i])));
    if (sameRule) await compareWithAnvil(pair, method, [address, block, pageSize], ours, direction, f.head, label);
    pages++;
    const done = direction === 'before' ? ours.lastPage : ours.firstPage;
    if (done || model.hashes.length === 0) return pages;
    // The next page starts past the page's edge block: its oldest (before) or newest (after).
    const edge = direction === 'before' ? ours.txs.at(-1)! : ours.txs[0];
    block = Number(BigInt(edge.blockNumber as string));
  }
}

/** The timestamp of a receipt's block (hex), as anvil's search receipts carry it. */
function blockTimestamp(f: ChainFacts, receipt: Json): string {
  return (f.blocks[Number(BigInt(receipt.blockNumber as string))] as unknown as { timestamp: string }).timestamp;
}

async function compareWithAnvil(
  pair: PeerPair,
  method: string,
  params: [string, number, number],
  ours: { txs: Json[]; receipts: Json[]; firstPage: boolean; lastPage: boolean },
  direction: 'before' | 'after',
  head: number,
  label: string,
): Promise<void> {
  const theirs = (await rawResult(pair.theirs, method, params)) as { txs: Json[]; receipts: Json[]; firstPage: boolean; lastPage: boolean };
  const order = (rows: Json[]) =>
    [...rows].sort(
      (a, b) =>
        Number(BigInt(b.blockNumber as string) - BigInt(a.blockNumber as string)) ||
        Number(BigInt(b.transactionIndex as string) - BigInt(a.transactionIndex as string)),
    );
  const txs = direction === 'after' ? order(theirs.txs) : theirs.txs;
  const receipts = (direction === 'after' ? order(theirs.receipts) : theirs.receipts).map((r, i) => erigonReceipt(r, txs[i]));
  expect({ txs: ours.txs, receipts: ours.receipts }, `${label} vs anvil`).toEqual({ txs, receipts });
  const block = params[1];
  let firstPage = theirs.firstPage;
  let lastPage = theirs.lastPage;
  if (direction === 'before' && firstPage && block !== 0 && block > head) firstPage = false;
  const endFlag = direction === 'before' ? 'lastPage' : 'firstPage';
  const anvilEnd = direction === 'before' ? lastPage : firstPage;
  if (!anvilEnd && ours[endFlag] && txs.length > 0) {
    const edge = Number(BigInt((direction === 'before' ? txs.at(-1)! : txs[0]).blockNumber as string));
    const next = (await rawResult(pair.theirs, method, [params[0], edge, params[2]])) as { txs: Json[] };
    if (next.txs.length === 0) {
      if (direction === 'before') lastPage = true;
      else firstPage = true;
    }
  }
  expect({ firstPage: ours.firstPage, lastPage: ours.lastPage }, `${label} flags vs anvil ${JSON.stringify([theirs.firstPage, theirs.lastPage])}`).toEqual({
    firstPage,
    lastPage,
  });
}
