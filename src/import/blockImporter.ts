import type { Block } from '@ethereumjs/block';
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { RunBlockResult, VM } from '@ethereumjs/vm';
import { type BranchTip, evmBlockchain } from '../chain/blockHashes.js';
import { keepLoadedStateOp, loadedStateKept } from '../chain/loadedState.js';
import { keepOpAnvilQuirksOp, opAnvilQuirksKept } from '../chain/op/anvilQuirks.js';
import type { OpUpgrade } from '../chain/op/rollup.js';
import type { EthereumChain } from '../chain/open.js';
import { newestSchemaOp } from '../chain/open.js';
import type { StoredReceipt } from '../chain/receipts.js';
import { skipSystemWritesOp, systemWritesSkipped } from '../chain/systemWrites.js';
import type { Config } from '../config/settings.js';
import type { BatchOp } from '../db/database.js';
import { blockVmCommon, createBlockVM, executeBlock } from '../execution/blockRun.js';
import { keepLoadedState } from '../execution/loadedState.js';
import { createOpVM, opUpgradeOf } from '../execution/op/opVm.js';
import { type FetchOnMiss, raceFetchOnMiss } from '../state/fetchOnMiss.js';
import { RemoteStateError } from '../state/stateSource.js';
import { TrieDB } from '../state/trieDb.js';
import type { TraceIndexer } from '../tracing/addressIndex.js';
import { createBlockIndexer } from '../tracing/blockIndexer.js';
import type { BlockRun } from './blockRunResult.js';
import { runOpBlock } from './opRun.js';
import { type BlockStateProvider, importerStateManager } from './partialState.js';
import {
  emptyBodyRootDeviation,
  type HeaderDeviation,
  type HeaderRule,
  headerChecksFor,
  InvalidBlockError,
  namesNoParent,
  validateHeader,
  validateUncles,
} from './validate.js';

/**
 * Executes and verifies one block on its stored parent, for `import` and for following an
 * upstream node: the header is checked against the parent (and the uncles), the block runs on the
 * parent's state with @ethereumjs/vm, and its stateRoot, receiptsRoot, logsBloom, gasUsed (and
 * requestsHash) are compared with the header. The result is the block's write operations, split
 * in two: what is keyed by the block's hash (header, body, receipts, total difficulty, new trie
 * nodes) — invisible to requests until the block is canonical — and what makes it canonical
 * (number → hash, head, transaction lookups, trace-index entries). Nothing is written here.
 *
 * Header rules are applied as `import.headerChecks` says for the chain's id (`validate.ts`); under
 * lenient checks the rules a block broke come back as its `deviations`, for the caller to report.
 * More things development nodes do are let through under lenient checks only, and reported the
 * same way: an empty block whose transactionsRoot is keccak256("") (Hardhat's reserved blocks:
 * `transactionsRoot`), blocks made without the EIP-4788 and EIP-2935 system writes (Hardhat:
 * `systemCalls`), and blocks whose state keeps every account and storage slot their transactions
 * loaded, empty or zero (anvil: `stateClearing`, `chain/loadedState.ts`). When a block reproduces
 * everything but its state root, it runs again as such a node makes blocks: without the system
 * writes (a fork that makes them), then keeping the loaded state, then both; the first way whose
 * every root verifies is how this chain's blocks run from then on, and the datadir records it
 * (META.systemWritesSkipped, META.loadedStateKept) in that block's batch. A block executed on a
 * genesis state its header misnames (anvil, recorded by `init --from-node`) is reported as
 * `genesisStateRoot`: its own state root verifies that state.
 *
 * The VM is kept between blocks (its caches follow the chain); after a failure, or before
 * executing a block whose parent is not the last block executed (a reorganisation), it is
 * rebuilt at the parent's state root.
 */
