import type { Config } from '../config/settings.js';
import { createProgress, EVENTS_UNIT } from '../import/progress.js';
import type { StarknetBlockInput } from '../starknet/block.js';
import { type PreparedBlock, prepareBlock } from '../starknet/blockOps.js';
import { feltsEqual, normalizeFelt } from '../starknet/felt.js';
import { parseBlockJson } from '../starknet/importBlocks.js';
import { parseStateUpdateJson } from '../starknet/stateIndex.js';
import type { StarknetStateSource } from '../starknet/stateReader.js';
import type { StarknetStore } from '../starknet/store.js';
import { FollowLoop, type FollowLoopOptions, FollowStoppedError } from './followLoop.js';
import { upstreamStateSource } from './starknetStateSource.js';
import { type Call, type Upstream, type UpstreamAnswer, UpstreamError, UpstreamRpcError } from './upstream.js';

/**
 * Follows a Starknet upstream (pathfinder, juno, a provider) into a Starknet datadir that is being
 * served: every new block's events and their indexes are written as `import-starknet` writes
 * them, one atomic batch per block, and `starknet_getEvents` sees them at once.
 *
 * - The upstream's head is `starknet_blockHashAndNumber`, asked every `follow.pollIntervalMs`, or
 *   pushed by `starknet_subscribeNewHeads` on a WebSocket upstream (Starknet RPC 0.8).
 * - Blocks come as `starknet_getBlockWithReceipts` by number, each with its
 *   `starknet_getStateUpdate` (which must name the same block hash), `follow.batchBlocks` per batch
 *   request with `follow.prefetchBatches` in flight. tracenode does not recompute Starknet block
 *   hashes (as for `import-starknet`, the upstream is trusted for them); it checks that each block
 *   is the one asked for and that its `parent_hash` is the hash of the block below it, so the
 *   stored chain is one linked chain from where following began.
 * - Reorganisations, detected by hash: when the upstream's block at our head's height (or below,
 *   when it rolled back) has another hash, we walk back through our stored blocks to the highest
 *   one the upstream still has (at most `follow.maxReorgDepth` dropped), fetch its branch, and in
 *   ONE batch delete the dropped blocks — their records, events and index postings — and write the
 *   branch. Unlike Ethereum blocks, dropped Starknet blocks are not kept: the datadir holds only
 *   events, by block number, so they are no longer found by hash either (as pathfinder purges a
 *   reorganised block).
 * - The `l1_accepted` block follows the upstream's when it has that tag (RPC 0.9).
 * - Start-up: the upstream's `starknet_chainId` is recorded the first time and must match after;
 *   the datadir's first block must be the upstream's block of that number. An empty datadir
 *   starts at the block its `--from` recorded (`StarknetStore.fromBlock`), else at block 0.
 * - The network's methods reach the upstream through the follower: {@link forward} for what
 *   needs Starknet execution or a mempool, {@link stateSource} for state older than the first
 *   followed block, {@link syncing} for `starknet_syncing`.
 * - Faults: as the Ethereum follower (`followLoop.ts`): nothing bad written, backoff, one line per
 *   change of state.
 */

export interface StarknetFollowerOptions extends FollowLoopOptions {
  importSettings: Pick<Config['import'], 'progressIntervalMs'>;
  /** Catch-up progress lines (blocks/s, events/s, ETA). */
  progress?: NodeJS.WritableStream;
}

const STARKNET_NEW_HEADS: Call = { method: 'starknet_subscribeNewHeads', params: [] };

/** What `starknet_syncing` reports while the follower is behind: the blocks it started at and is heading to. */
export interface StarknetSyncProgress {
  starting: { number: number; hash: string };
  current: { number: number; hash: string };
  highest: { number: number; hash: string };
}

export class StarknetFollower extends FollowLoop {
  /** Whether the upstream knows the `l1_accepted` tag; undefined until asked. */
  private l1Tag: boolean | undefined;
  /** The head when this follower first caught up from (or the first block it wrote). */
  private syncStart: { number: number; hash: string } | undefined;
  /** The upstream's head as last asked. */
  private upstreamTop: { number: number; hash: string } | undefined;

  constructor(
    private readonly store: StarknetStore,
    upstream: Upstream,
    protected override readonly o: StarknetFollowerOptions,
  ) {
    super(upstream, o);
  }

  protected subscribeNewHeads(wake: () => void): void {
    this.upstream.subscribeNewHeads(wake, STARKNET_NEW_HEADS);
  }

  protected async checkSameChain(): Promise<void> {
    const theirs = felt(await this.upstream.call('starknet_chainId'), 'starknet_chainId');
    const ours = await this.store.chainId();
    if (ours !== undefined && ours !== theirs) throw new FollowStoppedError(`the upstream's chain id is ${theirs}, this datadir followed ${ours}`);
    const first = await this.store.firstBlock();
    if (first) {
      const upstreamFirst = await this.upstreamHash(first.number);
      if (upstreamFirst === undefined || !feltsEqual(upstreamFirst, first.hash)) {
        throw new FollowStoppedError(`the upstream's block ${first.number} is ${upstreamFirst ?? 'missing'}, this datadir's is ${first.hash}`);
      }
    }
    if (ours === undefined) await this.store.setChainId(theirs);
  }

