import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { ANVIL_BIN, CAST_BIN } from '../../scripts/lib/foundry.js';

/**
 * Foundry's anvil and cast, the peers of the differential and client tests (docs/peers.md). They
 * come from the optional dependencies `@foundry-rs/anvil-linux-amd64` and
 * `@foundry-rs/cast-linux-amd64`, which exist for linux x64 only: elsewhere `npm ci` skips them and
 * the tests that need them are skipped with one line saying so. On linux x64 the binaries must be
 * there (CI runs there): a missing one fails the test file instead of skipping it. Their paths are
 * written once, in scripts/lib/foundry.ts, from which the anvil generator starts anvil too.
 */
export { ANVIL_BIN, CAST_BIN };

/** True where npm installs the Foundry binaries, and where the tests must therefore run. */
export const FOUNDRY_PLATFORM = process.platform === 'linux' && process.arch === 'x64';

const BINARIES = { anvil: ANVIL_BIN, cast: CAST_BIN } as const;
const announced = new Set<string>();

/**
 * Whether the named binaries are installed. On linux x64 a missing one throws (the file fails to
 * load, which fails the run); elsewhere it prints one line and returns false, and the caller skips.
 */
export function foundryAvailable(needs: ReadonlyArray<keyof typeof BINARIES>, who: string): boolean {
  const missing = needs.filter((name) => !existsSync(BINARIES[name]));
  if (missing.length === 0) return true;
  const what = missing.map((name) => `@foundry-rs/${name}-linux-amd64`).join(' and ');
  if (FOUNDRY_PLATFORM) {
    throw new Error(`${who}: ${what} is not installed on linux x64, where these tests must run (run npm ci)`);
  }
  if (!announced.has(who)) {
    announced.add(who);
    console.log(`skipped: ${who} needs ${what}, which npm installs on linux x64 only (this is ${process.platform} ${process.arch})`);
  }
  return false;
}

/** `describe`, or `describe.skip` when the named Foundry binaries are absent off linux x64. */
export function describeWithFoundry(needs: ReadonlyArray<keyof typeof BINARIES>, who: string): typeof describe {
  return foundryAvailable(needs, who) ? describe : (describe.skip as typeof describe);
}