export interface ExecutedBlock {
  block: Block;
  /** Hash-keyed data: the block, its receipts, its total difficulty and the new trie nodes. */
  dataOps: BatchOp[];
  /** What makes it canonical: number → hash, transaction lookups, trace-index entries, head. */
  canonicalOps: BatchOp[];
  /** Header rules the block broke that lenient checks let through (empty under strict ones). */
  deviations: HeaderDeviation[];
}

export class BlockImporter {
  private readonly trieDb: TrieDB;
  private vm: VM | undefined;
  private fetcher: FetchOnMiss | undefined;
  private indexer: TraceIndexer | undefined;
  /** The hash and number of the block the VM's state is at. */
  private vmAt: string | undefined;
  private vmAtNumber: bigint | undefined;
  /** The parent of the block being run: BLOCKHASH reads along its ancestry. */
  private runningOn: BranchTip | undefined;
  private readonly checks: 'strict' | 'lenient';
  /**
   * Whether blocks run with the EIP-4788 and EIP-2935 system writes: read from the datadir at the
   * first block (lenient checks), turned off for good when a block verifies only without them
   * (Hardhat).
   */
  private systemWrites: boolean | undefined;
  /**
   * Whether blocks run keeping the accounts and slots their transactions loaded (anvil): read from
   * the datadir at the first block (lenient checks), turned on for good when a block verifies only
   * so.
   */
  private loadedState: boolean | undefined;
  /** An OP-stack chain: the upgrade the VM was built for, and whether blocks run as anvil's OP mode makes them. */
  private vmUpgrade: OpUpgrade | undefined;
  private opAnvil: boolean | undefined;

  constructor(
    private readonly chain: EthereumChain,
    private readonly settings: Config['import'],
    /** An archive from block N: where the state a block reads comes from (`partialState.ts`). */
    private readonly blockState?: BlockStateProvider,
  ) {
    this.trieDb = blockState?.trieDb ?? new TrieDB(chain.level, chain.start !== undefined);
    this.checks = headerChecksFor(settings.headerChecks, chain.common.chainId());
  }

  /** The header checks in force for this chain (`import.headerChecks` with `auto` resolved). */
  get headerChecks(): 'strict' | 'lenient' {
    return this.checks;
  }

  /** Forgets the VM (its state and the trace indexer's view of the index head). */
  reset(): void {
    this.trieDb.discard();
    this.vm = undefined;
    this.fetcher = undefined;
    this.indexer = undefined;
    this.vmAt = undefined;
    this.vmAtNumber = undefined;
    this.vmUpgrade = undefined;
  }

