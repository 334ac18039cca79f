import { describe } from 'vitest';
import { onPath } from '../../scripts/lib/programs.js';

export { onPath };

/**
 * Programs from Debian packages that some tests drive: the browser of the CORS test (`chromium`,
 * through playwright-core, which downloads nothing) and Prometheus' `promtool`. `.ci/run` installs
 * them when missing; elsewhere a missing one skips its test with one line, and in CI
 * (`TRACENODE_CI` set, as `.ci/run` does) it fails instead.
 */

/** The chromium executable on PATH, or undefined. */
export function findChromium(): string | undefined {
  return onPath('chromium', 'chromium-browser');
}

/**
 * `describe`, or `describe.skip` with one line when a program the tests need is not on PATH; in CI
 * (`TRACENODE_CI` set) a missing program fails the file instead, since `.ci/run` installs it.
 */
export function describeWithProgram(program: string | undefined, debianPackage: string, who: string): typeof describe {
  if (program !== undefined) return describe;
  if (process.env.TRACENODE_CI) throw new Error(`${who}: the Debian package ${debianPackage} is not installed, and CI must run this test`);
  console.log(`skipped: ${who} needs the Debian package ${debianPackage}`);
  return describe.skip as typeof describe;
}

/** `describe` for the browser tests (see {@link describeWithProgram}). */
export function describeWithBrowser(who: string): typeof describe {
  return describeWithProgram(findChromium(), 'chromium', who);
}

/** Flags for headless Chromium on a machine without network or GPU. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
