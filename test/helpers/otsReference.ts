import { RLP } from '@ethereumjs/rlp';

/**
 * What erigon's Otterscan API answers, rebuilt from an anvil node's own answers, for the ots
 * differential test (test/anvil/otsDifferential.test.ts). anvil 1.7.1 serves `ots_*` at API level 8
 * but differs from erigon in places; each function here names the difference it undoes and the
 * erigon source that decides it, so that the test compares tracenode with anvil everywhere else.
 */

/** A Parity trace as anvil's trace_transaction / trace_block answer it. */
export interface ParityTrace {
  type: 'call' | 'create' | 'suicide' | 'reward';
  action: {
    from?: string;
    to?: string;
    callType?: string;
    value?: string;
    input?: string;
    init?: string;
    creationMethod?: string;
    address?: string;
    refundAddress?: string;
    balance?: string;
  };
  result: { output?: string; code?: string; address?: string } | null;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number | null;
  blockNumber: number;
}

/** One ots_traceTransaction entry. */
export interface TraceEntry {
  type: string;
  depth: number;
  from: string;
  to: string;
  value: string | null;
  input: string;
  output: string;
}

/** The ten precompiles of Cancun. */
export const PRECOMPILES = Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
const isPrecompile = (a: string | undefined) => a !== undefined && PRECOMPILES.includes(a.toLowerCase());

/**
 * erigon's ots_traceTransaction from anvil's: anvil keeps CALL-family frames only (alloy
 * `otterscan.rs` `TraceEntry::from_transaction_trace`: `trace.action.as_call()?`), precompiles
 * included, and gives STATICCALL and DELEGATECALL a value. erigon (`otterscan_trace_transaction.go`
 * `OnEnter`) lists CREATE/CREATE2 and SELFDESTRUCT too, the latter one deeper than the entry
 * listed before it; leaves precompiles out (`if !precompile`); and has no value for STATICCALL and
 * DELEGATECALL (`entry = &TraceEntry{"STATICCALL", …, nil, …}`). The missing entries are built
 * from anvil's Parity traces of the same transaction, which list every frame in the same order.
 */
export function erigonTraceEntries(anvilEntries: TraceEntry[], parity: ParityTrace[]): TraceEntry[] {
  const out: TraceEntry[] = [];
  let call = 0;
  for (const t of parity) {
    if (t.type === 'call') {
      const entry = anvilEntries[call++];
      if (isPrecompile(t.action.to)) continue;
      out.push({ ...entry, value: entry.type === 'STATICCALL' || entry.type === 'DELEGATECALL' ? null : entry.value });
    } else if (t.type === 'create') {
      out.push({
        type: (t.action.creationMethod ?? 'create').toUpperCase(),
        depth: t.traceAddress.length,
        from: t.action.from!,
        to: t.result?.address ?? '0x0000000000000000000000000000000000000000',
        value: t.action.value!,
        input: t.action.init!,
        output: t.result?.code ?? '0x',
      });
    } else if (t.type === 'suicide') {
      out.push({
        type: 'SELFDESTRUCT',
        depth: (out.at(-1)?.depth ?? -1) + 1,
        from: t.action.address!,
        to: t.action.refundAddress!,
        value: t.action.balance!,
        input: '0x',
        output: '0x',
      });
    }
  }
  if (call !== anvilEntries.length) throw new Error(`anvil listed ${anvilEntries.length} call entries for ${call} call traces`);
  return out;
}

/** One ots_getInternalOperations entry. */
export interface InternalOp {
  type: number;
  from: string;
  to: string;
  value: string;
}

/**
 * erigon's ots_getInternalOperations from anvil's: anvil lists the transaction's own value
 * transfer or creation as an operation (its `ots_internal_operations` walks every call-tree node,
 * the root included); erigon's operations tracer skips the transaction's frame
 * (`otterscan_trace_operations.go`: `if depth == 0 { return }`). A root that self-destructs is the
 * same SELFDESTRUCT operation in both.
 */
export function erigonInternalOps(anvilOps: InternalOp[], tx: { from: string; to: string | null; value: string }): InternalOp[] {
  const first = anvilOps[0];
  const rootOp =
    first !== undefined &&
    first.from === tx.from &&
    ((tx.to === null && (first.type === 2 || first.type === 3)) || (tx.to !== null && first.type === 0 && first.to === tx.to && BigInt(tx.value) > 0n));
  return rootOp ? anvilOps.slice(1) : anvilOps;
}

/** A transaction of the chain, where it sits. */
export interface TxAt {
  hash: string;
  block: number;
  index: number;
}

/**
 * Every address's transactions by erigon's rule (its call tracer indexes the `from` and `to` of
 * every frame's `OnEnter`: calls to precompiles too, a CREATE's new address, a SELFDESTRUCT's
 * contract and beneficiary), from anvil's Parity traces, oldest first. `anvilRule` is anvil's
 * own (alloy `parity.rs` `Action::contains_address`): a SELFDESTRUCT matches its contract only,
 * not its beneficiary.
 */