  /**
   * Executes `block` on its parent, which must be stored (canonical or not). Throws
   * {@link InvalidBlockError} naming the block when it does not verify; nothing is kept of it.
   */
  async execute(block: Block): Promise<ExecutedBlock> {
    const { store } = this.chain;
    const label = `block ${block.header.number} (${bytesToHex(block.hash())})`;
    const { hash: parentHash, deviation: noParent } = await this.parentOf(block);
    const parent = await store.blockByHash(parentHash);
    const parentTd = await store.totalDifficulty(parentHash);
    if (!parent || parentTd === undefined) throw new InvalidBlockError(`${label}: parent ${bytesToHex(parentHash)} is not stored`);
    // The genesis state of a node whose block 0 misnames it (anvil): this block's root verifies it.
    const parentState = await this.trieDb.stateTrieRoot(parent.header.stateRoot);
    const aliased = !equalsBytes(parentState, parent.header.stateRoot);
    if (aliased && this.checks === 'strict') {
      throw new InvalidBlockError(
        `${label}: block ${parent.header.number}'s header names state root ${bytesToHex(parent.header.stateRoot)}, its state's is ${bytesToHex(parentState)} (recorded by init --from-node): refused under strict header checks`,
      );
    }
    let deviations: HeaderDeviation[] = noParent ? [noParent] : [];
    if (aliased) deviations.push({ rule: 'genesisStateRoot', detail: genesisDetail(parent, parentState) });
    let emptyBody: HeaderDeviation | undefined;
    try {
      deviations = [
        ...deviations,
        ...validateHeader(block.header, parent.header, this.checks, this.chain.op),
        ...(await validateUncles(block, store, this.checks)),
      ];
      emptyBody = emptyBodyRootDeviation(block, this.checks);
    } catch (err) {
      if (err instanceof InvalidBlockError) throw new InvalidBlockError(`${label}: ${err.message}`);
      throw err;
    }
    if (emptyBody) deviations.push(emptyBody);
    // What the datadir recorded of how its node makes blocks holds under lenient checks only:
    // strict ones execute every block as the specification says, and refuse what does not verify.
    const lenient = this.checks === 'lenient';
    this.systemWrites ??= !(lenient && (await systemWritesSkipped(this.chain.level)));
    this.loadedState ??= lenient && (await loadedStateKept(this.chain.level));
    if (this.chain.op !== undefined) this.opAnvil ??= lenient && (await opAnvilQuirksKept(this.chain.level));
    const skipBody = emptyBody !== undefined;
    await this.blockState?.prepare(block, parent.header);
    let run = await this.run(block, parent, skipBody, label);
    const dataOps: BatchOp[] = [];
    if (typeof run === 'string') {
      const rerun = await this.runAsDevNode(block, parent, skipBody, label, run);
      if (rerun) {
        run = rerun.result;
        dataOps.push(...rerun.ops);
        deviations.push(...rerun.deviations);
      }
    }
    if (typeof run === 'string') {
      const hint = aliased ? ` (executed on the genesis state ${bytesToHex(parentState)} that init computed from the node's accounts)` : '';
      throw new InvalidBlockError(`${label}: ${run}${hint}`);
    }
    const result = run;
    this.trieDb.drain(dataOps);
    dataOps.push(...store.blockDataOps(block, result.receipts, parentTd + block.header.difficulty));
    const canonicalOps = [...store.canonicalOps(block), ...(await this.indexer!.blockOps(block))];
    this.vmAt = bytesToHex(block.hash());
    this.vmAtNumber = block.header.number;
    return { block, dataOps, canonicalOps, deviations };
  }

  /**
   * The hash of `block`'s parent: the one it names, or for a block that names none (Hardhat's
   * reserved blocks, lenient checks only) the block below it — the one the VM is at when that is
   * the block below (a branch being executed), else the canonical one.
   */
  private async parentOf(block: Block): Promise<{ hash: Uint8Array; deviation?: HeaderDeviation }> {
    const h = block.header;
    if (this.checks === 'strict' || !namesNoParent(h)) return { hash: h.parentHash };
    const below = h.number - 1n;
    const hash = this.vmAt !== undefined && this.vmAtNumber === below ? hexToBytes(this.vmAt as `0x${string}`) : await this.chain.store.canonicalHash(below);
    if (!hash) throw new InvalidBlockError(`block ${h.number} (${bytesToHex(block.hash())}): names no parent and block ${below} is not stored`);
    return { hash, deviation: { rule: 'parentHash', detail: `parentHash is zero; executed on block ${below} (${bytesToHex(hash)})` } };
  }