  /** Sends one call to the upstream and returns its answer as given (its error included). */
  forward(method: string, params: unknown): Promise<UpstreamAnswer> {
    // By-name params (an object) are sent as given: the upstream reads them as the client wrote them.
    return this.upstream.forward(method, (params ?? []) as unknown[]);
  }

  /** Where the store asks for state older than its first block with state. */
  stateSource(): StarknetStateSource {
    return upstreamStateSource(this.upstream);
  }

  /** The blocks `starknet_syncing` reports, or undefined when the store is at the upstream's head (or nothing is known yet). */
  async syncing(): Promise<StarknetSyncProgress | undefined> {
    const head = await this.store.head();
    const top = this.upstreamTop;
    if (head === undefined || top === undefined || head.number >= top.number) return undefined;
    return { starting: this.syncStart ?? head, current: head, highest: top };
  }

  protected async syncOnce(): Promise<void> {
    const reply = await this.upstream.call('starknet_blockHashAndNumber');
    const target = blockNumberOf(reply, 'starknet_blockHashAndNumber');
    const targetHash = felt((reply as { block_hash?: unknown }).block_hash, 'starknet_blockHashAndNumber block_hash');
    this.status_.upstreamHead = BigInt(target);
    this.upstreamTop = { number: target, hash: targetHash };
    const head = await this.store.head();
    if (!head) {
      const from = (await this.store.fromBlock()) ?? 0;
      if (from <= target) await this.catchUp(from, target, undefined);
      return;
    }
    this.syncStart ??= head;
    const at = Math.min(head.number, target);
    const theirs = at === target ? targetHash : await this.upstreamHash(at);
    const ours = (await this.store.block(at))?.hash;
    // Our head must still be the upstream's block at its height (when the upstream rolled back
    // below our head, blocks above its head are gone from its chain).
    if (head.number > target || (ours !== undefined && (theirs === undefined || !feltsEqual(theirs, ours)))) {
      await this.reorganise(head, target);
      return;
    }
    if (head.number < target) await this.catchUp(head.number + 1, target, head.hash);
    await this.followL1();
  }

  /**
   * Moves the `l1_accepted` block to the upstream's (`starknet_getBlockWithTxHashes("l1_accepted")`,
   * Starknet RPC 0.9) when we hold that block with that hash: blocks are stored as first seen,
   * mostly ACCEPTED_ON_L2, and reach L1 hours later. An upstream without the tag (RPC 0.8) is
   * asked no more; one log line says so.
   */
  private async followL1(): Promise<void> {
    if (this.l1Tag === false) return;
    let reply: unknown;
    try {
      reply = await this.upstream.call('starknet_getBlockWithTxHashes', ['l1_accepted']);
    } catch (err) {
      if (!(err instanceof UpstreamRpcError)) throw err;
      this.l1Tag = false;
      this.o.log.info(
        { upstream: this.upstream.shownUrl },
        'upstream has no l1_accepted block tag (Starknet RPC 0.9): the l1_accepted block stays as blocks were first seen',
      );
      return;
    }
    this.l1Tag = true;
    const number = blockNumberOf(reply, 'l1_accepted block');
    const hash = felt((reply as { block_hash?: unknown }).block_hash, 'l1_accepted block_hash');
    const ours = await this.store.block(number);
    if (ours && feltsEqual(ours.hash, hash) && (await this.store.markL1Accepted(number))) {
      this.o.log.debug({ number }, 'l1_accepted block moved');
    }
  }

  /** Imports blocks from..to; the first one's parent must be `parentHash` (undefined: an empty datadir). */
  private async catchUp(from: number, to: number, parentHash: string | undefined): Promise<void> {
    const progress = createProgress(
      to - from + 1,
      to - from >= 100 ? this.o.progress : undefined,
      this.o.importSettings.progressIntervalMs,
      EVENTS_UNIT,
      'follow',
    );
    let parent = parentHash;
    let imported = 0;
    for await (const blocks of this.prefetched(from, to, (n, count) => this.fetchBlocks(n, count))) {
      for (const block of blocks) {
        if (this.stopped) return;
        // The upstream reorganised while we fetched (the next round finds its new branch), or it
        // serves a chain that does not link: either way nothing is written.
        if (parent !== undefined && !feltsEqual(block.parentHash, parent)) {
          throw new UpstreamError(`upstream block ${block.number}: parent_hash ${block.parentHash} is not the hash of our block ${block.number - 1}`);
        }
        const prepared = prepareBlock(block);
        await this.store.appendBlock(prepared);
        this.syncStart ??= { number: block.number, hash: block.hash };
        parent = block.hash;
        this.headMoved(false);
        this.o.log.debug({ number: block.number, hash: block.hash, events: prepared.events }, 'followed block');
        imported++;
        progress.block(BigInt(block.number), BigInt(prepared.events));
      }
    }
    if (imported > 0) progress.done({ imported, skipped: 0 });
  }

