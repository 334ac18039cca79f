import type { Block, BlockHeader } from '@ethereumjs/block';
import { ConsensusType, Hardfork } from '@ethereumjs/common';
import { bytesToHex } from '@ethereumjs/util';
import type { ChainStore } from '../chain/store.js';

/** A block that breaks a consensus rule; the message names what differs. */
export class InvalidBlockError extends Error {
  override readonly name = 'InvalidBlockError';
}

/** Uncles must be at most this many generations older than the including block (ethash). */
const MAX_UNCLE_DEPTH = 7n;
const MAX_UNCLES = 2;

/**
 * Header rules that depend on the parent (ethereumjs `Blockchain.validateHeader`, geth
 * `consensus/ethash`, `consensus/misc/eip1559`, `eip4844`): number, timestamp, difficulty (PoW),
 * gas limit bounds, base fee, excess blob gas. Ethash seals are not verified (the shared test
 * chains have none). Returns nothing; throws {@link InvalidBlockError}.
 */
export function validateHeader(header: BlockHeader, parent: BlockHeader): void {
  if (header.number !== parent.number + 1n) throw new InvalidBlockError(`number ${header.number} does not follow parent ${parent.number}`);
  if (header.timestamp <= parent.timestamp) throw new InvalidBlockError(`timestamp ${header.timestamp} not after parent's ${parent.timestamp}`);
  const common = header.common;
  if (common.consensusType() === ConsensusType.ProofOfWork) {
    const want = header.ethashCanonicalDifficulty(parent);
    if (header.difficulty !== want) throw new InvalidBlockError(`difficulty ${header.difficulty} != expected ${want}`);
  }
  try {
    header.validateGasLimit(parent);
  } catch (err) {
    throw new InvalidBlockError(`gasLimit ${header.gasLimit}: ${firstLine(err)}`);
  }
  if (common.isActivatedEIP(1559)) {
    const londonBlock = common.hardforkBlock(Hardfork.London);
    const want = header.number === londonBlock ? common.param('initialBaseFee') : parent.calcNextBaseFee();
    if (header.baseFeePerGas !== want) throw new InvalidBlockError(`baseFeePerGas ${header.baseFeePerGas} != expected ${want}`);
  }
  if (common.isActivatedEIP(4844)) {
    const want = parent.calcNextExcessBlobGas(common);
    if (header.excessBlobGas !== want) throw new InvalidBlockError(`excessBlobGas ${header.excessBlobGas} != expected ${want}`);
  }
}

/**
 * Ethash uncle rules (geth `consensus/ethash/consensus.go` VerifyUncles): at most two, each a valid
 * header on an ancestor within 7 generations, not itself an ancestor, not included before, not
 * duplicated.
 */
export async function validateUncles(block: Block, store: ChainStore): Promise<void> {
  const uncles = block.uncleHeaders;
  if (uncles.length === 0) return;
  if (uncles.length > MAX_UNCLES) throw new InvalidBlockError(`too many uncles: ${uncles.length} > ${MAX_UNCLES}`);
  const ancestors = new Map<string, BlockHeader>();
  const included = new Set<string>();
  let hash = block.header.parentHash;
  for (let i = 0n; i <= MAX_UNCLE_DEPTH; i++) {
    const ancestor = await store.blockByHash(hash);
    if (!ancestor) break;
    ancestors.set(bytesToHex(ancestor.hash()), ancestor.header);
    for (const u of ancestor.uncleHeaders) included.add(bytesToHex(u.hash()));
    if (ancestor.header.number === 0n) break;
    hash = ancestor.header.parentHash;
  }
  const seen = new Set<string>();
  for (const uncle of uncles) {
    const uh = bytesToHex(uncle.hash());
    if (seen.has(uh)) throw new InvalidBlockError(`duplicate uncle ${uh}`);
    seen.add(uh);
    if (ancestors.has(uh)) throw new InvalidBlockError(`uncle ${uh} is an ancestor`);
    if (included.has(uh)) throw new InvalidBlockError(`uncle ${uh} already included`);
    const parent = ancestors.get(bytesToHex(uncle.parentHash));
    if (!parent) throw new InvalidBlockError(`uncle ${uh} has parent ${bytesToHex(uncle.parentHash)} outside the last ${MAX_UNCLE_DEPTH} blocks`);
    const distance = block.header.number - uncle.number;
    if (distance < 1n || distance > MAX_UNCLE_DEPTH) throw new InvalidBlockError(`uncle ${uh} at distance ${distance}`);
    try {
      validateHeader(uncle, parent);
    } catch (err) {
      throw new InvalidBlockError(`uncle ${uh}: ${firstLine(err)}`);
    }
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