  /**
   * Runs a block that did not verify (`mismatch`) again as development nodes make blocks, under
   * lenient checks. An Ethereum block, when everything but the state root was reproduced (neither
   * way changes anything else): without the EIP-4788/2935 system writes when its fork makes them
   * (Hardhat skips both, although its chain has code at both addresses; a chain without that code
   * gets the same root either way, so only a real omission verifies), then keeping the state its
   * transactions loaded (anvil), then both. An OP-stack block, whatever did not verify: as anvil's
   * OP mode makes blocks (`OpBlockInput.quirks`; its deposit nonces are in the receipts root),
   * then also keeping the loaded state. The first way whose every root verifies is kept for the
   * chain: its result, the writes that record it in the datadir (for later runs and replays) and
   * the deviations to report ({@link DEV_WAYS}). None: the settings are restored.
   */
  private async runAsDevNode(
    block: Block,
    parent: Block,
    skipBody: boolean,
    label: string,
    mismatch: string,
  ): Promise<{ result: BlockRun; ops: BatchOp[]; deviations: HeaderDeviation[] } | undefined> {
    if (this.checks !== 'lenient') return undefined;
    const was: DevWay = { systemWrites: this.systemWrites === true, loadedState: this.loadedState === true, opAnvil: this.opAnvil === true };
    const ways = this.chain.op !== undefined ? opWays(was) : mismatch.startsWith('stateRoot ') ? ethereumWays(block, was) : [];
    for (const way of ways) {
      this.setDevWay(way);
      const result = await this.run(block, parent, skipBody, label).catch((err: unknown) => err as Error);
      if (result instanceof RemoteStateError) {
        this.setDevWay(was);
        throw result;
      }
      if (typeof result === 'string' || result instanceof Error) continue;
      const changed = DEV_WAYS.filter((w) => way[w.flag] !== was[w.flag]);
      // A flag of schema 2 makes the datadir schema 2 in the same batch (`db/keys.ts` SCHEMA_VERSION).
      const ops = changed.length > 0 ? [newestSchemaOp(), ...changed.map((w) => w.op())] : [];
      return { result, ops, deviations: changed.map((w) => ({ rule: w.rule, detail: w.detail(mismatch) })) };
    }
    this.setDevWay(was);
    return undefined;
  }

  /** Runs blocks `way`'s way from now on (the VM is built again for it). */
  private setDevWay(way: DevWay): void {
    this.systemWrites = way.systemWrites;
    this.loadedState = way.loadedState;
    this.opAnvil = way.opAnvil;
    this.reset();
  }

  /**
   * Runs `block` on the VM (built at `parent`'s state when it is not there), with or without the
   * system writes as {@link systemWrites} says, keeping the loaded state or not as
   * {@link loadedState} says. The result, or what did not verify (the VM is then forgotten). A
   * block that fails to execute at all throws.
   */
  private async run(block: Block, parent: Block, skipBody: boolean, label: string): Promise<BlockRun | string> {
    if (this.chain.op !== undefined) return this.runOp(block, parent, label);
    const { store, common } = this.chain;
    if (this.vmAt !== bytesToHex(parent.hash())) this.reset();
    if (!this.vm) {
      const { sm, fetcher } = await importerStateManager(common, this.trieDb, parent.header.stateRoot, this.settings.trieNodeCacheEntries, this.blockState);
      const vmCommon = blockVmCommon(common, this.systemWrites !== false);
      this.vm = await createBlockVM(
        {
          common: vmCommon,
          stateManager: sm,
          blockchain: evmBlockchain(store, this.blockState?.ancestorHash?.bind(this.blockState), () => this.runningOn),
        },
        this.settings.evmFastPaths,
      );
      this.fetcher = fetcher;
      if (this.loadedState === true) keepLoadedState(this.vm);
      this.indexer = createBlockIndexer(this.vm, this.chain);
    }
    // runBlock's `generate` builds a copy of the block with the VM's Common, whose header cannot
    // carry parentBeaconBlockRoot once EIP-4788 is off: without the system writes, runBlock
    // compares the roots itself and throws what differs.
    const generate = this.systemWrites !== false;
    // BLOCKHASH follows this block's own ancestry (a side chain's block sees its branch).
    this.runningOn = { number: parent.header.number, hash: parent.hash() };
    let result: RunBlockResult;
    if (this.fetcher) this.fetcher.stateRoot = parent.header.stateRoot;
    try {
      const running = executeBlock(this.vm, {
        block,
        generate,
        skipHeaderValidation: true,
        skipBlockValidation: skipBody,
        setHardfork: true,
        clearCache: false,
        // Development nodes make Prague blocks without the request contracts (anvil).
        emptySystemContracts: this.checks === 'lenient',
      });
      result = await raceFetchOnMiss(this.vm.stateManager, running);
    } catch (err) {
      this.reset();
      // State that could not be fetched (archive from block N): a fault of the upstream, not of the block.
      if (err instanceof RemoteStateError) throw err;
      const message = firstLine(err);
      if (!generate && RUNBLOCK_MISMATCH.test(message)) return message.split(' (')[0];
      throw new InvalidBlockError(`${label}: execution failed: ${message}`);
    }
    const mismatch = compareResults(block, result);
    if (mismatch) this.reset();
    return mismatch ?? { ...result, receipts: storedReceipts(result) };
  }

