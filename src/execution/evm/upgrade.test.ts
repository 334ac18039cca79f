import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM, EVM } from '@ethereumjs/evm';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { describe, expect, it } from 'vitest';
import type { ChainStore } from '../../chain/store.js';
import { defaultConfig } from '../../config/settings.js';
import { createBlockVM } from '../blockRun.js';
import { EvmPool } from '../evmPool.js';
import { Forks } from '../forks.js';
import { loadInterpreter } from './interpreter.js';
import { FINGERPRINTS, PINNED_RELEASES, sourceDigest } from './upstream.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * #40: the check to run after changing the @ethereumjs pins (README.md of this directory): the
 * release installed is the one the patches were written against, every method they copy or
 * replace is that release's (a failure shows the new digest to record once the copy is ported),
 * and `execution.evmFastPaths` (the call engine's) and `import.evmFastPaths` (block VMs') off
 * really leave an EVM as the library builds it. The conformance cases run both ways in
 * test/conformance/executionApis.test.ts; real blocks both ways in test/follow/opBlocks.test.ts.
 */
describe('the @ethereumjs release under our patches', () => {
  it('the installed packages and package.json pin the release upstream.ts records', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const [name, version] of Object.entries(PINNED_RELEASES)) {
      const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      expect([name, installed.version, pkg.dependencies[name]]).toEqual([name, version, version]);
    }
    // Every @ethereumjs package moves together: one release for all of them.
    const others = Object.entries(pkg.dependencies).filter(([name]) => name.startsWith('@ethereumjs/'));
    expect(new Set(others.map(([, v]) => v))).toEqual(new Set(Object.values(PINNED_RELEASES)));
  });

  it('every fingerprinted method is the installed release’s', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }) });
    const Interpreter = await loadInterpreter();
    const journalProto = Object.getPrototypeOf(evm.journal) as Record<string, object>;
    const evmProto = EVM.prototype as unknown as Record<string, object>;
    const smProto = MerkleStateManager.prototype as unknown as Record<string, object>;
    const installed: Record<keyof typeof FINGERPRINTS, object> = {
      'EVM.runInterpreter': evmProto.runInterpreter,
      'EVM._executeCall': evmProto._executeCall,
      'Interpreter._getValidJumpDestinations': (Interpreter.prototype as unknown as Record<string, object>)._getValidJumpDestinations,
      'MerkleStateManager._writeContractStorage': smProto._writeContractStorage,
      'MerkleStateManager.getStorage': smProto.getStorage,
      'MerkleStateManager.putStorage': smProto.putStorage,
      'Journal.cleanup': journalProto.cleanup,
    };
    const digests = Object.fromEntries(Object.entries(installed).map(([name, fn]) => [name, sourceDigest(fn)]));
    expect(digests).toEqual(Object.fromEntries(Object.entries(FINGERPRINTS).map(([name, [, digest]]) => [name, digest])));
  });

  it('execution.evmFastPaths off: the call engine’s EVMs and forks are as the library builds them; on: patched', async () => {
    const settings = defaultConfig().execution;
    const own = (evm: EVM) => ['runInterpreter', '_executeCall'].filter((m) => Object.hasOwn(evm, m));
    const store = {} as ChainStore;
    const reads = {} as never;
    const seen: Record<string, unknown> = {};
    for (const evmFastPaths of [false, true]) {
      const pool = new EvmPool(store, reads, { ...settings, evmFastPaths });
      const common = new Forks(new Common({ chain: Mainnet, hardfork: 'prague' }), evmFastPaths).get('prague').common;
      seen[String(evmFastPaths)] = await pool.withEvm(common, [], async (evm) => ({
        own: own(evm),
        lookup: Object.hasOwn(common, 'isActivatedEIP'),
        mstore: (evm as unknown as { _opcodeMap: Array<{ opHandler: object }> })._opcodeMap[0x52].opHandler,
      }));
    }
    const plainEvm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }) });
    const libraryMstore = (plainEvm as unknown as { _opcodeMap: Array<{ opHandler: object }> })._opcodeMap[0x52].opHandler;
    expect(seen.false).toEqual({ own: [], lookup: false, mstore: libraryMstore });
    expect(seen.true).toMatchObject({ own: ['runInterpreter', '_executeCall'], lookup: true });
    expect((seen.true as { mstore: object }).mstore).not.toBe(libraryMstore);
  });

  it('import.evmFastPaths: a block VM is the library’s without them; with them its EVM is patched and its Common’s EIP lookups stay the library’s', async () => {
    expect(defaultConfig().import.evmFastPaths).toBe(true);
    const own = (evm: EVM) => ['runInterpreter', '_executeCall'].filter((m) => Object.hasOwn(evm, m));
    const plainEvm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }) });
    const libraryMstore = (plainEvm as unknown as { _opcodeMap: Array<{ opHandler: object }> })._opcodeMap[0x52].opHandler;
    for (const fastPaths of [false, true]) {
      const vm = await createBlockVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }) }, fastPaths);
      const evm = vm.evm as EVM;
      const mstore = (evm as unknown as { _opcodeMap: Array<{ opHandler: object }> })._opcodeMap[0x52].opHandler;
      expect([own(evm), Object.hasOwn(vm.common, 'isActivatedEIP'), mstore === libraryMstore], String(fastPaths)).toEqual(
        fastPaths ? [['runInterpreter', '_executeCall'], false, false] : [[], false, true],
      );
    }
  });
});
