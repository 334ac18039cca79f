// Owns the start of every anvil chain: the geth genesis (all forks through Cancun at block 0, alloc
// of funded accounts), its block 0 and an empty block 1 computed with @ethereumjs, and the anvil
// state file that starts anvil on exactly these two blocks. `anvil --init` gets the genesis
// stateRoot wrong, hence the state file (docs/peers.md).
import { type Block, createBlock } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { type Common, type GethGenesis, type GethGenesisAlloc, parseGethGenesisState } from '@ethereumjs/common';
import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import type { Hex } from 'viem';
import type { KeyedAccount } from '../lib/accounts.js';
import { commonForGenesis, gethConfig, precompileAddresses } from '../lib/genesis.js';
import { BLOCK_TIME, CHAIN_ID, CREATE2_DEPLOYER, EOA_BALANCE, GAS_LIMIT, GENESIS_TIMESTAMP, INITIAL_BASE_FEE } from './chainParams.js';

const ZERO32: Hex = `0x${'00'.repeat(32)}`;
const ZERO20: Hex = `0x${'00'.repeat(20)}`;

/**
 * A geth-format genesis: every fork through Cancun active at block 0 / time 0, post-merge from the
 * start (terminalTotalDifficulty 0, difficulty 0).
 */
export function makeGenesis(alloc: GethGenesisAlloc): GethGenesis & { excessBlobGas: string; blobGasUsed: string } {
  return {
    config: gethConfig(CHAIN_ID, {
      constantinopleBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      terminalTotalDifficulty: 0,
    }),
    nonce: '0x0',
    timestamp: bigIntToHex(BigInt(GENESIS_TIMESTAMP)),
    extraData: '0x',
    gasLimit: bigIntToHex(GAS_LIMIT),
    difficulty: '0x0',
    mixHash: ZERO32,
    coinbase: ZERO20,
    baseFeePerGas: bigIntToHex(INITIAL_BASE_FEE),
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO32,
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc,
  };
}

/** The alloc for funded EOAs (1,000,000 ether each), the precompiles (1 wei each) and the CREATE2 deployer. */
export function makeAlloc(funded: KeyedAccount[]): GethGenesisAlloc {
  const alloc: GethGenesisAlloc = {};
  for (const address of precompileAddresses()) alloc[address] = { balance: '0x1' };
  alloc[CREATE2_DEPLOYER.address] = { balance: '0x0', code: CREATE2_DEPLOYER.code };
  for (const a of funded) alloc[a.address] = { balance: bigIntToHex(EOA_BALANCE) };
  return alloc;
}

/** The ethereumjs Common of an anvil genesis. */
export function commonFor(genesis: GethGenesis): Common {
  return commonForGenesis(genesis, 'anvilchain');
}

/** A block header in anvil's state-file format (a JSON-RPC header without hash and size). */
function headerJson(block: Block): Record<string, string> {
  const h = block.header;
  return {
    parentHash: bytesToHex(h.parentHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    miner: h.coinbase.toString(),
    stateRoot: bytesToHex(h.stateRoot),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    difficulty: bigIntToHex(h.difficulty),
    number: bigIntToHex(h.number),
    gasLimit: bigIntToHex(h.gasLimit),
    gasUsed: bigIntToHex(h.gasUsed),
    timestamp: bigIntToHex(h.timestamp),
    extraData: bytesToHex(h.extraData),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
    baseFeePerGas: bigIntToHex(h.baseFeePerGas!),
    withdrawalsRoot: bytesToHex(h.withdrawalsRoot!),
    blobGasUsed: bigIntToHex(h.blobGasUsed!),
    excessBlobGas: bigIntToHex(h.excessBlobGas!),
    parentBeaconBlockRoot: bytesToHex(h.parentBeaconBlockRoot!),
  };
}

/** The two computed blocks, the anvil state file that holds them, and the chain's Common. */
export interface GenesisBlocks {
  block0: Block;
  block1: Block;
  /** anvil's `--load-state` JSON (anvil 1.7.1's SerializableState). */
  state: unknown;
  common: Common;
}

/** Computes block 0 of `genesis` and an empty block 1 on it (ethereumjs), and the anvil state file of both. */
export async function genesisBlocks(genesis: GethGenesis): Promise<GenesisBlocks> {
  const common = commonFor(genesis);
  const blockchain = await createBlockchain({ common, genesisState: parseGethGenesisState(genesis), validateConsensus: false });
  const block0 = blockchain.genesisBlock;
  const h0 = block0.header;
  // An empty post-merge block: no transactions, no withdrawals, no reward, no beacon-roots contract,
  // so its state is the genesis state.
  const block1 = createBlock(
    {
      header: {
        parentHash: block0.hash(),
        number: 1n,
        timestamp: h0.timestamp + BigInt(BLOCK_TIME),
        gasLimit: h0.gasLimit,
        baseFeePerGas: h0.calcNextBaseFee(),
        stateRoot: h0.stateRoot,
        coinbase: h0.coinbase,
        withdrawalsRoot: h0.withdrawalsRoot,
        blobGasUsed: 0n,
        excessBlobGas: h0.calcNextExcessBlobGas(common),
        parentBeaconBlockRoot: new Uint8Array(32),
      },
      withdrawals: [],
    },
    { common },
  );
  const accounts: Record<string, { nonce: number; balance: string; code: string; storage: Record<string, string> }> = {};
  for (const [address, a] of Object.entries(genesis.alloc)) {
    accounts[address.toLowerCase()] = {
      nonce: Number(BigInt(a.nonce ?? 0)),
      balance: bigIntToHex(BigInt(a.balance)),
      code: a.code ?? '0x',
      storage: a.storage ?? {},
    };
  }
  const state = {
    block: {
      number: '0x1',
      beneficiary: ZERO20,
      timestamp: bigIntToHex(block1.header.timestamp),
      gas_limit: Number(block1.header.gasLimit),
      basefee: Number(block1.header.baseFeePerGas),
      difficulty: '0x0',
      prevrandao: bytesToHex(block1.header.mixHash),
      blob_excess_gas_and_price: { excess_blob_gas: 0, blob_gasprice: 1 },
    },
    accounts,
    best_block_number: 1,
    blocks: [block0, block1].map((b) => ({ header: headerJson(b), transactions: [], ommers: [], withdrawals: [] })),
    transactions: [],
    historical_states: null,
  };
  return { block0, block1, state, common };
}