  /**
   * Runs an OP-stack block (`opRun.ts`) on the VM of its upgrade (built at `parent`'s state when
   * it is not there or was built for another upgrade). The result, or what did not verify.
   */
  private async runOp(block: Block, parent: Block, label: string): Promise<BlockRun | string> {
    const op = this.chain.op!;
    const upgrade = opUpgradeOf(op, block);
    if (this.vmAt !== bytesToHex(parent.hash()) || this.vmUpgrade !== upgrade) this.reset();
    if (!this.vm) {
      const { sm, fetcher } = await importerStateManager(
        this.chain.common,
        this.trieDb,
        parent.header.stateRoot,
        this.settings.trieNodeCacheEntries,
        this.blockState,
      );
      const blockchain = evmBlockchain(this.chain.store, this.blockState?.ancestorHash?.bind(this.blockState), () => this.runningOn);
      this.vm = await createOpVM(op, block, sm, blockchain, this.settings.evmFastPaths);
      this.vmUpgrade = upgrade;
      this.fetcher = fetcher;
      if (this.loadedState === true) keepLoadedState(this.vm);
      this.indexer = createBlockIndexer(this.vm, this.chain);
    }
    this.runningOn = { number: parent.header.number, hash: parent.hash() };
    if (this.fetcher) this.fetcher.stateRoot = parent.header.stateRoot;
    let result: BlockRun;
    try {
      result = await raceFetchOnMiss(this.vm.stateManager, runOpBlock(this.vm, op, block, this.opAnvil === true ? 'anvil' : undefined));
    } catch (err) {
      this.reset();
      if (err instanceof RemoteStateError) throw err;
      throw new InvalidBlockError(`${label}: execution failed: ${firstLine(err)}`);
    }
    const mismatch = compareResults(block, result);
    if (mismatch) this.reset();
    return mismatch ?? result;
  }
}

/** How blocks are run: with the system writes, clearing what was loaded, as op-geth makes OP blocks — or as a development node makes them. */
interface DevWay {
  systemWrites: boolean;
  loadedState: boolean;
  opAnvil: boolean;
}

/** How a way a development node makes blocks is recorded in the datadir and reported, once a block needs it. */
const DEV_WAYS: ReadonlyArray<{ flag: keyof DevWay; op: () => BatchOp; rule: HeaderRule; detail: (mismatch: string) => string }> = [
  {
    flag: 'systemWrites',
    op: skipSystemWritesOp,
    rule: 'systemCalls',
    detail: (m) => `verifies without the EIP-4788 and EIP-2935 system writes; with them ${m}`,
  },
  {
    flag: 'loadedState',
    op: keepLoadedStateOp,
    rule: 'stateClearing',
    detail: (m) => `verifies keeping every account and storage slot its transactions loaded, empty or zero; clearing them ${m}`,
  },
  {
    flag: 'opAnvil',
    op: keepOpAnvilQuirksOp,
    rule: 'anvilOp',
    detail: (m) =>
      `verifies as anvil's OP mode makes blocks (a deposit receipt's depositNonce the nonce after it, the fee vaults and L1Block kept when touched empty); as op-geth makes them ${m}`,
  },
];

/** The ways to try an Ethereum block: without the system writes when its fork makes them, keeping the loaded state, both. */
function ethereumWays(block: Block, was: DevWay): DevWay[] {
  const writes = was.systemWrites && (block.common.isActivatedEIP(4788) || block.common.isActivatedEIP(2935));
  const ways: DevWay[] = [];
  if (writes) ways.push({ ...was, systemWrites: false });
  if (!was.loadedState) ways.push({ ...was, loadedState: true });
  if (writes && !was.loadedState) ways.push({ ...was, systemWrites: false, loadedState: true });
  return ways;
}

