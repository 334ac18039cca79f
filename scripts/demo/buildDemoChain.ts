// Owns the building of the demo chain: blocks assembled from the plan and executed with
// @ethereumjs/vm `runBlock({generate: true})` (which yields stateRoot, receiptTrie, logsBloom and
// gasUsed); every finished block is put into an @ethereumjs/blockchain with validateBlocks, so an
// invalid block stops the generator. BlockBuilder is not used: it cannot take uncle headers and pays
// no uncle rewards. PoW seals (nonce/mixHash) are not ethash proofs, as in the ethereum/tests
// `NoProof` chains: the chain is imported without seal verification.
import { type Block, type BlockHeader, createBlock, createBlockHeader, genTransactionsTrieRoot, genWithdrawalsTrieRoot } from '@ethereumjs/block';
import { createBlockchain } from '@ethereumjs/blockchain';
import { type Common, type GethGenesis, parseGethGenesisState } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { computeVersionedHash, createAddressFromString, createWithdrawal, hexToBytes } from '@ethereumjs/util';
import { createVM, runBlock, type VM } from '@ethereumjs/vm';
import { type Address, bytesToHex, type Hash, type Hex, keccak256, stringToBytes } from 'viem';
import { functionData } from '../lib/abi.js';
import type { KeyedAccount } from '../lib/accounts.js';
import { commonForGenesis, loadKzg } from '../lib/genesis.js';
import { compileDemoContracts, type DemoAddresses, type DemoContracts } from './demoContracts.js';
import { buildDemoGenesis } from './demoGenesis.js';
import {
  BEACON_ROOTS,
  CANCUN_BLOCK,
  ETHER,
  FORK,
  feeRecipientA,
  feeRecipientB,
  h32,
  LAST_BLOCK,
  MERGE_BLOCK,
  miner,
  POW_SPACING,
  STATEBOX,
  timestampOf,
} from './demoParams.js';
import { createTxMaker, makeBlob } from './demoTransactions.js';
import { posBlockPlan } from './planPos.js';
import { powBlockPlan } from './planPow.js';
import type { BlockPlan, UncleSpec } from './planTypes.js';
import { recordStorage, type StorageHistory } from './storageWatch.js';

/** What the one blob transaction carries. */
export const BLOB_DATA = 'tracenode demo blob: hello from block 28';
/** The rounds of the Probe.heavy eth_call benchmark the README lists. */
export const HEAVY_ROUNDS = 100_000;
const ZERO8 = new Uint8Array(8);
const CHAIN_NAME = 'tracenode-demo';

/** README material about one block. */
export interface BlockInfo {
  number: number;
  hash: Hash;
  /** The latest fork active at the block, as ethereumjs names it. */
  hardfork: string;
  miner: Address;
  difficulty: bigint;
  baseFee?: bigint;
  gasUsed: bigint;
  txCount: number;
  logCount: number;
  /** Undefined before Shanghai. */
  withdrawals?: number;
  uncles: { hash: Hash; number: number; miner: Address; baseFee?: bigint; reward: bigint }[];
  /** Undefined after the merge. */
  blockReward?: bigint;
}

/** README material about one transaction. */
export interface TxInfo {
  block: number;
  index: number;
  hash: Hash;
  type: number;
  from: KeyedAccount;
  to?: Address;
  created?: Address;
  status: 0 | 1;
  error?: string;
  label?: string;
}

/** The built chain and what its README tells. */
export interface DemoChain {
  genesis: GethGenesis;
  /** Block 0 (genesis) to the head. */
  blocks: Block[];
  /** Blocks 1..head. */
  blockInfo: BlockInfo[];
  txInfo: TxInfo[];
  storageHistory: StorageHistory;
  A: DemoAddresses;
  C: DemoContracts;
  solcVersion: string;
  terminalTotalDifficulty: bigint;
  blobVersionedHashes: Hex[];
  /** Execution gas of Probe.heavy(HEAVY_ROUNDS) at the head. */
  heavyGas: bigint;
}

