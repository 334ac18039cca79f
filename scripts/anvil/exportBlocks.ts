// Owns the export of an anvil chain in geth's format: each block's RLP rebuilt from
// eth_getBlockByNumber and the transactions' EIP-2718 bytes, checked against anvil's hashes
// (docs/peers.md); and the check of every receipt against what the scenario expected.
import { type Input, RLP } from '@ethereumjs/rlp';
import { bigIntToUnpaddedBytes, hexToBytes } from '@ethereumjs/util';
import { type Hash, type Hex, keccak256, numberToHex } from 'viem';
import type { AnvilClient, RpcHeaderBlock } from './anvilClient.js';
import type { ExpectedReceipt } from './chainDriver.js';

/** One exported block, as expected.json records it. */
export interface ExportedBlock {
  number: number;
  hash: Hash;
  stateRoot: Hash;
  gasUsed: number;
  txHashes: Hash[];
}

/** A quantity as an RLP integer: big-endian, no leading zeros, zero as the empty string. */
function quantityBytes(hex: Hex): Uint8Array {
  return bigIntToUnpaddedBytes(BigInt(hex));
}

/** The header fields in RLP order (yellow paper 4.3, then EIP-1559, -4895, -4844, -4788, -7685); 'q' marks quantities. */
const HEADER_FIELDS: [keyof RpcHeaderBlock, 'data' | 'q'][] = [
  ['parentHash', 'data'],
  ['sha3Uncles', 'data'],
  ['miner', 'data'],
  ['stateRoot', 'data'],
  ['transactionsRoot', 'data'],
  ['receiptsRoot', 'data'],
  ['logsBloom', 'data'],
  ['difficulty', 'q'],
  ['number', 'q'],
  ['gasLimit', 'q'],
  ['gasUsed', 'q'],
  ['timestamp', 'q'],
  ['extraData', 'data'],
  ['mixHash', 'data'],
  ['nonce', 'data'],
  ['baseFeePerGas', 'q'],
  ['withdrawalsRoot', 'data'],
  ['blobGasUsed', 'q'],
  ['excessBlobGas', 'q'],
  ['parentBeaconBlockRoot', 'data'],
  ['requestsHash', 'data'],
];

/** The RLP field list of a JSON-RPC block header (the fields a block lacks are left out at the end). */
export function headerFields(b: RpcHeaderBlock): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [name, kind] of HEADER_FIELDS) {
    const v = b[name];
    if (v === undefined || v === null) break;
    if (typeof v !== 'string') throw new Error(`header field ${name} is not hex`);
    out.push(kind === 'q' ? quantityBytes(v as Hex) : hexToBytes(v as Hex));
  }
  return out;
}

export interface ExportOptions {
  from: number;
  to: number;
  /** Signed bytes by transaction hash: these are not fetched again (unless `checkRaw`). */
  knownRaw?: Map<Hash, Hex>;
  /** Fetch every transaction's bytes from anvil too; they must equal the known ones. */
  checkRaw?: boolean;
  /** Blocks per JSON-RPC batch. */
  chunk?: number;
}

/**
 * Exports blocks `from`..`to`: each block's RLP `[header, transactions, uncles, withdrawals]`, with
 * keccak(rlp(header)) checked against the node's block hash and keccak of each transaction against
 * its listed hash.
 */
export async function exportBlocks(
  client: AnvilClient,
  { from, to, knownRaw = new Map(), checkRaw = false, chunk = 100 }: ExportOptions,
): Promise<{ rlp: Uint8Array[]; blocks: ExportedBlock[] }> {
  const rlp: Uint8Array[] = [];
  const blocks: ExportedBlock[] = [];
  for (let start = from; start <= to; start += chunk) {
    const end = Math.min(to, start + chunk - 1);
    const numbers = Array.from({ length: end - start + 1 }, (_, i) => start + i);
    const rpcBlocks = await Promise.all(
      numbers.map(async (n) => {
        const b = await client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(n), false] });
        if (!b) throw new Error(`block ${n}: not found`);
        return b;
      }),
    );
    const need = rpcBlocks.flatMap((b) => b.transactions.filter((h) => checkRaw || !knownRaw.has(h)));
    const fetched = new Map<Hash, Hex>();
    for (let i = 0; i < need.length; i += 1000) {
      const part = need.slice(i, i + 1000);
      const raws = await Promise.all(part.map((h) => client.request({ method: 'eth_getRawTransactionByHash', params: [h] })));
      part.forEach((h, j) => {
        const raw = raws[j];
        if (raw) fetched.set(h, raw);
      });
    }
    for (const b of rpcBlocks) {
      const fields = headerFields(b);
      const hash = keccak256(RLP.encode(fields));
      if (hash !== b.hash) throw new Error(`block ${Number(b.number)}: keccak(rlp(header)) ${hash} != anvil's ${b.hash}`);
      const txs: Input[] = [];
      for (const h of b.transactions) {
        const known = knownRaw.get(h);
        const got = fetched.get(h);
        if (known && got && known !== got) throw new Error(`tx ${h}: anvil's raw bytes differ from the signed ones`);
        const hex = got ?? known;
        if (!hex) throw new Error(`tx ${h}: no raw bytes`);
        const raw = hexToBytes(hex);
        if (keccak256(raw) !== h) throw new Error(`tx ${h}: keccak(raw) differs`);
        // typed transactions are embedded as their EIP-2718 bytes, legacy ones as the RLP list
        txs.push(raw[0] >= 0xc0 ? RLP.decode(raw) : raw);
      }
      if (b.uncles.length > 0) throw new Error(`block ${Number(b.number)} has uncles`);
      const withdrawals = (b.withdrawals ?? []).map((w) => [
        quantityBytes(w.index),
        quantityBytes(w.validatorIndex),
        hexToBytes(w.address),
        quantityBytes(w.amount),
      ]);
      const body = b.withdrawals === undefined ? [fields, txs, []] : [fields, txs, [], withdrawals];
      rlp.push(RLP.encode(body));
      blocks.push({ number: Number(b.number), hash: b.hash, stateRoot: b.stateRoot, gasUsed: Number(b.gasUsed), txHashes: b.transactions });
    }
  }
  return { rlp, blocks };
}

/** Checks every receipt's status (and created address) against what the scenario expected. */
export async function checkReceipts(client: AnvilClient, expect: Map<Hash, ExpectedReceipt>): Promise<void> {
  const hashes = [...expect.keys()];
  const bad: string[] = [];
  for (let i = 0; i < hashes.length; i += 1000) {
    const part = hashes.slice(i, i + 1000);
    const receipts = await Promise.all(part.map((h) => client.request({ method: 'eth_getTransactionReceipt', params: [h] })));
    part.forEach((h, j) => {
      const r = receipts[j];
      const e = expect.get(h)!;
      if (!r) bad.push(`${h} (${e.label}): no receipt`);
      else if (Number(r.status) !== e.status) bad.push(`${h} (${e.label}): status ${Number(r.status)}, expected ${e.status}`);
      else if (e.created && e.status === 1 && r.contractAddress?.toLowerCase() !== e.created)
        bad.push(`${h} (${e.label}): created ${r.contractAddress}, expected ${e.created}`);
    });
  }
  if (bad.length > 0) throw new Error(`unexpected receipts:\n  ${bad.slice(0, 20).join('\n  ')}${bad.length > 20 ? `\n  … ${bad.length - 20} more` : ''}`);
}
