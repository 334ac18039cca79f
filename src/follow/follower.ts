import type { Block } from '@ethereumjs/block';
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import type { Config } from '../config/settings.js';
import { BlockImporter, type ExecutedBlock } from '../import/blockImporter.js';
import { HeaderDeviationReport } from '../import/headerDeviations.js';
import { createProgress, GAS_UNIT } from '../import/progress.js';
import { namesNoParent } from '../import/validate.js';
import { SiblingSearchError } from '../state/fetchOnMiss.js';
import { RemoteStateError } from '../state/stateSource.js';
import { TrieDB } from '../state/trieDb.js';
import { FollowedBlockState } from './blockState.js';
import { FollowLoop, type FollowLoopOptions, FollowStoppedError } from './followLoop.js';
import { Upstream, UpstreamError } from './upstream.js';
import { hexString, UpstreamBlocks } from './upstreamBlocks.js';

/**
 * Follows an upstream node block by block, through reorganisations, into an opened chain that is
 * being served. Each block goes through the importer's execute-and-verify path
 * (`import/blockImporter.ts`) and the same atomic writes as `import`; the head requests see moves
 * when a block's batch is written (`onHead`).
 *
 * - New blocks: pushed by `newHeads` on a WebSocket upstream, else polled (`follow.pollIntervalMs`).
 * - Blocks come as `debug_getRawBlock` (geth, reth, erigon) or, when the upstream has no such
 *   method (anvil), are rebuilt from `eth_getBlockByNumber(n, true)` and refused unless their hash
 *   is the upstream's (`blockFromRpc.ts`). Catch-up asks for `follow.batchBlocks` blocks per batch
 *   request and keeps `follow.prefetchBatches` batches in flight while executing.
 * - Reorganisations: when our head is no longer the upstream's block at that height, the common
 *   ancestor is found by walking back (at most `follow.maxReorgDepth` blocks), the upstream's branch
 *   is executed and its blocks stored by hash, then ONE batch removes the old branch's canonical
 *   entries and transaction lookups and makes the new branch canonical: a request sees either
 *   branch, never a mix; a crash before that batch leaves the old branch canonical and the new
 *   blocks stored as a side chain, as geth keeps them. The old branch stays readable by hash.
 * - Faults (unreachable, slow, rate-limited, garbage, a block that fails verification): nothing is
 *   written, the follower backs off (250 ms doubling to `follow.retryMaxMs`) and logs one line per
 *   change of state, not per retry.
 * - An archive that starts at block N (`chain/archiveStart.ts`) holds no state up front: each block
 *   runs on state fetched from the upstream as it needs it (`blockState.ts`), over a connection of
 *   its own; a reorganisation never reaches below N.
 */

export interface FollowerOptions extends FollowLoopOptions {
  importSettings: Config['import'];
  /** Catch-up progress lines (blocks/s, Mgas/s, ETA), as import prints them. */
  progress?: NodeJS.WritableStream;
}

export class Follower extends FollowLoop {
  private readonly importer: BlockImporter;
  private readonly deviations: HeaderDeviationReport;
  private readonly blocks: UpstreamBlocks;
  /** An archive from block N: the state its blocks run on, and the upstream connection it is fetched over. */
  private readonly blockState: FollowedBlockState | undefined;
  private readonly stateUpstream: Upstream | undefined;

  constructor(
    private readonly chain: EthereumChain,
    upstream: Upstream,
    protected override readonly o: FollowerOptions,
  ) {
    super(upstream, o);
    if (chain.start !== undefined) {
      this.stateUpstream = new Upstream(upstream.url, { requestTimeoutMs: o.settings.requestTimeoutMs });
      const { store, start, common } = chain;
      this.blockState = new FollowedBlockState(
        this.stateUpstream,
        new TrieDB(chain.level, true, true, o.importSettings.trieNodeCacheEntries),
        { store, start, common },
        o.settings.siblingSearchNibbles,
        (obj, msg) => o.log.info(obj, msg),
      );
    }
    this.importer = new BlockImporter(chain, o.importSettings, this.blockState);
    this.deviations = new HeaderDeviationReport((obj, msg) => o.log.warn({ upstream: upstream.shownUrl, ...obj }, msg));
    this.blocks = new UpstreamBlocks(upstream, chain.common, (obj, msg) => o.log.info(obj, msg), chain.op);
  }