/** Reward per the fork of `number` (PoW only): the block author's, and each uncle's. */
function powRewards(number: number, uncles: BlockHeader[]): { block: bigint; uncles: bigint[] } {
  const base = number < FORK.constantinople ? 3n * ETHER : 2n * ETHER; // EIP-649 (Byzantium), EIP-1234 (Constantinople)
  return {
    block: base + (base / 32n) * BigInt(uncles.length),
    uncles: uncles.map((u) => ((u.number + 8n - BigInt(number)) * base) / 8n),
  };
}

/**
 * Builds an uncle header: a sibling or cousin block on the canonical ancestor `number - 1`, executed
 * (empty) on its parent's state so that it has a genuine stateRoot.
 */
async function buildUncle(vm: VM, blocks: Block[], commonAt: (n: number) => Common, spec: UncleSpec): Promise<BlockHeader> {
  const parent = blocks[spec.number - 1];
  const c = commonAt(spec.number);
  const headerData = {
    parentHash: parent.hash(),
    number: BigInt(spec.number),
    timestamp: parent.header.timestamp + BigInt(POW_SPACING + 1 + (spec.tsOffset ?? 0)),
    gasLimit: parent.header.gasLimit,
    coinbase: spec.miner.address,
    extraData: stringToBytes(spec.extra),
    nonce: hexToBytes(h32(`uncle-nonce:${spec.extra}`)).slice(0, 8),
    mixHash: hexToBytes(h32(`uncle-mix:${spec.extra}`)),
    baseFeePerGas: c.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : undefined,
  };
  const draft = createBlock({ header: headerData }, { common: c, calcDifficultyFromHeader: parent.header });
  const uvm = await vm.shallowCopy();
  const res = await runBlock(uvm, { block: draft, root: parent.header.stateRoot, generate: true, skipBlockValidation: true, setHardfork: true });
  return createBlockHeader(
    {
      ...headerData,
      difficulty: draft.header.difficulty,
      stateRoot: res.stateRoot,
      receiptTrie: res.receiptsRoot,
      logsBloom: res.logsBloom,
      gasUsed: res.gasUsed,
    },
    { common: c },
  );
}

