import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { encodeReceipt } from '@ethereumjs/vm';
import { afterAll, describe, expect, it } from 'vitest';
import { ancestorHashesOp } from '../../src/chain/archiveStart.js';
import { initArchiveFrom } from '../../src/cli/archiveFrom.js';
import { orderedTrieRoot } from '../../src/codec/orderedTrieRoot.js';
import { openDatabase } from '../../src/db/database.js';
import { rawCall } from '../helpers/anvilPeer.js';
import { tempDir } from '../helpers/chains.js';
import { verifyProof } from '../helpers/proofVerifier.js';
import { loadRealBlock, type RealBlock } from '../helpers/realBlocks.js';
import { startRealUpstream } from '../helpers/realUpstream.js';
import { testConfig } from '../helpers/testConfig.js';
import { until } from '../helpers/until.js';
import { type PartialArchive, startPartialArchive } from './partialArchive.js';

/**
 * `serve --follow URL --from N` beside a node of a public network, on real blocks: four
 * consecutive Holesky blocks (2,971,844 to 2,971,847, fixtures/real-blocks/), served by a stand-in
 * for the user's node (test/helpers/realUpstream.ts) that gives what reth gives — each block's
 * execution witness (geth's shape is taken in by the same code: test/follow/realBlocks.test.ts) —
 * or only proofs and code, as each block reads its state. The archive starts at 2,971,844 with Holesky's built-in rules, executes the three
 * blocks after it (every root checked by the importer), and serves them: block hashes, receipts
 * (their root recomputed here), proofs of every account the blocks' transactions touch (checked
 * against each real header's state root by our own verifier), balances and nonces as the proofs
 * show them, and trace_block and debug_traceBlockByNumber, one trace a transaction. BLOCKHASH of
 * these blocks reaches below N: the hashes there are the source's (see followedArchive).
 */

const NUMBERS = [2971844, 2971845, 2971846, 2971847];
const blocks: RealBlock[] = [];
for (const n of NUMBERS) blocks.push(await loadRealBlock('holesky', n));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const config = testConfig({ follow: { pollIntervalMs: 50, batchBlocks: 8, retryMaxMs: 500 }, import: { progressIntervalMs: 10 } });

async function followedArchive(
  name: string,
  opts: Parameters<typeof startRealUpstream>[1],
): Promise<{ archive: PartialArchive; counts: Map<string, number>; witnessesAsked: number[]; close(): Promise<void> }> {
  const upstream = await startRealUpstream(blocks, opts);
  const datadir = join(tmp.dir, name);
  await initArchiveFrom(datadir, upstream.url, { at: String(NUMBERS[0]) }, config, () => undefined);
  // The hashes of the 256 blocks below N, which BLOCKHASH of these blocks reaches: the source
  // (stateless-block-verifier's test data) gives them without their headers, which a real node
  // serves and init checks by hash; they are recorded here as init records them.
  const ancestors = blocks[0].json.ancestorHashes!;
  const hashes = Object.keys(ancestors)
    .map(Number)
    .sort((a, b) => a - b)
    .map((n) => hexToBytes(ancestors[String(n)] as `0x${string}`));
  const level = await openDatabase(datadir);
  await level.batch([ancestorHashesOp(hashes)]);
  await level.close();
  const archive = await startPartialArchive(datadir, upstream.url, { config });
  await until(
    `${name}: the archive's head`,
    () => archive.head(),
    (head) => head === NUMBERS.at(-1),
    120_000,
    () => archive.lines.join(' | '),
  );
  return {
    archive,
    counts: upstream.counts,
    witnessesAsked: upstream.witnessesAsked,
    close: async () => {
      await archive.close();
      await upstream.close();
    },
  };
}

