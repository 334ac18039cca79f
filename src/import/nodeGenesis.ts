import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import type { StateRootAlias } from '../state/trieDb.js';

/**
 * Whether a development node's block 0 is the genesis that its accounts and header fields give,
 * for `init --from-node`. A node's genesis header is taken as it is (its hash is the chain's)
 * only when it differs from the one computed here in nothing but:
 * - the roots of its empty lists — transactions, receipts, withdrawals —, which may be
 *   keccak256("") rather than the empty trie's root (Hardhat's transactionsRoot): block 0 holds
 *   no transaction, receipt or withdrawal either way;
 * - its state root, when it names the empty trie's root for a state that is not empty (anvil,
 *   foundry issue 7366), and only under lenient header checks: the state is then written under the
 *   computed root and block 0's header root is an alias of it (META.stateRootAlias); block 1's
 *   state root, computed on that state, verifies it again.
 * In every case the computed state must be the one the node holds: `proofRoot` (the root node of
 * its account proofs at block 0, hashed) must equal the computed root, or the node holds accounts
 * (or storage) the allocation does not list. Anything else is refused, naming what differs.
 */
export function adoptNodeGenesis(
  ours: BlockHeader,
  theirs: BlockHeader,
  computedRoot: Uint8Array,
  proofRoot: Uint8Array,
  checks: 'strict' | 'lenient',
): { alias?: StateRootAlias } {
  if (!equalsBytes(proofRoot, computedRoot)) {
    throw new Error(
      `the node's genesis state has root ${bytesToHex(proofRoot)} (its account proofs at block 0), the accounts it lists give ${bytesToHex(computedRoot)}: it holds accounts or storage that cannot be listed over JSON-RPC; give tracenode init its genesis file (--genesis)`,
    );
  }
  const oursJson = ours.toJSON() as Record<string, unknown>;
  const theirsJson = theirs.toJSON() as Record<string, unknown>;
  for (const field of new Set([...Object.keys(oursJson), ...Object.keys(theirsJson)])) {
    if (field === 'stateRoot' || oursJson[field] === theirsJson[field]) continue;
    if (EMPTY_LIST_ROOTS.has(field) && isEmptyListRoot(theirsJson[field])) continue;
    throw new Error(`the node's block 0 has ${field} ${String(theirsJson[field])}, its genesis fields and accounts give ${String(oursJson[field])}`);
  }
  if (equalsBytes(theirs.stateRoot, computedRoot)) return {};
  if (!equalsBytes(theirs.stateRoot, KECCAK256_RLP)) {
    throw new Error(`the node's block 0 names state root ${bytesToHex(theirs.stateRoot)}, the state it holds has root ${bytesToHex(computedRoot)}`);
  }
  if (checks === 'strict') {
    throw new Error(
      `the node's block 0 names the empty trie's state root ${bytesToHex(KECCAK256_RLP)} for a state whose root is ${bytesToHex(computedRoot)} (anvil, foundry issue 7366): accepted only under lenient header checks (import.headerChecks)`,
    );
  }
  return { alias: { headerRoot: theirs.stateRoot, trieRoot: computedRoot } };
}

/** Header fields (BlockHeader.toJSON names) that are the roots of lists that block 0 leaves empty. */
const EMPTY_LIST_ROOTS: ReadonlySet<string> = new Set(['transactionsTrie', 'receiptTrie', 'withdrawalsRoot']);

/** The empty trie's root, or keccak256 of nothing, which some nodes give an empty list instead. */
function isEmptyListRoot(value: unknown): boolean {
  return value === bytesToHex(KECCAK256_RLP) || value === bytesToHex(KECCAK256_NULL);
}
