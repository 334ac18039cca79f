import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVM, type EVMResult, Message } from '@ethereumjs/evm';
import { Caches, MerkleStateManager, SimpleStateManager } from '@ethereumjs/statemanager';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, Address, bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { createVM, runTx } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../codec/keccak.js';
import { installCallFastPaths } from './callFastPaths.js';
import { fastEipLookup, withoutSystemWrites } from './common.js';
import { borrowedCodeAddress, memoryBytes } from './frames.js';
import { loadInterpreter } from './interpreter.js';
import { keepTouchedAccounts, pointEvmAt, warmAddresses } from './journal.js';
import { JumpAnalysisCache } from './jumpAnalysis.js';
import { opcodeTable } from './opcodeTable.js';
import { keepLoadedSlots, keepZeroStorageLeaves, writeStorageBack } from './storage.js';
import { checkFingerprint } from './upstream.js';

/** EIPs of several forks, and one no fork has. */
const PROBES = [1, 606, 1559, 2929, 3529, 3651, 3860, 4844, 7623, 7702, 7825, 9999];

describe('@ethereumjs internals', () => {
  it('withoutSystemWrites: a copy with EIP-4788 and EIP-2935 off and every other EIP as its hardfork has them, also after a change; the original untouched', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'prague' });
    const copy = withoutSystemWrites(common);
    expect([copy.isActivatedEIP(4788), copy.isActivatedEIP(2935)]).toEqual([false, false]);
    expect([common.isActivatedEIP(4788), common.isActivatedEIP(2935)]).toEqual([true, true]);
    expect(PROBES.map((eip) => copy.isActivatedEIP(eip))).toEqual(PROBES.map((eip) => common.isActivatedEIP(eip)));
    copy.setHardfork('london');
    expect([copy.isActivatedEIP(1559), copy.isActivatedEIP(4844), copy.isActivatedEIP(7702)]).toEqual([true, false, false]);
    expect(common.hardfork()).toBe('prague');
    // A Common whose lookup fastEipLookup replaced: the copy still asks the prototype about its own hardfork.
    const fast = new Common({ chain: Mainnet, hardfork: 'cancun' });
    fastEipLookup(fast);
    const fastCopy = withoutSystemWrites(fast);
    fastCopy.setHardfork('prague');
    expect([fastCopy.isActivatedEIP(7702), fastCopy.isActivatedEIP(4788)]).toEqual([true, false]);
  });

  it('fastEipLookup answers as isActivatedEIP did, and follows a hardfork change', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'london' });
    const before = PROBES.map((eip) => common.isActivatedEIP(eip));
    fastEipLookup(common);
    expect(PROBES.map((eip) => common.isActivatedEIP(eip))).toEqual(before);
    expect(common.isActivatedEIP(1559)).toBe(true);
    expect(common.isActivatedEIP(4844)).toBe(false);
    common.setHardfork('cancun');
    expect(common.isActivatedEIP(4844)).toBe(true);
  });

  it('error: fastEipLookup refuses a Common without _activatedEIPsCache instead of turning every EIP off', () => {
    const common = new Common({ chain: Mainnet, hardfork: 'cancun' });
    Reflect.deleteProperty(common, '_activatedEIPsCache');
    expect(() => fastEipLookup(common)).toThrow(/Common\._activatedEIPsCache/);
  });

  it('error: fastEipLookup refuses a _activatedEIPsCache that is no longer what isActivatedEIP reads', () => {
    // As if a release kept the field but moved the method to another one: EIP-1 missing here.
    class Moved extends Common {
      override isActivatedEIP(_eip: number): boolean {
        return true;
      }
    }
    const common = new Moved({ chain: Mainnet, hardfork: 'cancun' });
    (common as unknown as { _activatedEIPsCache: number[] })._activatedEIPsCache = [];
    expect(() => fastEipLookup(common)).toThrow(/Common\._activatedEIPsCache/);
  });

  it('opcodeTable: the EVM opcode table, one entry per opcode', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const table = opcodeTable(evm);
    expect(table[0x56].opcodeInfo.name).toBe('JUMP');
  });

  it('error: opcodeTable refuses an EVM without _opcodeMap', () => {
    expect(() => opcodeTable({} as EVM)).toThrow(/EVM\._opcodeMap/);
  });

  it('pointEvmAt moves the EVM and its journal to the new state', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const sm = new SimpleStateManager();
    pointEvmAt(evm, sm);
    expect(evm.stateManager).toBe(sm);
    expect((evm.journal as unknown as { stateManager: unknown }).stateManager).toBe(sm);
  });

  it('error: pointEvmAt refuses a journal without stateManager', () => {
    expect(() => pointEvmAt({ journal: {} } as EVM, new SimpleStateManager())).toThrow(/Journal\.stateManager/);
  });

  it('warmAddresses warms as addAlwaysWarmAddress does', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const other = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const addresses = ['0000000000000000000000000000000000000001', '00000000000000000000000000000000000000aa'];
    warmAddresses(evm, addresses);
    for (const a of addresses) other.journal.addAlwaysWarmAddress(a);
    const warmed = (e: EVM) => (e.journal as unknown as { alwaysWarmJournal: Map<string, Set<string>> }).alwaysWarmJournal;
    expect(warmed(evm)).toEqual(warmed(other));
    expect(evm.journal.isWarmedAddress(hexToBytes('0x00000000000000000000000000000000000000aa'))).toBe(true);
    expect(evm.journal.isWarmedAddress(hexToBytes('0x00000000000000000000000000000000000000ab'))).toBe(false);
  });

  it('error: warmAddresses refuses a journal without alwaysWarmJournal', () => {
    expect(() => warmAddresses({ journal: {} } as EVM, [])).toThrow(/Journal\.alwaysWarmJournal/);
  });

  it('loadInterpreter: the Interpreter class the package does not export', async () => {
    const Interpreter = await loadInterpreter();
    expect(typeof Interpreter.prototype._getValidJumpDestinations).toBe('function');
  });

  it('error: installCallFastPaths refuses an EVM whose copied methods are not those of the pinned release', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    const proto = Object.getPrototypeOf(evm) as Record<string, unknown>;
    const changed = Object.create(Object.create(proto, { runInterpreter: { value: async () => ({}) } }), Object.getOwnPropertyDescriptors(evm));
    await expect(installCallFastPaths(changed, new JumpAnalysisCache().analyzer)).rejects.toThrow(/EVM\.runInterpreter/);
    const changed2 = Object.create(Object.create(proto, { _executeCall: { value: async () => ({}) } }), Object.getOwnPropertyDescriptors(evm));
    await expect(installCallFastPaths(changed2, new JumpAnalysisCache().analyzer)).rejects.toThrow(/EVM\._executeCall/);
    expect(() => checkFingerprint('Interpreter._getValidJumpDestinations', () => 0)).toThrow(/Interpreter\._getValidJumpDestinations/);
  });

  it('error: installCallFastPaths refuses an EVM without _opcodeMap', async () => {
    const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'cancun' }) });
    Reflect.deleteProperty(evm, '_opcodeMap');
    await expect(installCallFastPaths(evm, new JumpAnalysisCache().analyzer)).rejects.toThrow(/EVM\._opcodeMap/);
  });

  describe("anvil's state: the hooks", () => {
    const A = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'));
    const word = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`);
    const leaf = (n: bigint) => bytesToHex(keccak256(word(n)));

    for (const caches of [false, true]) {
      it(`keepZeroStorageLeaves: a slot cleared, or a zero written to a fresh one, stays as a leaf holding 0x80 (${caches ? 'with' : 'without'} caches)`, async () => {
        const sm = new MerkleStateManager({ caches: caches ? new Caches() : undefined });
        const plain = new MerkleStateManager({ caches: caches ? new Caches() : undefined });
        keepZeroStorageLeaves(sm);
        for (const m of [sm, plain]) {
          await m.putAccount(A, new Account());
          await m.putStorage(A, word(0n), word(5n));
          await m.putStorage(A, word(0n), word(0n));
          await m.putStorage(A, word(1n), word(0n));
          await m.putStorage(A, word(2n), word(7n));
          await m.getStateRoot();
        }
        expect(await sm.dumpStorage(A)).toEqual({ [leaf(0n)]: '0x80', [leaf(1n)]: '0x80', [leaf(2n)]: '0x07' });
        expect(await plain.dumpStorage(A)).toEqual({ [leaf(2n)]: '0x07' });
        // A zero leaf reads as zero.
        expect(await sm.getStorage(A, word(0n))).toEqual(new Uint8Array(0));
      });
    }

    it('keepLoadedSlots: a slot only read, in a checkpoint committed, is written back as a zero leaf; one read in a checkpoint reverted is not', async () => {
      const sm = new MerkleStateManager({ caches: new Caches() });
      keepLoadedSlots(sm);
      await sm.putAccount(A, new Account());
      await sm.checkpoint();
      await sm.getStorage(A, word(1n));
      await sm.checkpoint();
      await sm.getStorage(A, word(2n));
      await sm.revert();
      await sm.commit();
      await sm.getStateRoot();
      expect(await sm.dumpStorage(A)).toEqual({ [leaf(1n)]: '0x80' });
    });

    it("error: keepZeroStorageLeaves and keepLoadedSlots refuse a state manager whose storage methods are not the pinned release's, or that lacks what they use", () => {
      const changed = new MerkleStateManager();
      (changed as unknown as { _writeContractStorage: unknown })._writeContractStorage = async () => undefined;
      expect(() => keepZeroStorageLeaves(changed)).toThrow(/MerkleStateManager\._writeContractStorage/);
      expect(() => keepZeroStorageLeaves(new SimpleStateManager())).toThrow(/MerkleStateManager\._writeContractStorage/);
      const missing = new MerkleStateManager();
      (missing as unknown as { _modifyContractStorage: unknown })._modifyContractStorage = undefined;
      expect(() => keepZeroStorageLeaves(missing)).toThrow(/MerkleStateManager\._modifyContractStorage/);
      expect(() => keepLoadedSlots(new SimpleStateManager())).toThrow(/MerkleStateManager\.getStorage/);
      expect(() => keepLoadedSlots(new MerkleStateManager())).toThrow(/no storage cache/);
    });

    it('writeStorageBack: a write reaches the storage trie when the cache is flushed, not before (as published it reaches it at once); the roots agree', async () => {
      const patched = new MerkleStateManager({ caches: new Caches() });
      const plain = new MerkleStateManager({ caches: new Caches() });
      writeStorageBack(patched);
      const trieWrites = new Map<MerkleStateManager, string[]>();
      for (const m of [patched, plain]) {
        await m.putAccount(A, new Account());
        await m.getStateRoot();
        const writes: string[] = [];
        trieWrites.set(m, writes);
        const self = m as unknown as { _writeContractStorage(a: Address, acc: Account, k: Uint8Array, v: Uint8Array): Promise<void> };
        const write = self._writeContractStorage.bind(m);
        self._writeContractStorage = async (a, acc, k, v) => {
          writes.push(`${bytesToHex(k).slice(-1)}=${bytesToHex(v)}`);
          return write(a, acc, k, v);
        };
        await m.checkpoint();
        await m.putStorage(A, word(0n), word(5n));
        await m.putStorage(A, word(1n), word(6n));
        await m.putStorage(A, word(1n), word(0n));
        expect(await m.getStorage(A, word(1n))).toEqual(new Uint8Array(0));
        expect(await m.getStorage(A, word(0n))).toEqual(Uint8Array.of(5));
      }
      expect(trieWrites.get(patched)).toEqual([]);
      expect(trieWrites.get(plain)).toEqual(['0=0x05', '1=0x06', '1=0x']);
      for (const m of [patched, plain]) await m.commit();
      // The flush writes each slot's last value.
      expect(trieWrites.get(patched)).toEqual(['0=0x05', '1=0x']);
      expect(await patched.dumpStorage(A)).toEqual({ [leaf(0n)]: '0x05' });
      expect(bytesToHex(await patched.getStateRoot())).toBe(bytesToHex(await plain.getStateRoot()));
      await expect(patched.putStorage(new Address(new Uint8Array(20).fill(0xbb)), word(0n), word(1n))).rejects.toThrow(/non-existing account/);
    });

    it("error: writeStorageBack refuses a state manager whose putStorage is not the pinned release's, or without a storage cache", () => {
      expect(() => writeStorageBack(new SimpleStateManager())).toThrow(/MerkleStateManager\.putStorage/);
      expect(() => writeStorageBack(new MerkleStateManager())).toThrow(/no storage cache/);
    });

    it('keepTouchedAccounts: the cleanup hands over the touched accounts and deletes none of them (a 0-wei transfer to an address that has nothing)', async () => {
      const key = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
      const dead = new Address(hexToBytes('0x000000000000000000000000000000000000dead'));
      const run = async (hook: boolean) => {
        const common = new Common({ chain: Mainnet, hardfork: 'prague' });
        const vm = await createVM({ common });
        const seen: string[][] = [];
        if (hook) keepTouchedAccounts(vm.evm as EVM, async (touched) => void seen.push([...touched].sort()));
        await vm.stateManager.putAccount(new Address(privateToAddress(key)), new Account(0n, 10n ** 18n));
        await runTx(vm, { tx: createLegacyTx({ gasPrice: 10n, gasLimit: 21_000n, to: dead }, { common }).sign(key) });
        return { seen, dead: await vm.stateManager.getAccount(dead) };
      };
      const kept = await run(true);
      expect(kept.dead?.isEmpty()).toBe(true);
      // runTx cleans up before the transaction (nothing touched yet) and after it.
      expect(kept.seen).toEqual([
        [],
        [bytesToHex(privateToAddress(key)).slice(2), '0000000000000000000000000000000000000000', dead.toString().slice(2)].sort(),
      ]);
      expect((await run(false)).dead).toBeUndefined();
    });

    it("error: keepTouchedAccounts refuses a journal without its touched set, or whose cleanup is not the pinned release's", async () => {
      const common = new Common({ chain: Mainnet, hardfork: 'prague' });
      const noTouched = await createEVM({ common });
      Reflect.deleteProperty(noTouched.journal, 'touched');
      expect(() => keepTouchedAccounts(noTouched, async () => undefined)).toThrow(/Journal\.touched/);
      const otherCleanup = await createEVM({ common });
      otherCleanup.journal.cleanup = async () => undefined;
      expect(() => keepTouchedAccounts(otherCleanup, async () => undefined)).toThrow(/Journal\.cleanup/);
    });
  });

  describe('the fields the tracers read', () => {
    const CALLER = new Address(hexToBytes('0x00000000000000000000000000000000000000c0'));
    const A = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'));
    const B = new Address(hexToBytes('0x00000000000000000000000000000000000000bb'));
    const b = B.toString().slice(2);
    // MSTORE 42 at 0, then DELEGATECALL, CALLCODE and CALL to B (no data, no return data), STOP.
    const CODE_A = `0x602a600052 6000600060006000 73${b} 5a f4 50 60006000600060006000 73${b} 5a f2 50 60006000600060006000 73${b} 5a f1 50 00`;

    /** A's run on a bare EVM: the messages it made, in order, and its result. */
    async function runA(): Promise<{ messages: Message[]; result: EVMResult }> {
      const sm = new SimpleStateManager();
      const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }), stateManager: sm });
      await sm.putAccount(CALLER, new Account(0n, 10n ** 18n));
      await sm.putAccount(A, new Account());
      await sm.putCode(A, hexToBytes(CODE_A.replace(/ /g, '') as `0x${string}`));
      await sm.putAccount(B, new Account());
      await sm.putCode(B, hexToBytes('0x00'));
      const messages: Message[] = [];
      evm.events.on('beforeMessage', (message: Message) => void messages.push(message));
      const result = await evm.runCall({ caller: CALLER, origin: CALLER, to: A, gasLimit: 100_000n, data: new Uint8Array() });
      return { messages, result };
    }

    it('borrowedCodeAddress: the callee of a DELEGATECALL and a CALLCODE, none for the transaction and a CALL', async () => {
      const { messages, result } = await runA();
      expect(result.execResult.exceptionError).toBeUndefined();
      expect(messages.map((m) => [m.to?.toString(), borrowedCodeAddress(m)?.toString()])).toEqual([
        [A.toString(), undefined],
        [A.toString(), B.toString()], // DELEGATECALL: runs B's code as A
        [A.toString(), B.toString()], // CALLCODE
        [B.toString(), undefined], // CALL
      ]);
      expect(borrowedCodeAddress(new Message({ to: A, codeAddress: B, gasLimit: 1n }))).toBe(B);
      expect(borrowedCodeAddress(new Message({ gasLimit: 1n }))).toBeUndefined();
    });

    it('error: borrowedCodeAddress refuses a message without _codeAddress, or with something else than an address in it', () => {
      expect(() => borrowedCodeAddress({ to: A } as Message)).toThrow(/Message\._codeAddress/);
      expect(() => borrowedCodeAddress({ to: A, _codeAddress: B.toString() } as unknown as Message)).toThrow(/Message\._codeAddress/);
      expect(() => borrowedCodeAddress({ to: A, _codeAddress: null } as unknown as Message)).toThrow(/Message\._codeAddress/);
    });

    it('memoryBytes: the first bytes of a frame memory, as a view, without growing it', async () => {
      const { result } = await runA();
      const rs = (result.execResult as { runState?: { memory: unknown; memoryWordCount: bigint } }).runState!;
      expect(rs.memoryWordCount).toBe(1n);
      const bytes = memoryBytes(rs.memory, Number(rs.memoryWordCount) * 32);
      expect(bytes).toEqual(hexToBytes(`0x${'00'.repeat(31)}2a`));
      expect(memoryBytes(rs.memory, 0)).toEqual(new Uint8Array(0));
      // A view of the memory: what the frame wrote shows in it.
      (rs.memory as { write(offset: number, size: number, value: Uint8Array): void }).write(0, 1, Uint8Array.of(7));
      expect(bytes[0]).toBe(7);
      // Past its end, the memory (8 KiB at first) is not extended, as Memory.read would.
      expect(memoryBytes(rs.memory, 10_000).length).toBe(8192);
    });

    it('error: memoryBytes refuses a memory without _store', () => {
      expect(() => memoryBytes({}, 32)).toThrow(/Memory\._store/);
      expect(() => memoryBytes(undefined, 32)).toThrow(/Memory\._store/);
      expect(() => memoryBytes({ _store: [0, 1] }, 32)).toThrow(/Memory\._store/);
    });
  });

  describe('the call fast paths answer as the library does', () => {
    const CALLER = new Address(hexToBytes('0x00000000000000000000000000000000000000c0'));
    const A = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'));
    const B = new Address(hexToBytes('0x00000000000000000000000000000000000000bb'));
    const NOBODY = new Address(hexToBytes('0x00000000000000000000000000000000000000ee'));
    const SLOT_1 = hexToBytes(`0x${'00'.repeat(31)}01`);
    // B: returns CALLVALUE + calldata word 0, and stores it in slot 1.
    const CODE_B = '0x6000353401806001556000526020 6000f3'.replace(/ /g, '');
    const cases: Array<[string, string, bigint?]> = [
      // SSTORE then RETURN 32 bytes (loop with JUMPI over a counter, MSTORE, SLOAD)
      ['loop, storage and return', '0x6003 5b 8060019003 80 6002 57 50 602a6000 55 600054 600052 60206000f3'],
      // CALL B with value 5 and data 0x07, return B's return data
      ['nested call with value', `0x6007600052 6020600060206000 6005 73${B.toString().slice(2)} 5a f1 50 60206000f3`],
      // REVERT with 4 bytes of data
      ['revert with data', '0x63deadbeef600052 6004601cfd'],
      // JUMP to a non-JUMPDEST: exceptional halt
      ['invalid jump', '0x6003 56 00'],
      // STATICCALL to a precompile (identity), then stack underflow
      ['precompile, then stack underflow', '0x60206000602060006004 5a fa 50 01'],
      // value transfer to an address without code
      ['transfer to nobody', '0x00', 1n],
    ];

    async function evmWith(fast: boolean): Promise<EVM> {
      const sm = new SimpleStateManager();
      const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: 'prague' }), stateManager: sm });
      await sm.putAccount(CALLER, new Account(0n, 10n ** 18n));
      await sm.putAccount(A, new Account(0n, 100n));
      await sm.putAccount(B, new Account());
      await sm.putCode(B, hexToBytes(CODE_B as `0x${string}`));
      if (fast) await installCallFastPaths(evm, new JumpAnalysisCache().analyzer);
      return evm;
    }

    function summary(r: EVMResult) {
      const e = r.execResult as EVMResult['execResult'] & { runState?: { programCounter: number; opCode: number; stack: { getStack(): bigint[] } } };
      return {
        returnValue: e.returnValue,
        executionGasUsed: e.executionGasUsed,
        gasRefund: e.gasRefund,
        error: e.exceptionError?.error,
        logs: e.logs,
        frame:
          e.exceptionError && e.exceptionError.error !== 'revert' ? [e.runState?.programCounter, e.runState?.opCode, e.runState?.stack.getStack()] : undefined,
      };
    }

    for (const [name, code, value] of cases) {
      it(name, async () => {
        const results = [];
        for (const fast of [false, true]) {
          const evm = await evmWith(fast);
          const to = value === undefined ? A : NOBODY;
          if (value === undefined) await evm.stateManager.putCode(A, hexToBytes(code.replace(/ /g, '') as `0x${string}`));
          const r = await evm.runCall({ caller: CALLER, origin: CALLER, to, gasLimit: 100_000n, value: value ?? 0n, data: new Uint8Array() });
          results.push({ ...summary(r), balance: (await evm.stateManager.getAccount(to))?.balance, slot: await evm.stateManager.getStorage(B, SLOT_1) });
        }
        expect(results[1]).toEqual(results[0]);
      });
    }
  });
});