/** The served chain against the real blocks: hashes, receipts, proofs, balances, traces. */
async function servesTheRealBlocks(archive: PartialArchive): Promise<void> {
  const call = async (method: string, params: unknown[]) => {
    const answer = await rawCall(archive.url, method, params);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result as never;
  };
  for (const rb of blocks.slice(1)) {
    const n = `0x${rb.json.number.toString(16)}`;
    expect(((await call('eth_getBlockByNumber', [n, false])) as { hash: string }).hash).toBe(rb.json.hash);
    // Receipts: their consensus encoding gives the real header's receiptsRoot.
    const receipts = (await call('eth_getBlockReceipts', [n])) as Array<{
      status: string;
      cumulativeGasUsed: string;
      logsBloom: string;
      logs: Array<{ address: string; topics: string[]; data: string }>;
    }>;
    expect(receipts).toHaveLength(rb.block.transactions.length);
    const encoded = receipts.map((r, i) =>
      encodeReceipt(
        {
          status: Number(r.status) as 0 | 1,
          cumulativeBlockGasUsed: BigInt(r.cumulativeGasUsed),
          bitvector: hexToBytes(r.logsBloom as `0x${string}`),
          logs: r.logs.map((l) => [
            hexToBytes(l.address as `0x${string}`),
            l.topics.map((t) => hexToBytes(t as `0x${string}`)),
            hexToBytes(l.data as `0x${string}`),
          ]),
        },
        rb.block.transactions[i].type,
      ),
    );
    expect(bytesToHex(orderedTrieRoot(encoded))).toBe(bytesToHex(rb.block.header.receiptTrie));
    // Every account the transactions name, and the coinbase: a proof against the real state root.
    const accounts = new Set([rb.block.header.coinbase.toString()]);
    for (const tx of rb.block.transactions) {
      accounts.add(tx.getSenderAddress().toString());
      if (tx.to) accounts.add(tx.to.toString());
    }
    for (const address of accounts) {
      const proof = (await call('eth_getProof', [address, [], n])) as { accountProof: string[]; balance: string; nonce: string };
      const leaf = verifyProof(
        rb.block.header.stateRoot,
        hexToBytes(address as `0x${string}`),
        proof.accountProof.map((p) => hexToBytes(p as `0x${string}`)),
      );
      const [nonce, balance] = leaf === null ? [new Uint8Array(), new Uint8Array()] : (RLP.decode(leaf) as Uint8Array[]);
      expect(BigInt(proof.balance)).toBe(bytesToBigInt(balance));
      expect(BigInt(await call('eth_getBalance', [address, n]))).toBe(bytesToBigInt(balance));
      expect(BigInt(await call('eth_getTransactionCount', [address, n]))).toBe(bytesToBigInt(nonce));
    }
    const parity = (await call('trace_block', [n])) as Array<{ transactionPosition?: number }>;
    expect(new Set(parity.filter((t) => t.transactionPosition !== undefined).map((t) => t.transactionPosition)).size).toBe(rb.block.transactions.length);
    const geth = (await call('debug_traceBlockByNumber', [n, { tracer: 'callTracer' }])) as unknown[];
    expect(geth).toHaveLength(rb.block.transactions.length);
  }
}

describe('following real Holesky blocks from block N', () => {
  it('from execution witnesses in reth’s shape: one witness a block, no proof; every block served as the chain has it', async () => {
    const f = await followedArchive('reth', { witness: 'reth', proofs: true });
    try {
      // One witness a block; a block's round that failed and was retried (a loaded machine's
      // timeout, logged) asks again.
      expect(new Set(f.witnessesAsked)).toEqual(new Set(NUMBERS.slice(1)));
      const retried = f.archive.lines.filter((l) => l.startsWith('warn ')).length;
      if (retried === 0) expect(f.witnessesAsked).toHaveLength(3);
      else expect(f.witnessesAsked.length).toBeLessThanOrEqual(3 + retried);
      expect(f.counts.get('eth_getProof') ?? 0).toBe(0);
      await servesTheRealBlocks(f.archive);
    } finally {
      await f.close();
    }
  }, 240_000);

  it('from proofs alone, as each block reads its state (an upstream without debug_executionWitness)', async () => {
    const f = await followedArchive('proofs', { proofs: true });
    try {
      expect(f.counts.get('eth_getProof')).toBeGreaterThan(10);
      await servesTheRealBlocks(f.archive);
    } finally {
      await f.close();
    }
  }, 240_000);
});
