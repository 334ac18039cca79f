import type { Block, BlockHeader } from '@ethereumjs/block';
import { ConsensusType, Hardfork } from '@ethereumjs/common';
import { bytesToHex, equalsBytes, KECCAK256_NULL, KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util';
import { OpBlockError, opNextBaseFee } from '../chain/op/baseFee.js';
import { KNOWN_OP_CHAIN_IDS } from '../chain/op/chains.js';
import type { OpRollup } from '../chain/op/rollup.js';
import type { ChainStore } from '../chain/store.js';
import { DomainError } from '../errors/domainError.js';

/** A block that breaks a consensus rule; the message names what differs. */
export class InvalidBlockError extends DomainError {
  override readonly name = 'InvalidBlockError';
}

/** Uncles must be at most this many generations older than the including block (ethash). */
const MAX_UNCLE_DEPTH = 7n;
const MAX_UNCLES = 2;

/**
 * How strictly a block's header is held to the rules that tie it to its parent's header.
 * - `strict`: every rule below, as geth's consensus engines apply them. A block that breaks one is
 *   refused.
 * - `lenient`: the rules that development nodes break by design (anvil, Hardhat, geth --dev with
 *   manual mining) are reported, not enforced: the timestamp (a burst of blocks mined in one
 *   second shares it), the difficulty of a PoW block, the gas limit's step from its parent
 *   (`anvil_setBlockGasLimit`), the base fee and the excess blob gas (anvil keeps a stale fee
 *   state after `evm_revert` and `anvil_reorg`). The block is then executed with its own header
 *   values and must still reproduce its state root, receipts root, bloom and gas used: what a block
 *   does is verified either way, only how it was scheduled and priced is taken from its header.
 *   The block number must always follow its parent's.
 * - `auto`: strict for the public networks @ethereumjs/common knows and the OP-stack chains known
 *   by chain id (their blocks are made by real consensus and a deviation means a bad upstream),
 *   lenient for any other chain.
 */
export type HeaderChecks = 'strict' | 'lenient' | 'auto';

/**
 * A header rule that `lenient` checks report instead of enforcing. The first five tie a header to
 * its parent's; the last five are what development nodes do differently from every other client,
 * reported and counted the same way (under strict checks each refuses the block, as it always did):
 * - `parentHash`: a block that names no parent (a zero parentHash), as the blocks Hardhat reserves
 *   for `hardhat_mine` do; its parent is the block below it ({@link namesNoParent});
 * - `transactionsRoot`: an empty block whose transactionsRoot is keccak256("") instead of the empty
 *   trie's root (the blocks Hardhat reserves for `hardhat_mine`; {@link emptyBodyRootDeviation});
 * - `systemCalls`: a block whose state root is reproduced only without the EIP-4788 and EIP-2935
 *   system writes (Hardhat; `import/blockImporter.ts`);
 * - `stateClearing`: a block whose state root is reproduced only when every account and storage
 *   slot its transactions loaded is kept, empty or zero, where EIP-161 removes the empty accounts
 *   a transaction touched and the storage trie has no key for a zero (anvil;
 *   `chain/loadedState.ts`);
 * - `genesisStateRoot`: a block executed on a genesis state whose header names another state root
 *   (anvil's block 0 names the empty trie's; `init --from-node` records the alias);
 * - `anvilOp`: an OP-stack block that verifies only as anvil's OP mode makes blocks (a deposit
 *   receipt's depositNonce the nonce after the deposit, the operator fee vault touched by every
 *   transaction; `import/blockImporter.ts`).
 */
export type HeaderRule =
  | 'timestamp'
  | 'difficulty'
  | 'gasLimit'
  | 'baseFee'
  | 'excessBlobGas'
  | 'parentHash'
  | 'transactionsRoot'
  | 'systemCalls'
  | 'stateClearing'
  | 'genesisStateRoot'
  | 'anvilOp';

/** A header rule a block broke, and how (`timestamp 5 not after parent's 5`). */
export interface HeaderDeviation {
  rule: HeaderRule;
  detail: string;
}

/** Chain ids of the public networks (mainnet, sepolia, holesky, hoodi): strict under `auto`. */
export const PUBLIC_CHAIN_IDS: ReadonlySet<bigint> = new Set([1n, 11155111n, 17000n, 560048n]);

/** The checks `setting` means for the chain `chainId` (`auto` resolved). */
export function headerChecksFor(setting: HeaderChecks, chainId: bigint): 'strict' | 'lenient' {
  if (setting !== 'auto') return setting;
  // The known OP-stack chains' blocks are made by their sequencers under real consensus too.
  return PUBLIC_CHAIN_IDS.has(chainId) || KNOWN_OP_CHAIN_IDS.includes(chainId) ? 'strict' : 'lenient';
}

/**
 * Header rules that depend on the parent (ethereumjs `Blockchain.validateHeader`, geth
 * `consensus/ethash`, `consensus/misc/eip1559`, `eip4844`): number, timestamp, difficulty (PoW),
 * gas limit bounds, base fee, excess blob gas. Ethash seals are not verified (the shared test
 * chains have none). Under `strict` checks a broken rule throws {@link InvalidBlockError}; under
 * `lenient` ones the rules of {@link HeaderRule} are returned as deviations instead (the number
 * rule always throws).
 */
export function validateHeader(header: BlockHeader, parent: BlockHeader, checks: 'strict' | 'lenient' = 'strict', op?: OpRollup): HeaderDeviation[] {
  if (header.number !== parent.number + 1n) throw new InvalidBlockError(`number ${header.number} does not follow parent ${parent.number}`);
  const deviations: HeaderDeviation[] = [];
  const broken = (rule: HeaderRule, detail: string): void => {
    if (checks === 'strict') throw new InvalidBlockError(detail);
    deviations.push({ rule, detail });
  };
  if (header.timestamp <= parent.timestamp) broken('timestamp', `timestamp ${header.timestamp} not after parent's ${parent.timestamp}`);
  const common = header.common;
  if (common.consensusType() === ConsensusType.ProofOfWork) {
    const want = header.ethashCanonicalDifficulty(parent);
    if (header.difficulty !== want) broken('difficulty', `difficulty ${header.difficulty} != expected ${want}`);
  }
  // An OP-stack chain's gas limit is the system config's, set on L1: any step (op-geth checks none).
  if (op === undefined) {
    try {
      header.validateGasLimit(parent);
    } catch (err) {
      broken('gasLimit', `gasLimit ${header.gasLimit}: ${firstLine(err)}`);
    }
  }
  if (op !== undefined) {
    // The chain's EIP-1559 parameters: the config's, or from Holocene those the parent's extra data names.
    const want = opBaseFee(op, header, parent);
    if (typeof want === 'string') broken('baseFee', want);
    else if (header.baseFeePerGas !== want) broken('baseFee', `baseFeePerGas ${header.baseFeePerGas} != expected ${want} (the OP chain's EIP-1559 parameters)`);
  } else if (common.isActivatedEIP(1559)) {
    const londonBlock = common.hardforkBlock(Hardfork.London);
    const want = header.number === londonBlock ? common.param('initialBaseFee') : parent.calcNextBaseFee();
    if (header.baseFeePerGas !== want) broken('baseFee', `baseFeePerGas ${header.baseFeePerGas} != expected ${want}`);
  }
  if (common.isActivatedEIP(4844) && op !== undefined) {
    // OP chains carry no blobs: zero from Ecotone on (from Jovian blobGasUsed is the DA footprint, which counts for nothing here).
    if (header.excessBlobGas !== 0n) broken('excessBlobGas', `excessBlobGas ${header.excessBlobGas} != expected 0 (an OP-stack chain)`);
  } else if (common.isActivatedEIP(4844)) {
    const want = parent.calcNextExcessBlobGas(common);
    if (header.excessBlobGas !== want) broken('excessBlobGas', `excessBlobGas ${header.excessBlobGas} != expected ${want}`);
  }
  return deviations;
}

/** The base fee an OP-stack block must have, or why its parent gives none (extra data it cannot read). */
function opBaseFee(op: OpRollup, header: BlockHeader, parent: BlockHeader): bigint | string {
  try {
    return opNextBaseFee(op, parent, header.timestamp);
  } catch (err) {
    if (err instanceof OpBlockError) return `baseFeePerGas: parent's ${err.message}`;
    throw err;
  }
}

/**
 * Ethash uncle rules (geth `consensus/ethash/consensus.go` VerifyUncles): at most two, each a valid
 * header on an ancestor within 7 generations, not itself an ancestor, not included before, not
 * duplicated.
 */
export async function validateUncles(block: Block, store: ChainStore, checks: 'strict' | 'lenient' = 'strict'): Promise<HeaderDeviation[]> {
  const uncles = block.uncleHeaders;
  const deviations: HeaderDeviation[] = [];
  if (uncles.length === 0) return deviations;
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
      for (const d of validateHeader(uncle, parent, checks)) deviations.push({ rule: d.rule, detail: `uncle ${uh}: ${d.detail}` });
    } catch (err) {
      throw new InvalidBlockError(`uncle ${uh}: ${firstLine(err)}`);
    }
  }
  return deviations;
}