/** The ways to try an OP-stack block: as anvil's OP mode makes it, then also keeping the loaded state. */
function opWays(was: DevWay): DevWay[] {
  const ways = [
    { ...was, opAnvil: true },
    { ...was, opAnvil: true, loadedState: true },
  ];
  return ways.filter((w) => w.opAnvil !== was.opAnvil || w.loadedState !== was.loadedState);
}

/** How runBlock (without `generate`) says that a block did not reproduce its header. */
const RUNBLOCK_MISMATCH = /^invalid (receiptTrie|bloom|gasUsed|requestsHash|block stateRoot)\b/;

/** What the `genesisStateRoot` deviation says. */
function genesisDetail(parent: Block, state: Uint8Array): string {
  return `block ${parent.header.number}'s header names state root ${bytesToHex(parent.header.stateRoot)}; its state, computed at init from the node's accounts, has root ${bytesToHex(state)}, which this block's stateRoot verifies`;
}

/** The receipts of an executed block as the store keeps them. */
function storedReceipts(result: RunBlockResult): StoredReceipt[] {
  return result.receipts.map((r, i) => {
    const prevCumulative = i === 0 ? 0n : result.receipts[i - 1].cumulativeBlockGasUsed;
    const stored: StoredReceipt = {
      statusOrRoot: 'status' in r ? Uint8Array.of(r.status) : (r as { stateRoot: Uint8Array }).stateRoot,
      cumulativeGasUsed: r.cumulativeBlockGasUsed,
      gasUsed: r.cumulativeBlockGasUsed - prevCumulative,
      logs: r.logs.map(([address, topics, data]) => [address, topics, data]),
      contractAddress: result.results[i].createdAddress?.bytes,
    };
    if ('blobGasUsed' in r) {
      stored.blobGasUsed = (r as { blobGasUsed: bigint }).blobGasUsed;
      stored.blobGasPrice = (r as { blobGasPrice: bigint }).blobGasPrice;
    }
    return stored;
  });
}

/** The first header field that execution did not reproduce, as `field got != header want`. */
function compareResults(block: Block, result: Omit<BlockRun, 'receipts'>): string | undefined {
  const h = block.header;
  if (h.withdrawalsRoot !== undefined && result.withdrawalsRoot !== undefined && !equalsBytes(result.withdrawalsRoot, h.withdrawalsRoot)) {
    return `withdrawalsRoot ${bytesToHex(result.withdrawalsRoot)} != header ${bytesToHex(h.withdrawalsRoot)}`;
  }
  if (result.gasUsed !== h.gasUsed) return `gasUsed ${result.gasUsed} != header ${h.gasUsed}`;
  if (result.blobGasUsed !== undefined && result.blobGasUsed !== h.blobGasUsed)
    return `blobGasUsed (DA footprint) ${result.blobGasUsed} != header ${h.blobGasUsed}`;
  if (!equalsBytes(result.receiptsRoot, h.receiptTrie)) return `receiptsRoot ${bytesToHex(result.receiptsRoot)} != header ${bytesToHex(h.receiptTrie)}`;
  if (!equalsBytes(result.logsBloom, h.logsBloom)) return `logsBloom differs from header`;
  if (h.requestsHash !== undefined && result.requestsHash !== undefined && !equalsBytes(result.requestsHash, h.requestsHash)) {
    return `requestsHash ${bytesToHex(result.requestsHash)} != header ${bytesToHex(h.requestsHash)}`;
  }
  if (!equalsBytes(result.stateRoot, h.stateRoot)) return `stateRoot ${bytesToHex(result.stateRoot)} != header ${bytesToHex(h.stateRoot)}`;
  return undefined;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
