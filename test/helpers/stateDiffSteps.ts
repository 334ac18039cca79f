/**
 * Parity stateDiffs (trace_replay*) turned into the steps they claim, for tests that check them
 * against the archive: per account field or storage slot, the [before, after] of each transaction
 * that changed it, in order.
 */
export type Delta = '=' | { '+': string } | { '-': string } | { '*': { from: string; to: string } };

export interface AccountDiff {
  balance: Delta;
  code: Delta;
  nonce: Delta;
  storage: Record<string, Delta>;
}

/** A field's value when the account (or slot) does not exist, as `+` and `-` imply it. */
const EMPTY: Record<string, string> = { balance: '0x0', nonce: '0x0', code: '0x', storage: `0x${'0'.repeat(64)}` };

/**
 * Keys are `<address> balance|nonce|code` or `<address> storage <slot>`; a field listed only as
 * `=` has an empty list. `kinds` collects the delta kinds seen (`balance*`, `storage+`, …).
 */
export function stateDiffSteps(diffs: ReadonlyArray<Record<string, AccountDiff> | null>, kinds?: Set<string>): Map<string, Array<[string, string]>> {
  const steps = new Map<string, Array<[string, string]>>();
  for (const stateDiff of diffs) {
    for (const [address, diff] of Object.entries(stateDiff ?? {})) {
      const fields: Array<[string, Delta]> = [
        ['balance', diff.balance],
        ['nonce', diff.nonce],
        ['code', diff.code],
        ...Object.entries(diff.storage).map(([slot, d]): [string, Delta] => [`storage ${slot}`, d]),
      ];
      for (const [field, delta] of fields) {
        const key = `${address} ${field}`;
        if (!steps.has(key)) steps.set(key, []);
        if (delta === '=') continue;
        const what = field.split(' ')[0]!;
        kinds?.add(`${what}${Object.keys(delta)[0]}`);
        steps.get(key)!.push('+' in delta ? [EMPTY[what]!, delta['+']] : '-' in delta ? [delta['-'], EMPTY[what]!] : [delta['*'].from, delta['*'].to]);
      }
    }
  }
  return steps;
}
