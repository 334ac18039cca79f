import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { HeaderDeviation, HeaderRule } from './validate.js';

const ONCE = ' (lenient header checks; reported once per rule, counted in the metrics)';

function headerRuleMessage(rule: HeaderRule): string {
  return `block breaks the ${rule} header rule: executed with its own header values`;
}

/** What the deviations that are not header-to-parent rules mean, as the log says it. */
const MESSAGES: Partial<Record<HeaderRule, string>> = {
  parentHash: "block names no parent, its parentHash is zero (Hardhat's reserved hardhat_mine blocks): executed on the block below it",
  transactionsRoot: "block has an empty body whose transactionsRoot is keccak256 of nothing, not the empty trie's root (Hardhat): accepted",
  systemCalls:
    "block verifies only without the EIP-4788 and EIP-2935 system writes (Hardhat makes its blocks without them): this chain's blocks are executed without them from now on",
  stateClearing:
    "block verifies only keeping every account and storage slot its transactions loaded, empty or zero (anvil keeps them; EIP-161 and the storage trie drop them): this chain's blocks are executed so from now on",
  anvilOp:
    "OP-stack block verifies only as anvil's OP mode makes blocks (a deposit receipt's depositNonce the nonce after it; the fee vaults and L1Block kept when touched empty; the L1Block slots op-revm reads): this chain's blocks are executed so from now on",
  genesisStateRoot:
    "block 0's header names a state root other than its state's (anvil names the empty trie's): block 1 ran on the genesis state init computed, and its state root verifies it",
};

/**
 * Counts the header rules blocks broke under lenient checks, and reports each rule the first time
 * a block breaks it (one line per rule, not per block: a development node breaks the same rule on
 * every burst of blocks). The counts feed the metrics
 * (`tracenode_follow_header_deviations_total`).
 */
export class HeaderDeviationReport {
  private readonly counts = new Map<HeaderRule, number>();

  constructor(private readonly warn: (obj: object, msg: string) => void) {}

  /** Counts `deviations` of `block`; reports a rule seen for the first time. */
  record(block: Block, deviations: readonly HeaderDeviation[]): void {
    for (const { rule, detail } of deviations) {
      const seen = this.counts.get(rule) ?? 0;
      this.counts.set(rule, seen + 1);
      if (seen > 0) continue;
      this.warn({ rule, block: Number(block.header.number), hash: bytesToHex(block.hash()), detail }, `${MESSAGES[rule] ?? headerRuleMessage(rule)}${ONCE}`);
    }
  }

  /** Deviations counted so far, by rule. */
  snapshot(): Partial<Record<HeaderRule, number>> {
    return Object.fromEntries(this.counts) as Partial<Record<HeaderRule, number>>;
  }
}
