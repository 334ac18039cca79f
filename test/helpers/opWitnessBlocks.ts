import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { Block, BlockHeader } from '@ethereumjs/block';
import { hexToBytes } from '@ethereumjs/util';
import { knownOpChain } from '../../src/chain/op/chains.js';
import { opBlock } from '../../src/chain/op/opBlock.js';
import { type OpRollup, opCommon, upgradeAt } from '../../src/chain/op/rollup.js';
import type { OpBlockResult } from '../../src/execution/op/opBlockRun.js';
import { headerFromRpc } from '../../src/follow/blockFromRpc.js';
import { headerFromJson, parentOnly, runOnPreState } from './opBlocks.js';

/**
 * A real Base Sepolia block after Jovian with its execution witness
 * (`fixtures/op-stack/witnesses/`, see the README there): op-enclave's stateless-execution fixture,
 * unchanged. It holds the block's header (without `blobGasUsed`, `excessBlobGas` and the requests
 * hash), its transactions and its parent's, the `debug_executionWitness` of the block (the
 * parent's header, trie nodes and codes by hash), the message passer's proof, and the state and
 * receipts roots the block must give.
 */

export const BASE_SEPOLIA_BLOCK = resolve(import.meta.dirname, '../../fixtures/op-stack/witnesses/base-sepolia-37312300.json.br');

type Json = Record<string, string>;
/** The fields of the fixture read here (op-enclave's `StatelessTestFixture`, camelCase). */
export interface EnclaveFixture {
  rollupConfig: Record<string, unknown>;
  blockHeader: Json;
  previousBlockTxs: string[];
  actualBlockTxs: string[];
  witness: { Headers: Json[]; Codes: Record<string, string>; State: Record<string, string> };
  messageAccount: { address: string; accountProof: string[]; storageHash: string };
  expectedStateRoot: string;
  expectedReceiptsRoot: string;
}

export interface OpWitnessBlock {
  fixture: EnclaveFixture;
  rollup: OpRollup;
  parent: BlockHeader;
  block: Block;
  transactions: Uint8Array[];
  /** The parent's transactions (EIP-2718 bytes). */
  previousTransactions: Uint8Array[];
}

const hex = (s: string) => hexToBytes(s as `0x${string}`);

/** The block by Base Sepolia's known rules; the parent header (the witness's) checked against the block's parent hash. */
export function loadBaseSepoliaBlock(): OpWitnessBlock {
  const fixture = JSON.parse(brotliDecompressSync(readFileSync(BASE_SEPOLIA_BLOCK)).toString('utf8')) as EnclaveFixture;
  const rollup = knownOpChain(84532n)!.rollup;
  const h = fixture.blockHeader;
  const time = BigInt(h.timestamp);
  const common = opCommon(rollup, upgradeAt(rollup, time));
  // headerFromRpc checks the header against the hash it is given: the block's parent hash.
  const parent = headerFromRpc({ ...fixture.witness.Headers[0], hash: h.parentHash }, common, { setHardfork: false });
  const header = headerFromJson(h, rollup);
  const transactions = fixture.actualBlockTxs.map(hex);
  return { fixture, rollup, parent, block: opBlock(header, transactions, []), transactions, previousTransactions: fixture.previousBlockTxs.map(hex) };
}

/** The block run by tracenode's OP executor on its witness (with the importer's speed-ups, or without). */
export function executeWitnessBlock(b: OpWitnessBlock, fastPaths = true): Promise<OpBlockResult> {
  const { State, Codes } = b.fixture.witness;
  return runOnPreState({
    fastPaths,
    rollup: b.rollup,
    parent: b.parent,
    block: b.block,
    transactions: b.transactions,
    state: Object.values(State),
    codes: Object.values(Codes),
    blockchain: parentOnly(b.parent, 'the witness'),
  });
}
