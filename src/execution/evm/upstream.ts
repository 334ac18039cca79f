import { createHash } from 'node:crypto';

/**
 * The @ethereumjs release this directory patches, and the checks that the installed one is it.
 * Every use of @ethereumjs private fields lives in this directory (`README.md` lists each patched
 * surface and how to upgrade): they are not part of the packages' API and a release may rename
 * them without notice. Each accessor checks what it finds and throws an Error naming the field
 * rather than carry on with a silently wrong EVM (every EIP off, an unhooked opcode, a run on the
 * previous state); each copied or replaced method is fingerprinted.
 */

/** The release of each @ethereumjs package the patches were written against (package.json pins the same). */
export const PINNED_RELEASES = {
  '@ethereumjs/common': '10.1.3',
  '@ethereumjs/evm': '10.1.3',
  '@ethereumjs/statemanager': '10.1.3',
  '@ethereumjs/vm': '10.1.3',
} as const;

/** Thrown when a private field a patch relies on is missing or has changed shape. */
export function unsupported(pkg: string, field: string, use: string): Error {
  return new Error(`unsupported ${pkg}: ${field} (${use}) is missing or has changed; see src/execution/evm/README.md`);
}

/**
 * sha256 (first 16 hex digits) of the source of each method copied, or replaced in part, here
 * (the call fast paths; anvil's state), as the pinned release ships it (dist/esm): its package,
 * digest and use. `upgrade.test.ts` checks every one against the installed release.
 */
export const FINGERPRINTS = {
  'EVM.runInterpreter': ['@ethereumjs/evm', '1f4905264075376d', 'a method the call fast paths copy'],
  'EVM._executeCall': ['@ethereumjs/evm', 'f2358d2eeecc46e1', 'a method the call fast paths copy'],
  'Interpreter._getValidJumpDestinations': ['@ethereumjs/evm', 'a30ec99e04e322ec', 'a method the call fast paths copy'],
  'MerkleStateManager._writeContractStorage': [
    '@ethereumjs/statemanager',
    '744ac1ba06cc4d1c',
    'the storage write whose deletion of a zero anvil state replaces',
  ],
  'MerkleStateManager.getStorage': ['@ethereumjs/statemanager', 'c3078f8687c5f506', 'the storage read whose caching anvil state relies on'],
  'MerkleStateManager.putStorage': ['@ethereumjs/statemanager', '186dd05d5d1bfec5', 'the storage write that writes through its cache'],
  'Journal.cleanup': ['@ethereumjs/evm', 'caf804e35c079fe0', 'the EIP-161 clearing anvil state replaces'],
} as const;

/** Checks that `fn` is the method `name` of the release this file was written against. */
export function checkFingerprint(name: keyof typeof FINGERPRINTS, fn: unknown): void {
  const [pkg, digest, use] = FINGERPRINTS[name];
  if (typeof fn !== 'function' || sourceDigest(fn) !== digest) throw unsupported(pkg, name, use);
}

const fingerprints = new WeakMap<object, string>();

/** sha256 (first 16 hex digits) of a function's source: what {@link FINGERPRINTS} records. */
export function sourceDigest(fn: object): string {
  let digest = fingerprints.get(fn);
  if (digest === undefined) {
    digest = createHash('sha256').update(String(fn)).digest('hex').slice(0, 16);
    fingerprints.set(fn, digest);
  }
  return digest;
}
