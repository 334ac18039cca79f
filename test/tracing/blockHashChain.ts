import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { createLegacyTx } from '@ethereumjs/tx';
import { bytesToHex, concatBytes, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util';
import { buildBlock, createVM } from '@ethereumjs/vm';
import { createChainCommon, createGenesis } from '../../src/chain/genesis.js';
import { londonPowGenesis } from './demoChain.js';

/**
 * A six-block London chain whose last block asks BLOCKHASH for blocks 1 and 5 and stores both
 * hashes, so that its post-state root depends on them: neither fixture chain's transactions use
 * BLOCKHASH. Blocks 1–5 are empty. Written as `genesis.json` + `chain.rlp`, imported like a fixture.
 */

const KEY = hexToBytes(`0x${'46'.repeat(32)}`);
const SENDER = createAddressFromPrivateKey(KEY).bytes;
/** The contract: slot 0 = BLOCKHASH(NUMBER - 5), slot 1 = BLOCKHASH(NUMBER - 1). */
export const HASHER = hexToBytes('0x00000000000000000000000000000000000000c0');
// PUSH1 5 NUMBER SUB BLOCKHASH PUSH1 0 SSTORE  PUSH1 1 NUMBER SUB BLOCKHASH PUSH1 1 SSTORE  STOP
const HASHER_CODE = hexToBytes('0x6005430340600055600143034060015500');
/** The block whose transaction asks for the hashes. */
export const ASKING_BLOCK = 6n;

/** Builds the chain into `dir`. */
export async function buildBlockHashChain(dir: string): Promise<void> {
  const genesis = londonPowGenesis(1338, {
    [bytesToHex(SENDER)]: { balance: '0x3635c9adc5dea00000' },
    [bytesToHex(HASHER)]: { code: bytesToHex(HASHER_CODE), balance: '0x0' },
  });
  const common = await createChainCommon(genesis);
  const { block: genesisBlock, state } = await createGenesis(genesis, common);
  const stateManager = new MerkleStateManager({ common });
  await stateManager.generateCanonicalGenesis(state);
  const blocks: Block[] = [genesisBlock];
  const chain: EVMMockBlockchainInterface = {
    async getBlock(n: number | bigint) {
      return blocks[Number(n)];
    },
    async putBlock() {},
    shallowCopy: () => chain,
  };
  const vm = await createVM({ common, stateManager, blockchain: chain as never });
  for (let n = 1n; n <= ASKING_BLOCK; n++) {
    const parent = blocks.at(-1)!;
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData: { timestamp: parent.header.timestamp + 12n, coinbase: hexToBytes(`0x${'ab'.repeat(20)}`), gasLimit: parent.header.gasLimit },
      blockOpts: { calcDifficultyFromHeader: parent.header, putBlockIntoBlockchain: false },
    });
    if (n === ASKING_BLOCK) {
      const tx = createLegacyTx({ nonce: 0n, gasPrice: 2_000_000_000n, gasLimit: 100_000n, to: HASHER }, { common }).sign(KEY);
      await builder.addTransaction(tx);
    }
    blocks.push((await builder.build()).block);
  }
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
  writeFileSync(join(dir, 'chain.rlp'), concatBytes(...blocks.slice(1).map((b) => b.serialize())));
}
