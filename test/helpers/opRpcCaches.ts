import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { knownOpChain } from '../../src/chain/op/chains.js';
import { opBlock } from '../../src/chain/op/opBlock.js';
import { type OpRollup, opCommon, upgradeAt } from '../../src/chain/op/rollup.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { headerFromRpc } from '../../src/follow/blockFromRpc.js';
import { opBlockFromRpc } from '../../src/follow/opBlockFromRpc.js';
import { parentOnly, runOnPreState } from './opBlocks.js';

/**
 * The real OP Mainnet blocks of `fixtures/op-stack/rpc-caches/` (see the README there): risc0/zeth's
 * recorded JSON-RPC answers for one block each, unchanged. Each holds the block
 * (`eth_getBlockByNumber` with its transactions), its parent's header, and `eth_getProof` of every
 * account and slot the block touches at the parent and at the block. The block is rebuilt as the
 * follower rebuilds an OP node's JSON (`follow/opBlockFromRpc.ts`: every transaction to its hash,
 * the header to its hash, the transactions to their root); the parent header must hash to the
 * block's parent hash; the pre-state is the nodes of the parent's proofs and the codes.
 */

export const OP_RPC_CACHES = resolve(import.meta.dirname, '../../fixtures/op-stack/rpc-caches');

type Json = Record<string, unknown>;
interface ProofJson {
  accountProof: string[];
  storageProof?: Array<{ proof: string[] }>;
}
/** zeth's cache: each entry a list of [query, answer]. */
interface ZethCache {
  full_blocks: Array<[{ block_no: number }, Json]>;
  partial_blocks: Array<[{ block_no: number }, Json]>;
  proofs: Array<[{ block_no: number; address: string; indices: string[] }, ProofJson]>;
  code: Array<[{ block_no: number; address: string }, string]>;
}

export interface OpCachedBlock {
  file: string;
  number: bigint;
  rollup: OpRollup;
  /** The block's JSON as the node answered it. */
  json: Json;
  block: Block;
  transactions: Uint8Array[];
  parent: BlockHeader;
  /** The nodes of the parent's account and storage proofs (0x-hex). */
  state: string[];
  /** The touched accounts' codes at the parent (0x-hex, none empty). */
  codes: string[];
  /** `eth_getProof` of each touched account at the block, by lower-case address, as the node answered it. */
  proofsAtBlock: Map<string, Json>;
}

const FILE = /^op-mainnet-(\d+)\.json\.gz$/;

/** Every cached block, rebuilt and checked against its hash; the parent header checked against the block's parent hash. */
export async function loadOpRpcCaches(): Promise<OpCachedBlock[]> {
  const rollup = knownOpChain(10n)!.rollup;
  const files = readdirSync(OP_RPC_CACHES).filter((f) => FILE.test(f));
  return Promise.all(
    files.map(async (file) => {
      const cache = JSON.parse(gunzipSync(readFileSync(join(OP_RPC_CACHES, file))).toString('utf8')) as ZethCache;
      const number = BigInt(FILE.exec(file)![1]);
      const json = cache.full_blocks[0][1];
      const { header, transactions } = await opBlockFromRpc(json, rollup);
      if (header.number !== number) throw new Error(`${file} holds block ${header.number}`);
      const common = opCommon(rollup, upgradeAt(rollup, header.timestamp));
      const parent = headerFromRpc(cache.partial_blocks[0][1], common, { setHardfork: false });
      if (bytesToHex(parent.hash()) !== bytesToHex(header.parentHash)) throw new Error(`${file}: the parent header does not hash to the block's parent hash`);
      const state = new Set<string>();
      const proofsAtBlock = new Map<string, Json>();
      for (const [query, proof] of cache.proofs) {
        if (BigInt(query.block_no) === number) proofsAtBlock.set(query.address.toLowerCase(), proof as unknown as Json);
        if (BigInt(query.block_no) !== parent.number) continue;
        for (const node of proof.accountProof) state.add(node);
        for (const slot of proof.storageProof ?? []) for (const node of slot.proof) state.add(node);
      }
      const codes = new Set(cache.code.filter(([query, code]) => BigInt(query.block_no) === parent.number && code !== '0x').map(([, code]) => code));
      return { file, number, rollup, json, block: opBlock(header, transactions), transactions, parent, state: [...state], codes: [...codes], proofsAtBlock };
    }),
  );
}

/** The cached block run by tracenode's OP executor on its parent's proven state. */
export function executeCachedBlock(b: OpCachedBlock): Promise<OpBlockResult> {
  return runOnPreState({ ...b, blockchain: parentOnly(b.parent, 'the cache') });
}