  /** Executes a block of the upstream on its stored parent; counts and reports the header rules it broke. */
  private async execute(block: Block): Promise<ExecutedBlock> {
    let executed: ExecutedBlock;
    try {
      executed = await this.importer.execute(block);
    } catch (err) {
      if (!(err instanceof RemoteStateError)) throw err;
      const label = `block ${block.header.number} (${bytesToHex(block.hash())})`;
      // Searching again will not find what the bound left out: following stops, saying what to run instead.
      if (err instanceof SiblingSearchError) throw new FollowStoppedError(`${label}: ${err.message}`);
      throw new UpstreamError(`${label}: ${err.message}`);
    } finally {
      if (this.blockState) this.status_.stateFetch = structuredClone(this.blockState.stats);
    }
    if (executed.deviations.length > 0) {
      this.deviations.record(block, executed.deviations);
      this.status_.headerDeviations = this.deviations.snapshot();
    }
    return executed;
  }

  protected subscribeNewHeads(wake: () => void): void {
    this.upstream.subscribeNewHeads(wake);
  }

  /** The upstream's chain id and genesis hash (an archive from block N: its block N's hash) must be ours. */
  protected async checkSameChain(): Promise<void> {
    const first = this.chain.start?.number ?? 0n;
    const [chainIdHex, genesis] = await this.upstream.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_getBlockByNumber', params: [`0x${first.toString(16)}`, false] },
    ]);
    const chainId = BigInt(hexString(chainIdHex, 'eth_chainId'));
    if (chainId !== this.chain.common.chainId()) {
      throw new FollowStoppedError(`the upstream's chain id is ${chainId}, this datadir's is ${this.chain.common.chainId()}`);
    }
    const ours = await this.chain.store.canonicalHash(first);
    const theirs = hexString((genesis as { hash?: unknown } | null)?.hash, 'genesis hash');
    if (!ours || bytesToHex(ours) !== theirs.toLowerCase()) {
      const what = first === 0n ? 'genesis' : `block ${first} (this archive's first)`;
      throw new FollowStoppedError(`the upstream's ${what} is ${theirs}, this datadir's is ${ours ? bytesToHex(ours) : 'missing'}`);
    }
    this.o.log.info(
      { upstream: this.upstream.shownUrl, chainId: Number(chainId), headerChecks: this.importer.headerChecks },
      this.importer.headerChecks === 'strict'
        ? 'header checks: strict (every header rule enforced)'
        : 'header checks: lenient (timestamp, difficulty, gas limit step, base fee and excess blob gas as each block says; execution verified)',
    );
  }

  /** Brings the chain to the upstream's head (catch-up, or a reorganisation then catch-up). */
  protected async syncOnce(): Promise<void> {
    const target = BigInt(hexString(await this.upstream.call('eth_blockNumber'), 'eth_blockNumber'));
    this.status_.upstreamHead = target;
    const head = await this.chain.store.head();
    if (!head) throw new FollowStoppedError('the datadir has no genesis');
    // Our head must still be the upstream's block at its height; blocks above the upstream's head
    // (it rolled back) are gone from its chain.
    const at = head.number < target ? head.number : target;
    const theirs = await this.upstreamHash(at);
    const ours = await this.chain.store.canonicalHash(at);
    if (head.number > target || (ours && theirs && !equalsBytes(ours, theirs))) {
      await this.reorganise(target);
      return;
    }
    if (head.number >= target) return;
    await this.catchUp(head.number + 1n, target);
  }

  /** Imports blocks from..to (the parent of `from` is our head), batches fetched ahead. */
  private async catchUp(from: bigint, to: bigint): Promise<void> {
    let imported = 0;
    const calls0 = this.blockState?.calls() ?? 0;
    const perBlock = () => `${((this.blockState!.calls() - calls0) / Math.max(imported, 1)).toFixed(1)} upstream calls/block`;
    const out = to - from >= 100n ? this.o.progress : undefined;
    const progress = createProgress(Number(to - from + 1n), out, this.o.importSettings.progressIntervalMs, GAS_UNIT, 'import', this.blockState && perBlock);
    for await (const blocks of this.prefetched(Number(from), Number(to), (n, count) => this.fetchBlocks(BigInt(n), count))) {
      this.blockState?.upcoming(blocks);
      for (const block of blocks) {
        if (this.stopped) return;
        const head = await this.chain.store.head();
        if (!head || !this.links(block, head.hash)) return; // the upstream reorganised meanwhile: the next round sees it
        const executed = await this.execute(block);
        await this.chain.level.batch([...executed.dataOps, ...executed.canonicalOps]);
        this.chain.store.invalidateHead();
        this.headMoved(false);
        this.o.log.debug({ number: Number(block.header.number), hash: bytesToHex(block.hash()), txs: block.transactions.length }, 'followed block');
        imported++;
        progress.block(block.header.number, block.header.gasUsed);
      }
    }
    if (imported > 0) progress.done({ imported, skipped: 0 });
  }

  /**
   * Our head is not the upstream's block at its height: find the common ancestor, execute the
   * upstream's branch up to `target`, store it by hash, then switch in one batch.
   */
  private async reorganise(target: bigint): Promise<void> {
    const store = this.chain.store;
    const head = (await store.head())!;
    let n = head.number < target ? head.number : target;
    const dropped: Block[] = [];
    for (let b = head.number; b > n; b--) dropped.push((await store.blockByNumber(b))!);
    for (;;) {
      const ours = (await store.canonicalHash(n))!;
      const theirs = await this.upstreamHash(n);
      if (theirs && equalsBytes(ours, theirs)) break;
      dropped.push((await store.blockByHash(ours))!);
      if (dropped.length > this.o.settings.maxReorgDepth) {
        throw new FollowStoppedError(`reorganisation deeper than follow.maxReorgDepth (${this.o.settings.maxReorgDepth}) below block ${head.number}`);
      }
      if (n === (this.chain.start?.number ?? 0n))
        throw new FollowStoppedError(n === 0n ? 'the upstream has another genesis block' : `the upstream has another block ${n} (this archive's first)`);
      n--;
    }
    const ancestor = { number: n, hash: (await store.canonicalHash(n))! };
    const depth = Number(head.number - n);
    this.o.log.warn({ ancestor: Number(n), depth, newHead: Number(target) }, 'upstream reorganised: switching to its branch');
    // The new branch, executed on the ancestor's state; its blocks are stored by hash as they
    // verify (invisible to requests), its canonical entries kept for the switch.
    const executed: ExecutedBlock[] = [];
    let parent = ancestor.hash;
    for (let from = n + 1n, count = 0; from <= target; from += BigInt(count)) {
      count = this.batchSize(from, target);
      for (const block of await this.fetchBlocks(from, count)) {
        if (!this.links(block, parent)) throw new UpstreamError('the upstream reorganised again while we fetched its branch');
        const done = await this.execute(block);
        await this.chain.level.batch(done.dataOps);
        executed.push(done);
        parent = block.hash();
      }
    }
    await this.chain.level.batch([...store.rewindOps(ancestor, dropped), ...executed.flatMap((e) => e.canonicalOps)]);
    store.invalidateHead();
    this.importer.reset();
    this.headMoved(true);
    this.o.log.info({ ancestor: Number(n), dropped: dropped.length, added: executed.length, head: Number(target) }, 'reorganisation done');
  }

  /**
   * Whether `block` follows the block `parentHash`: it names it, or (lenient checks) it names no
   * parent, as Hardhat's reserved blocks do, and comes next (the importer executes it on it).
   */
  private links(block: Block, parentHash: Uint8Array): boolean {
    return equalsBytes(block.header.parentHash, parentHash) || (this.importer.headerChecks === 'lenient' && namesNoParent(block.header));
  }

  /** Blocks of the batch request starting at `from`: `follow.batchBlocks`, fewer at the end. */
  private batchSize(from: bigint, to: bigint): number {
    const left = to - from + 1n;
    const max = BigInt(this.o.settings.batchBlocks);
    return Number(left < max ? left : max);
  }

  private async upstreamHash(number: bigint): Promise<Uint8Array | undefined> {
    const header = await this.upstream.call('eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
    if (header === null) return undefined;
    return hexToBytes(hexString((header as { hash?: unknown })?.hash, `block ${number} hash`) as `0x${string}`);
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.stateUpstream?.close();
  }

  /** Blocks from..from+count-1 of the upstream, raw when it serves them raw, else rebuilt from JSON. */
  private fetchBlocks(from: bigint, count: number): Promise<Block[]> {
    return this.blocks.fetch(from, count);
  }
}
