import type { Block } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { HeaderDeviation, HeaderRule } from './validate.js';

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
      this.warn(
        { rule, block: Number(block.header.number), hash: bytesToHex(block.hash()), detail },
        `block breaks the ${rule} header rule: executed with its own header values (lenient header checks; reported once per rule, counted in the metrics)`,
      );
    }
  }

  /** Deviations counted so far, by rule. */
  snapshot(): Partial<Record<HeaderRule, number>> {
    return Object.fromEntries(this.counts) as Partial<Record<HeaderRule, number>>;
  }
}