/** Builds the whole demo chain in memory; writing it out is the caller's. */
export async function buildDemoChain(): Promise<DemoChain> {
  const { contracts: C, solcVersion } = await compileDemoContracts();
  const kzg = await loadKzg();
  // terminalTotalDifficulty is filled in at the end, once the total difficulty of the last PoW block is known
  const draftGenesis = buildDemoGenesis(0, C.StateBox.deployedBytecode);
  const common = commonForGenesis(draftGenesis, CHAIN_NAME, kzg);
  const genesisState = parseGethGenesisState(draftGenesis);
  const blockchain = await createBlockchain({ common: common.copy(), genesisState, validateConsensus: false, validateBlocks: true });
  const vm = await createVM({ common: common.copy(), blockchain });
  const stateManager = vm.stateManager;
  await stateManager.generateCanonicalGenesis!(genesisState);
  const genesisBlock = blockchain.genesisBlock;
  if (bytesToHex(await stateManager.getStateRoot()) !== bytesToHex(genesisBlock.header.stateRoot)) throw new Error('genesis state root mismatch');
  const commonAt = (n: number) => {
    const c = common.copy();
    c.setHardforkBy({ blockNumber: BigInt(n), timestamp: BigInt(timestampOf(n)) });
    return c;
  };

  const txMaker = createTxMaker(commonAt);
  const A: DemoAddresses = { StateBox: STATEBOX, BeaconRoots: BEACON_ROOTS };
  const blobs = [makeBlob(stringToBytes(BLOB_DATA))];
  const blobVersionedHashes = blobs.map((b) => computeVersionedHash(kzg.blobToKzgCommitment(b).toLowerCase() as Hex, 1) as Hex);
  const planContext = { C, A, peekNonce: txMaker.peekNonce, blobVersionedHashes };
  const plan: BlockPlan = { ...powBlockPlan(planContext), ...posBlockPlan(planContext) };

  const storageHistory: StorageHistory = new Map();
  await recordStorage(storageHistory, A, stateManager, 0);
  const blocks: Block[] = [genesisBlock];
  const blockInfo: BlockInfo[] = [];
  const txInfo: TxInfo[] = [];
  let withdrawalIndex = 0n;
  let totalDifficulty = genesisBlock.header.difficulty;
  let terminalTotalDifficulty = 0n;

  for (let n = 1; n <= LAST_BLOCK; n++) {
    const parent = blocks[n - 1];
    const c = commonAt(n);
    const pos = n >= MERGE_BLOCK;
    const p = plan[n]?.() ?? { txs: [] };
    const txs = p.txs.map(([from, spec, label, expect]) => ({ tx: txMaker.makeTx(n, from, spec), from, spec, label, expect: expect ?? 'ok' }));
    if (pos && p.uncles) throw new Error(`block ${n}: uncles after the merge`);
    const uncles: BlockHeader[] = [];
    for (const u of p.uncles ?? []) uncles.push(await buildUncle(vm, blocks, commonAt, u));
    if (!c.isActivatedEIP(4895) && p.withdrawals) throw new Error(`block ${n}: withdrawals before Shanghai`);
    const withdrawals = c.isActivatedEIP(4895)
      ? (p.withdrawals ?? []).map((w) => ({ index: withdrawalIndex++, validatorIndex: BigInt(w.validatorIndex), address: w.address, amount: w.amount }))
      : undefined;
    const cancun = c.isActivatedEIP(4844);
    const blobCount = txs.reduce((s, t) => s + ('blobVersionedHashes' in t.tx ? t.tx.blobVersionedHashes.length : 0), 0);

    const headerData = {
      parentHash: parent.hash(),
      number: BigInt(n),
      timestamp: BigInt(timestampOf(n)),
      gasLimit: n === FORK.london ? parent.header.gasLimit * 2n : parent.header.gasLimit,
      coinbase: pos ? (n % 2 === 0 ? feeRecipientA.address : feeRecipientB.address) : miner.address,
      extraData: stringToBytes(pos ? 'tracenode/pos' : 'tracenode/pow'),
      nonce: pos ? ZERO8 : hexToBytes(h32(`pow-nonce:${n}`)).slice(0, 8),
      mixHash: hexToBytes(pos ? h32(`prevrandao:${n}`) : h32(`pow-mix:${n}`)),
      difficulty: pos ? 0n : undefined,
      baseFeePerGas: c.isActivatedEIP(1559) ? (n === FORK.london ? c.param('initialBaseFee') : parent.header.calcNextBaseFee()) : undefined,
      uncleHash: uncles.length > 0 ? hexToBytes(keccak256(RLP.encode(uncles.map((u) => u.raw())))) : undefined,
      withdrawalsRoot: withdrawals
        ? await genWithdrawalsTrieRoot(
            withdrawals.map((w) => createWithdrawal(w)),
            new MerklePatriciaTrie(),
          )
        : undefined,
      excessBlobGas: cancun ? (n === CANCUN_BLOCK ? 0n : parent.header.calcNextExcessBlobGas(c)) : undefined,
      blobGasUsed: cancun ? BigInt(blobCount) * c.param('blobGasPerBlob') : undefined,
      parentBeaconBlockRoot: cancun ? hexToBytes(h32(`beacon-block-root:${n}`)) : undefined,
    };
    const blockOpts = { common: c, calcDifficultyFromHeader: pos ? undefined : parent.header };
    const body = { transactions: txs.map((t) => t.tx), uncleHeaders: uncles, withdrawals };
    const draft = createBlock({ header: headerData, ...body }, blockOpts);
    const res = await runBlock(vm, { block: draft, generate: true, skipBlockValidation: true, setHardfork: true });
    const block = createBlock(
      {
        header: {
          ...headerData,
          difficulty: draft.header.difficulty,
          stateRoot: res.stateRoot,
          receiptTrie: res.receiptsRoot,
          logsBloom: res.logsBloom,
          gasUsed: res.gasUsed,
          transactionsTrie: await genTransactionsTrieRoot(draft.transactions, new MerklePatriciaTrie()),
        },
        ...body,
      },
      { common: c },
    );
    await blockchain.putBlock(block); // validateBlocks: header vs parent, uncles, tries, withdrawals, blob gas
    blocks.push(block);
    if (!pos) {
      totalDifficulty += block.header.difficulty;
      if (n === MERGE_BLOCK - 1) terminalTotalDifficulty = totalDifficulty;
    }

    // Check that every transaction ended as planned; collect README material.
    let logCount = 0;
    txs.forEach((t, i) => {
      const r = res.results[i];
      const error = r.execResult.exceptionError?.error;
      const failed = error !== undefined;
      if (failed !== (t.expect === 'fail')) {
        throw new Error(`block ${n} tx ${i} (${t.label ?? t.spec.data?.slice(0, 10)}): expected ${t.expect}, got ${error ?? 'success'}`);
      }
      logCount += r.receipt.logs.length;
      txInfo.push({
        block: n,
        index: i,
        hash: bytesToHex(block.transactions[i].hash()),
        type: block.transactions[i].type,
        from: t.from,
        to: t.spec.to,
        created: r.createdAddress?.toString() as Address | undefined,
        status: failed ? 0 : 1,
        error,
        label: t.label,
      });
    });
    const rewards = pos ? undefined : powRewards(n, uncles);
    blockInfo.push({
      number: n,
      hash: bytesToHex(block.hash()),
      hardfork: c.hardfork(),
      miner: block.header.coinbase.toString() as Address,
      difficulty: block.header.difficulty,
      baseFee: block.header.baseFeePerGas,
      gasUsed: block.header.gasUsed,
      txCount: txs.length,
      logCount,
      withdrawals: withdrawals?.length,
      uncles: uncles.map((u, i) => ({
        hash: bytesToHex(u.hash()),
        number: Number(u.number),
        miner: u.coinbase.toString() as Address,
        baseFee: u.baseFeePerGas,
        reward: rewards!.uncles[i],
      })),
      blockReward: rewards?.block,
    });
    await recordStorage(storageHistory, A, stateManager, n);
  }

  const genesis = buildDemoGenesis(Number(terminalTotalDifficulty), C.StateBox.deployedBytecode);
  await checkSameGenesis(genesis, genesisBlock, kzg);
  const head = blocks[blocks.length - 1];
  return {
    genesis,
    blocks,
    blockInfo,
    txInfo,
    storageHistory,
    A,
    C,
    solcVersion,
    terminalTotalDifficulty,
    blobVersionedHashes,
    heavyGas: await heavyCallGas(vm, C, A, head),
  };
}