export function histories(traces: ParityTrace[], anvilRule = false): Map<string, TxAt[]> {
  const out = new Map<string, TxAt[]>();
  const add = (address: string | undefined, t: ParityTrace) => {
    if (!address || t.transactionHash === null) return;
    const list = out.get(address.toLowerCase()) ?? [];
    if (list.at(-1)?.hash !== t.transactionHash) list.push({ hash: t.transactionHash, block: t.blockNumber, index: t.transactionPosition! });
    out.set(address.toLowerCase(), list);
  };
  for (const t of traces) {
    const named =
      t.type === 'call'
        ? [t.action.from, t.action.to]
        : t.type === 'create'
          ? [t.action.from, t.result?.address]
          : t.type === 'suicide'
            ? [t.action.address, anvilRule ? undefined : t.action.refundAddress]
            : [];
    for (const a of named) add(a, t);
  }
  for (const [address, list] of out) {
    const seen = new Set<string>();
    out.set(
      address,
      list.filter((tx) => !seen.has(tx.hash) && seen.add(tx.hash)).sort((a, b) => a.block - b.block || a.index - b.index),
    );
  }
  return out;
}

/** A search page by hashes, newest first, with erigon's flags. */
export interface PageModel {
  hashes: string[];
  firstPage: boolean;
  lastPage: boolean;
}

/**
 * erigon's ots_searchTransactionsBefore/After page over an address's transactions (oldest first),
 * as `otterscan_search_v3.go` builds it: whole blocks until `pageSize` is reached; `before` from
 * block `block - 1` down (from the head for 0), `firstPage` = `block == 0`, `lastPage` = no match
 * left below; `after` from `block + 1` up (from the genesis for 0), `lastPage` = `block == 0`,
 * `firstPage` = no match left above; results newest first.
 */
export function pageModel(list: TxAt[], direction: 'before' | 'after', block: number, pageSize: number): PageModel {
  const candidates = direction === 'before' ? list.filter((t) => block === 0 || t.block < block).reverse() : list.filter((t) => t.block > block);
  const page: TxAt[] = [];
  let more = false;
  for (const tx of candidates) {
    if (page.length >= pageSize && tx.block !== page.at(-1)!.block) {
      more = true;
      break;
    }
    page.push(tx);
  }
  if (direction === 'after') page.reverse();
  const hashes = page.map((t) => t.hash);
  return direction === 'before' ? { hashes, firstPage: block === 0, lastPage: !more } : { hashes, firstPage: !more, lastPage: block === 0 };
}

type Json = Record<string, unknown>;

/**
 * A receipt as erigon's search answers it, from anvil's: anvil gives every receipt a
 * `blobGasPrice` (geth's and erigon's `MarshalReceipt` write it for blob transactions only), its
 * eth_getTransactionReceipt a numeric `blockTimestamp` (erigon's receipts have none) and its
 * search receipts a hex `timestamp`, where erigon writes `block.Time()`, a JSON number
 * (`otterscan_search_v3.go` `mReceipt["timestamp"] = block.Time()`).
 */
export function erigonReceipt(anvilReceipt: Json, tx: Json): Json {
  const { blobGasPrice, timestamp, blockTimestamp: _bt, ...rest } = anvilReceipt;
  const out: Json = tx.type === '0x3' ? { ...rest, blobGasPrice } : { ...rest };
  if (timestamp !== undefined) out.timestamp = Number(BigInt(timestamp as string));
  return out;
}

/**
 * A block as erigon's ots block methods answer it, from anvil's: erigon's
 * `delegateGetBlockByNumber` (`otterscan_api.go`) sets `logsBloom` to null and adds no
 * `totalDifficulty` (it passes no additional fields to `RPCMarshalBlock`); anvil keeps both. And
 * `size`: erigon's is `b.Size()`, the length of the block's RLP; anvil's (its eth_getBlockByNumber
 * too) leaves out the empty withdrawals list, one byte short on every block it mined: the size is
 * taken from the exported RLP when `rlpSize` is given.
 */
export function erigonBlock(anvilBlock: Json, rlpSize?: number): Json {
  const { totalDifficulty: _td, ...rest } = anvilBlock;
  return { ...rest, logsBloom: null, ...(rlpSize === undefined ? {} : { size: `0x${rlpSize.toString(16)}` }) };
}

/** The RLP length of each block of an exported chain file (blocks 1…), by number. */
export function rlpSizes(rlp: Uint8Array): Map<number, number> {
  const out = new Map<number, number>();
  for (let off = 0, n = 1; off < rlp.length; n++) {
    const { remainder } = RLP.decode(rlp.subarray(off), true);
    const len = rlp.length - off - remainder.length;
    out.set(n, len);
    off += len;
  }
  return out;
}

/** The header fields of anvil's erigon_getHeaderByNumber (a whole block there, `*types.Header` in erigon's `erigon_block.go`). */
export function erigonHeader(anvilBlock: Json): Json {
  const { transactions: _t, uncles: _u, withdrawals: _w, size: _s, totalDifficulty: _td, ...header } = anvilBlock;
  return header;
}
