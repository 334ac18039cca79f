import type { Block } from '@ethereumjs/block';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import type { EthereumChain } from '../chain/open.js';
import type { BatchOp } from '../db/database.js';
import type { BlockImporter } from './blockImporter.js';
import { InvalidBlockError } from './validate.js';

/**
 * Blocks of a file that do not extend the head: side chains, as `geth export` writes them around a
 * reorganisation and as the Ethereum blockchain tests give them. Each is executed on its own stored
 * parent and kept by hash (invisible to requests); when its branch should be the chain by geth's
 * fork choice, the head switches to it in one batch, as the follower switches on an upstream's
 * reorganisation.
 */

/** A block's weight for the fork choice: its total difficulty and its number. */
export interface ChainWeight {
  td: bigint;
  number: bigint;
}

/**
 * geth's fork choice for inserted blocks (go-ethereum `core/forkchoice.go`, ReorgNeeded): once the
 * chain has reached its terminal total difficulty, the block inserted last is the head (after the
 * merge, the consensus layer chooses and import takes the file's order); before it, the heavier
 * chain by total difficulty, and at equal weight the lower block. geth breaks a remaining tie at
 * random; here the head stays.
 */
export function becomesHead(extern: ChainWeight, local: ChainWeight, ttd: bigint | undefined): boolean {
  if (ttd !== undefined && extern.td >= ttd) return true;
  if (extern.td !== local.td) return extern.td > local.td;
  return extern.number < local.number;
}

/** The terminal total difficulty of a chain's genesis config (a JSON number, a decimal or 0x string), if it has one. */
export function terminalTotalDifficulty(config: Record<string, unknown>): bigint | undefined {
  const ttd = config.terminalTotalDifficulty;
  if (typeof ttd === 'number' && Number.isSafeInteger(ttd)) return BigInt(ttd);
  if (typeof ttd === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(ttd)) return BigInt(ttd);
  if (typeof ttd === 'bigint') return ttd;
  return undefined;
}

/**
 * Makes the stored block `tip` the head: its branch, from the first block below it that is
 * canonical, becomes canonical, and the blocks above that ancestor leave the chain, in one batch.
 * The branch's blocks are executed again on their parents (each was verified when it was stored)
 * for their canonical entries, which include the trace and history index entries of their height.
 * Returns how many blocks left and joined the chain.
 */
export async function switchHead(chain: EthereumChain, importer: BlockImporter, tip: Block): Promise<{ dropped: number; added: number }> {
  const { store } = chain;
  const branch: Block[] = [tip];
  for (;;) {
    const below = branch[0];
    const parentHash = below.header.parentHash;
    const canonical = await store.canonicalHash(below.header.number - 1n);
    if (canonical !== undefined && equalsBytes(canonical, parentHash)) break;
    const parent = await store.blockByHash(parentHash);
    if (parent === undefined)
      throw new InvalidBlockError(`block ${below.header.number} (${bytesToHex(below.hash())}): parent ${bytesToHex(parentHash)} is not stored`);
    branch.unshift(parent);
  }
  const ancestorNumber = branch[0].header.number - 1n;
  const ancestor = { number: ancestorNumber, hash: branch[0].header.parentHash };
  const head = (await store.head())!;
  const dropped: Block[] = [];
  for (let n = head.number; n > ancestorNumber; n--) {
    const hash = (await store.canonicalHash(n))!;
    dropped.push((await store.blockByHash(hash))!);
  }
  importer.reset();
  const canonicalOps: BatchOp[] = [];
  for (const block of branch) canonicalOps.push(...(await importer.execute(block)).canonicalOps);
  await chain.level.batch([...store.rewindOps(ancestor, dropped), ...canonicalOps]);
  store.invalidateHead();
  importer.reset();
  return { dropped: dropped.length, added: branch.length };
}