/**
 * Whether a block above the genesis names no parent: its parentHash is zero. Hardhat (2.29, EDR)
 * reserves the blocks in the middle of a `hardhat_mine` range and serves them so, with the zero
 * parentHash in their hash; the block after the range names the last of them. Under lenient
 * checks such a block's parent is the block below it on the branch being followed.
 */
export function namesNoParent(header: BlockHeader): boolean {
  return header.number > 0n && header.parentHash.every((b) => b === 0);
}

/**
 * A block whose body is empty (no transactions, uncles or withdrawals) but whose transactionsRoot
 * is keccak256("") — the empty code hash — rather than the empty trie's root: Hardhat gives it to
 * its genesis and to the blocks `hardhat_mine` reserves. @ethereumjs/vm refuses such a block when
 * it validates the body against the header, which holds nothing else to check: under lenient
 * checks the deviation is returned and the block runs without that validation (`skipBody`); under
 * strict ones it is refused. undefined for any other block (validated as usual).
 */
export function emptyBodyRootDeviation(block: Block, checks: 'strict' | 'lenient'): HeaderDeviation | undefined {
  const h = block.header;
  if (!equalsBytes(h.transactionsTrie, KECCAK256_NULL) || block.transactions.length > 0) return undefined;
  const emptyWithdrawals = (block.withdrawals ?? []).length === 0 && (h.withdrawalsRoot === undefined || equalsBytes(h.withdrawalsRoot, KECCAK256_RLP));
  if (block.uncleHeaders.length > 0 || !equalsBytes(h.uncleHash, KECCAK256_RLP_ARRAY) || !emptyWithdrawals) return undefined;
  const detail = `transactionsRoot of an empty body is ${bytesToHex(KECCAK256_NULL)} (keccak256 of nothing), not the empty trie's root ${bytesToHex(KECCAK256_RLP)}`;
  if (checks === 'strict') throw new InvalidBlockError(detail);
  return { rule: 'transactionsRoot', detail };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
