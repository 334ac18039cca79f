// Owns the generator's independent check (`--verify`): a generated chain imported with plain
// @ethereumjs (no tracenode code), every block hash and stateRoot compared with anvil's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { type GethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToHex } from '@ethereumjs/util';
import { createVM, runBlock } from '@ethereumjs/vm';
import { commonForGenesis, loadKzg } from '../lib/genesis.js';
import type { Expected } from './renderReadme.js';

/**
 * Imports <dir>/genesis.json + chain.rlp (validateBlocks, runBlock per block) and compares every
 * block hash and stateRoot with <dir>/expected.json; throws at the first difference.
 */
export async function verifyWithEthereumjs(dir: string): Promise<{ blocks: number; seconds: number }> {
  const started = performance.now();
  const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8')) as GethGenesis;
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
  const common = commonForGenesis(genesis, 'anvilchain', await loadKzg());
  const genesisState = parseGethGenesisState(genesis);
  const blockchain = await createBlockchain({ common, genesisState, validateConsensus: false, validateBlocks: true });
  if (bytesToHex(blockchain.genesisBlock.hash()) !== expected.genesisHash) throw new Error('genesis hash differs');
  const stateManager = new MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(genesisState);
  const vm = await createVM({ common, blockchain, stateManager });
  let rest: Uint8Array = readFileSync(join(dir, 'chain.rlp'));
  let count = 0;
  while (rest.length > 0) {
    const { remainder } = RLP.decode(rest, true);
    const block = createBlockFromRLP(rest.subarray(0, rest.length - remainder.length), { common, setHardfork: true });
    rest = remainder;
    const n = Number(block.header.number);
    const want = expected.blocks[n];
    if (bytesToHex(block.hash()) !== want.hash) throw new Error(`block ${n}: hash ${bytesToHex(block.hash())} != ${want.hash}`);
    await blockchain.putBlock(block);
    const r = await runBlock(vm, { block, generate: true, skipHeaderValidation: true, setHardfork: true });
    if (bytesToHex(r.stateRoot) !== want.stateRoot) throw new Error(`block ${n}: ethereumjs stateRoot ${bytesToHex(r.stateRoot)} != anvil's ${want.stateRoot}`);
    if (bytesToHex(r.receiptsRoot) !== bytesToHex(block.header.receiptTrie)) throw new Error(`block ${n}: receiptsRoot differs`);
    count++;
  }
  if (count !== expected.head.number) throw new Error(`imported ${count} blocks, expected ${expected.head.number}`);
  return { blocks: count, seconds: (performance.now() - started) / 1000 };
}