/** The final genesis (with terminalTotalDifficulty) must describe the same genesis block. */
async function checkSameGenesis(genesis: GethGenesis, genesisBlock: Block, kzg: Awaited<ReturnType<typeof loadKzg>>): Promise<void> {
  const c2 = commonForGenesis(genesis, CHAIN_NAME, kzg);
  const bc2 = await createBlockchain({ common: c2, genesisState: parseGethGenesisState(genesis), validateConsensus: false, validateBlocks: false });
  if (bytesToHex(bc2.genesisBlock.hash()) !== bytesToHex(genesisBlock.hash())) throw new Error('genesis hash changed with terminalTotalDifficulty');
}

/** Gas of the benchmark call Probe.heavy(HEAVY_ROUNDS) at the head (an eth_call, on a throw-away copy of the state). */
async function heavyCallGas(vm: VM, C: DemoContracts, A: DemoAddresses, head: Block): Promise<bigint> {
  const copy = await vm.shallowCopy();
  const r = await copy.evm.runCall({
    to: createAddressFromString(A.Probe),
    data: hexToBytes(functionData(C.Probe, 'heavy', [HEAVY_ROUNDS])),
    gasLimit: 1_000_000_000n,
    block: head,
  });
  if (r.execResult.exceptionError) throw new Error(`Probe.heavy: ${r.execResult.exceptionError.error}`);
  return r.execResult.executionGasUsed;
}