  /**
   * Our head is not on the upstream's chain: find the highest stored block that is, fetch the
   * upstream's branch above it (up to `target`, at most `follow.maxReorgDepth` blocks more than
   * were dropped), and switch in one batch.
   */
  private async reorganise(head: { number: number; hash: string }, target: number): Promise<void> {
    const limit = this.o.settings.maxReorgDepth;
    // Stored blocks from the head down, one more than may be dropped (the ancestor).
    const stored = await this.store.blocksDownFrom(head.number, limit + 1);
    let ancestor: { number: number; hash: string } | undefined;
    let dropped = 0;
    for (const block of stored) {
      const theirs = block.number <= target ? await this.upstreamHash(block.number) : undefined;
      if (theirs !== undefined && feltsEqual(theirs, block.hash)) {
        ancestor = block;
        break;
      }
      dropped++;
    }
    if (!ancestor) {
      if (dropped > limit) throw new FollowStoppedError(`reorganisation deeper than follow.maxReorgDepth (${limit}) below block ${head.number}`);
      throw new FollowStoppedError(`no stored block is on the upstream's chain (checked ${dropped} down from ${head.number})`);
    }
    const last = Math.min(target, ancestor.number + dropped + limit);
    this.o.log.warn({ ancestor: ancestor.number, dropped, newHead: target }, 'upstream reorganised: switching to its branch');
    const branch: PreparedBlock[] = [];
    let parent = ancestor.hash;
    for (let from = ancestor.number + 1; from <= last; ) {
      const count = Math.min(this.o.settings.batchBlocks, last - from + 1);
      for (const block of await this.fetchBlocks(from, count)) {
        if (!feltsEqual(block.parentHash, parent)) throw new UpstreamError('the upstream reorganised again while we fetched its branch');
        branch.push(prepareBlock(block));
        parent = block.hash;
      }
      from += count;
    }
    const removed = await this.store.switchBranch(ancestor.number, branch);
    this.headMoved(true);
    this.o.log.info({ ancestor: ancestor.number, dropped: removed.length, added: branch.length, head: last }, 'reorganisation done');
  }

  /** The upstream's hash of block `number`, or undefined when it has no such block. */
  private async upstreamHash(number: number): Promise<string | undefined> {
    try {
      const reply = await this.upstream.call('starknet_getBlockWithTxHashes', [{ block_number: number }]);
      return felt((reply as { block_hash?: unknown } | null)?.block_hash, `block ${number} block_hash`);
    } catch (err) {
      // Starknet's BLOCK_NOT_FOUND.
      if ((err as { code?: unknown }).code === BLOCK_NOT_FOUND) return undefined;
      throw err;
    }
  }

  /**
   * Blocks from..from+count-1 of the upstream with their state updates, checked: each the block
   * asked for, valid, linked to the one before, its state update naming its hash.
   */
  private async fetchBlocks(from: number, count: number): Promise<StarknetBlockInput[]> {
    const at = (i: number) => [{ block_number: from + i }];
    const calls = Array.from({ length: count }, (_, i): Call => ({ method: 'starknet_getBlockWithReceipts', params: at(i) }));
    for (let i = 0; i < count; i++) calls.push({ method: 'starknet_getStateUpdate', params: at(i) });
    const replies = await this.upstream.batch(calls);
    const blocks = replies.slice(0, count).map((raw, i): StarknetBlockInput => {
      let block: StarknetBlockInput;
      try {
        block = parseBlockJson(raw);
      } catch (err) {
        throw new UpstreamError(`upstream block ${from + i}: ${(err as Error).message}`);
      }
      if (block.number !== from + i) throw new UpstreamError(`upstream answered block ${block.number} when asked for block ${from + i}`);
      let stateUpdate: StarknetBlockInput['stateUpdate'];
      try {
        stateUpdate = parseStateUpdateJson(replies[count + i]);
      } catch (err) {
        throw new UpstreamError(`upstream state update of block ${from + i}: ${(err as Error).message}`);
      }
      if (!feltsEqual(stateUpdate.blockHash, block.hash)) {
        throw new UpstreamError(`upstream state update of block ${from + i} names block ${stateUpdate.blockHash}, not ${block.hash}`);
      }
      return { ...block, stateUpdate };
    });
    for (let i = 1; i < blocks.length; i++) {
      if (!feltsEqual(blocks[i].parentHash, blocks[i - 1].hash)) {
        throw new UpstreamError(`upstream block ${blocks[i].number}: parent_hash ${blocks[i].parentHash} is not block ${blocks[i - 1].number}'s hash`);
      }
    }
    return blocks;
  }
}

/** Starknet RPC's error code for an unknown block. */
const BLOCK_NOT_FOUND = 24;

function felt(value: unknown, what: string): string {
  try {
    if (typeof value !== 'string') throw new Error('not a string');
    return normalizeFelt(value);
  } catch {
    throw new UpstreamError(`upstream answered a malformed ${what}`);
  }
}

function blockNumberOf(reply: unknown, what: string): number {
  const n = (reply as { block_number?: unknown } | null)?.block_number;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new UpstreamError(`upstream answered a malformed ${what}`);
  return n;
}
