import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, equalsBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util';
import type { RunBlockResult } from '@ethereumjs/vm';
import { keccak256 } from '../../src/codec/keccak.js';
import type { RealBlock } from './realBlocks.js';
import { executeRealBlock, witnessAnswer } from './realExecution.js';

/**
 * A stand-in for the node a user follows, serving consecutive real blocks (fixtures/real-blocks/)
 * over JSON-RPC on 127.0.0.1: the first block is the archive's start (its receipts computed by
 * executing it on its witness, and refused unless they give its header's receiptsRoot), the next
 * ones are followed. It answers what tracenode's follower asks: the chain id, the head, headers and
 * raw blocks, the first block's receipts, and — as the test chooses — each block's execution
 * witness (reth's or geth's shape) and proofs and code at each block's parent (built from the next
 * block's witness, so from the real state). Everything else is an error answer, and the methods
 * asked are counted.
 */

export interface RealUpstreamOptions {
  /** Serve debug_executionWitness, in this shape; none: the method is not served. */
  witness?: 'reth' | 'geth';
  /** Serve eth_getProof and eth_getCode. */
  proofs: boolean;
}

export interface RealUpstream {
  url: string;
  /** Calls received, by method. */
  counts: Map<string, number>;
  /** The block numbers debug_executionWitness was asked for, in order. */
  witnessesAsked: number[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const quantity = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;

/** A header as JSON-RPC renders it. */
function headerJson(header: BlockHeader): Json {
  const fields = RLP.decode(header.serialize()) as Uint8Array[];
  const names = [
    'parentHash',
    'sha3Uncles',
    'miner',
    'stateRoot',
    'transactionsRoot',
    'receiptsRoot',
    'logsBloom',
    'difficulty',
    'number',
    'gasLimit',
    'gasUsed',
    'timestamp',
    'extraData',
    'mixHash',
    'nonce',
    'baseFeePerGas',
    'withdrawalsRoot',
    'blobGasUsed',
    'excessBlobGas',
    'parentBeaconBlockRoot',
    'requestsHash',
  ];
  const quantities = new Set(['difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'baseFeePerGas', 'blobGasUsed', 'excessBlobGas']);
  const json: Json = { hash: bytesToHex(header.hash()) };
  fields.forEach((f, i) => {
    json[names[i]] = quantities.has(names[i]) ? quantity(f.length === 0 ? 0n : BigInt(bytesToHex(f))) : bytesToHex(f);
  });
  return json;
}

/** Receipts of an executed block as eth_getBlockReceipts renders their consensus fields. */
function receiptsJson(rb: RealBlock, result: RunBlockResult): Json[] {
  return result.receipts.map((r, i) => ({
    transactionHash: bytesToHex(rb.block.transactions[i].hash()),
    transactionIndex: quantity(i),
    type: quantity(rb.block.transactions[i].type),
    status: 'status' in r ? quantity(r.status) : undefined,
    cumulativeGasUsed: quantity(r.cumulativeBlockGasUsed),
    logsBloom: bytesToHex(r.bitvector),
    logs: r.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map(bytesToHex), data: bytesToHex(data) })),
  }));
}

/** The nodes on `key`'s path from `root` that `nodes` holds, and the value found (undefined: the path is not complete there). */
function prove(nodes: Map<string, Uint8Array>, root: Uint8Array, key: Uint8Array): { proof: string[]; value: Uint8Array | null | undefined } {
  const proof: string[] = [];
  if (equalsBytes(root, KECCAK256_RLP)) return { proof, value: null };
  const path: number[] = [];
  for (const b of keccak256(key)) path.push(b >> 4, b & 15);
  let ref: unknown = root;
  let pos = 0;
  for (;;) {
    let items: unknown[];
    if (ref instanceof Uint8Array && ref.length === 32) {
      const node = nodes.get(bytesToHex(ref));
      if (node === undefined) return { proof, value: undefined };
      proof.push(bytesToHex(node));
      items = RLP.decode(node) as unknown[];
    } else if (Array.isArray(ref)) {
      items = ref;
    } else {
      return { proof, value: null };
    }
    if (items.length === 17) {
      if (pos === path.length) return { proof, value: (items[16] as Uint8Array).length ? (items[16] as Uint8Array) : null };
      ref = items[path[pos++]];
      if (ref instanceof Uint8Array && ref.length === 0) return { proof, value: null };
      continue;
    }
    const encoded = items[0] as Uint8Array;
    const nibbles: number[] = [];
    for (const b of encoded) nibbles.push(b >> 4, b & 15);
    const rest = nibbles.slice(nibbles[0] & 1 ? 1 : 2);
    if (!rest.every((n, i) => path[pos + i] === n)) return { proof, value: null };
    pos += rest.length;
    if (nibbles[0] >= 2) return { proof, value: pos === path.length ? (items[1] as Uint8Array) : null };
    ref = items[1];
  }
}

/** Starts the stand-in over `blocks` (consecutive, the first the archive's start). */
export async function startRealUpstream(blocks: RealBlock[], opts: RealUpstreamOptions): Promise<RealUpstream> {
  const byNumber = new Map(blocks.map((b) => [BigInt(b.json.number), b]));
  const head = blocks.at(-1)!;
  const anchor = blocks[0];
  const anchorRun = await executeRealBlock(anchor, 'witness-reth');
  if (!equalsBytes(anchorRun.result.receiptsRoot, anchor.block.header.receiptTrie))
    throw new Error(`block ${anchor.json.number}: its receipts do not give its receiptsRoot`);
  const anchorReceipts = receiptsJson(anchor, anchorRun.result);
  const counts = new Map<string, number>();
  const witnessesAsked: number[] = [];
  // The state at block n is what block n + 1's witness proves.
  const stateAt = new Map<string, { nodes: Map<string, Uint8Array>; codes: Map<string, Uint8Array>; root: Uint8Array }>();
  for (const b of blocks.slice(1)) {
    const nodes = new Map(b.witness.state.map((n) => [bytesToHex(keccak256(n)), n]));
    const codes = new Map(b.witness.codes.map((c) => [bytesToHex(keccak256(c)), c]));
    stateAt.set(bytesToHex(b.block.header.parentHash), { nodes, codes, root: b.parentStateRoot });
    stateAt.set(quantity(b.json.number - 1), { nodes, codes, root: b.parentStateRoot });
  }
  const blockOf = (id: unknown): RealBlock | undefined => {
    if (id === 'latest' || id === 'safe' || id === 'finalized') return head;
    if (typeof id === 'string' && /^0x[0-9a-f]+$/i.test(id) && id.length < 20) return byNumber.get(BigInt(id));
    if (typeof id === 'string') return blocks.find((b) => b.json.hash === id.toLowerCase());
    return undefined;
  };
  const stateOf = (at: unknown) => {
    const key = typeof at === 'object' && at !== null ? String((at as { blockHash?: string }).blockHash) : String(at);
    return stateAt.get(key.toLowerCase());
  };
  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case 'eth_chainId':
        return quantity(anchor.json.chainId);
      case 'net_version':
        return String(anchor.json.chainId);
      case 'eth_blockNumber':
        return quantity(head.json.number);
      case 'eth_getBlockByNumber':
      case 'eth_getBlockByHash': {
        const b = blockOf(params[0]);
        if (b === undefined) return null;
        if (params[1] === true) throw Object.assign(new Error('full blocks are served raw only (debug_getRawBlock)'), { code: -32601 });
        return { ...headerJson(b.block.header), transactions: b.block.transactions.map((t) => bytesToHex(t.hash())), uncles: [] };
      }
      case 'debug_getRawBlock': {
        const b = blockOf(params[0]);
        return b === undefined ? null : b.json.block;
      }
      case 'eth_getBlockReceipts': {
        const b = blockOf(params[0]);
        if (b !== anchor) throw Object.assign(new Error('receipts are served for the first block only'), { code: -32000 });
        return anchorReceipts;
      }
      case 'debug_executionWitness': {
        if (opts.witness === undefined) throw Object.assign(new Error('the method debug_executionWitness does not exist/is not available'), { code: -32601 });
        const b = blockOf(params[0]);
        if (b === undefined || b === anchor) throw Object.assign(new Error('no witness of that block'), { code: -32000 });
        return witnessAnswer(b, opts.witness, b.block.common);
      }
      case 'eth_getProof': {
        if (!opts.proofs) throw Object.assign(new Error('the method eth_getProof does not exist/is not available'), { code: -32601 });
        const state = stateOf(params[2]);
        if (state === undefined) throw Object.assign(new Error('missing trie node (state not available)'), { code: -32000 });
        const address = hexToBytes(params[0] as `0x${string}`);
        const account = prove(state.nodes, state.root, address);
        const fields = account.value ? (RLP.decode(account.value) as Uint8Array[]) : undefined;
        const storageRoot = fields?.[2] ?? KECCAK256_RLP;
        return {
          address: params[0],
          accountProof: account.proof,
          balance: quantity(fields?.[1]?.length ? BigInt(bytesToHex(fields[1])) : 0n),
          nonce: quantity(fields?.[0]?.length ? BigInt(bytesToHex(fields[0])) : 0n),
          storageHash: bytesToHex(storageRoot),
          codeHash: bytesToHex(fields?.[3] ?? keccak256(new Uint8Array())),
          storageProof: (params[1] as string[]).map((slot) => ({
            key: slot,
            value: '0x0',
            proof: prove(state.nodes, storageRoot, hexToBytes(slot as `0x${string}`)).proof,
          })),
        };
      }
      case 'eth_getCode': {
        if (!opts.proofs) throw Object.assign(new Error('the method eth_getCode does not exist/is not available'), { code: -32601 });
        const state = stateOf(params[1]);
        if (state === undefined) throw Object.assign(new Error('missing trie node (state not available)'), { code: -32000 });
        const value = prove(state.nodes, state.root, hexToBytes(params[0] as `0x${string}`)).value;
        const codeHash = value ? (RLP.decode(value) as Uint8Array[])[3] : undefined;
        return codeHash === undefined ? '0x' : bytesToHex(state.codes.get(bytesToHex(codeHash)) ?? new Uint8Array());
      }
      default:
        throw Object.assign(new Error(`the method ${method} does not exist/is not available`), { code: -32601 });
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json | Json[];
      const one = (call: Json) => {
        const method = String(call.method);
        counts.set(method, (counts.get(method) ?? 0) + 1);
        if (method === 'debug_executionWitness') witnessesAsked.push(Number((call.params as unknown[])[0]));
        try {
          return { jsonrpc: '2.0', id: call.id, result: answer(method, (call.params as unknown[]) ?? []) };
        } catch (err) {
          return { jsonrpc: '2.0', id: call.id, error: { code: (err as { code?: number }).code ?? -32603, message: (err as Error).message } };
        }
      };
      const reply = Array.isArray(body) ? body.map(one) : one(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    witnessesAsked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
