/**
 * The transactions this node relayed to the followed node (eth_sendRawTransaction), for a short
 * while: a wallet asks for the receipt right after sending, when the followed node (an automining
 * anvil, a fast chain) may already have mined it and this node not yet executed that block. A
 * receipt asked for such a transaction waits for that block (`methods/eth/getTransactionReceipt.ts`).
 * Bounded: the oldest entries leave first, and an entry is forgotten after `ttlMs`.
 */
export class RelayedTransactions {
  /** Hash (lower-case 0x hex) → when it was relayed. Insertion order is age order. */
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers a transaction relayed now. */
  note(hash: string): void {
    const key = hash.toLowerCase();
    this.sent.delete(key);
    this.sent.set(key, this.now());
    while (this.sent.size > this.maxEntries) this.sent.delete(this.sent.keys().next().value as string);
  }

  /** Whether `hash` was relayed within the last `ttlMs`. */
  has(hash: string): boolean {
    const at = this.sent.get(hash.toLowerCase());
    if (at === undefined) return false;
    if (this.now() - at <= this.ttlMs) return true;
    this.sent.delete(hash.toLowerCase());
    return false;
  }

  get size(): number {
    return this.sent.size;
  }
}
