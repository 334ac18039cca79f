import { createHash } from 'node:crypto';
import type { StateManagerInterface } from '@ethereumjs/common';
import { type EVM, EVMError, type Message, NobleBLS } from '@ethereumjs/evm';
import { Account, type Address, createZeroAddress } from '@ethereumjs/util';

/**
 * Every use of @ethereumjs private fields, in one place with `ethereumjsCommon.ts` (the
 * Common's). They are not part of the packages' API and a release may rename them without notice
 * (the versions pinned in package.json were read);
 * each accessor checks what it finds and throws an Error naming the field rather than carrying on
 * with a silently wrong EVM (every EIP off, an unhooked opcode, a run on the previous state).
 */

/** Thrown when a private field this file relies on is missing or has changed shape. */
export function unsupported(pkg: string, field: string, use: string): Error {
  return new Error(`unsupported ${pkg}: ${field} (${use}) is missing or has changed; see src/execution/ethereumjsInternals.ts and ethereumjsCommon.ts`);
}

/**
 * Gives `evm` the BLS12-381 backend of the EIP-2537 precompiles when it has none. @ethereumjs/evm
 * 10.1.3 makes it (its private `_bls`) only when EIP-2537 is active in the Common the EVM is
 * built with (read in `evm.ts`, the constructor): an EVM built before Prague that then runs Prague
 * blocks — the importer's VM from the genesis on, a replay's built at the chain's first fork —
 * failed every call to the seven precompiles 0x0b..0x11 (the call takes all its gas), as Sepolia
 * block 10,100,112 showed. Throws when `_bls` is no longer where a precompile reads it.
 */
export function withBlsBackend(evm: EVM): void {
  const self = evm as unknown as Record<string, unknown>;
  if (self._bls !== undefined) return;
  if (!('_bn254' in self)) throw unsupported('@ethereumjs/evm', 'EVM._bls', 'the BLS12-381 backend of the EIP-2537 precompiles');
  const bls = new NobleBLS();
  (bls as { init?: () => void }).init?.();
  self._bls = bls;
}

/*
 * anvil's state (`execution/loadedState.ts`): anvil keeps every storage slot a transaction reached
 * and every account it looked up, zero or empty, where the specification removes them.
 */

/** What the storage hooks use of a MerkleStateManager. */
interface StorageWriter {
  _caches?: { storage?: unknown };
  _writeContractStorage(address: Address, account: Account, key: Uint8Array, value: Uint8Array): Promise<void>;
  _modifyContractStorage(
    address: Address,
    account: Account,
    modify: (trie: { put(k: Uint8Array, v: Uint8Array): Promise<void> }, done: () => void) => void,
  ): Promise<void>;
}

/**
 * Makes `sm` (a MerkleStateManager) write a zero into a storage trie as a leaf holding rlp(0) =
 * 0x80 instead of deleting the key, as anvil does; a non-zero value is written as before. Every
 * storage write reaches the trie through `_writeContractStorage` (`putStorage` without caches, or
 * the storage cache's `flush`). Throws when the method is not the pinned release's, or
 * `_modifyContractStorage` is missing.
 */
export function keepZeroStorageLeaves(sm: StateManagerInterface): void {
  const self = sm as unknown as Partial<StorageWriter>;
  checkFingerprint('MerkleStateManager._writeContractStorage', self._writeContractStorage);
  const modify = self._modifyContractStorage;
  if (typeof modify !== 'function') throw unsupported('@ethereumjs/statemanager', 'MerkleStateManager._modifyContractStorage', 'the trie a write goes to');
  const write = self._writeContractStorage as StorageWriter['_writeContractStorage'];
  self._writeContractStorage = async (address, account, key, value) => {
    if (value instanceof Uint8Array && value.length > 0) return write.call(sm, address, account, key, value);
    // As the original's deletion: the trie is changed in the callback, which calls `done` to store it.
    return modify.call(sm, address, account, async (trie, done) => {
      await trie.put(key, Uint8Array.of(0x80));
      done();
    });
  };
}

/**
 * Makes `sm` keep every storage slot a transaction read or wrote in a frame that did not revert
 * as a leaf, a zero as 0x80 ({@link keepZeroStorageLeaves}): MerkleStateManager's storage cache
 * writes back at the end of a block every slot its `getStorage` read (a read enters the cache's
 * diff as a write does, and a revert drops both). Throws when `getStorage` is not the pinned
 * release's, or `sm` has no storage cache.
 */
export function keepLoadedSlots(sm: StateManagerInterface): void {
  checkFingerprint('MerkleStateManager.getStorage', (Object.getPrototypeOf(sm) as Partial<StateManagerInterface> | null)?.getStorage);
  if ((sm as unknown as StorageWriter)._caches?.storage === undefined) throw new Error('keepLoadedSlots: the state manager has no storage cache');
  keepZeroStorageLeaves(sm);
}

/**
 * Replaces EIP-161's clearing in `evm`'s journal: its `cleanup` (at the end of each transaction,
 * after the system writes and the withdrawals) first awaits `atCleanup` with the accounts touched
 * since the last one (unprefixed hex), then deletes none of them. Throws when the journal has no
 * `touched` set or its `cleanup` is not the pinned release's.
 */
export function keepTouchedAccounts(evm: EVM, atCleanup: (touched: ReadonlySet<string>) => Promise<void>): void {
  const journal = evm.journal as unknown as { touched?: unknown; cleanup?: unknown };
  if (!(journal.touched instanceof Set)) throw unsupported('@ethereumjs/evm', 'Journal.touched', 'the accounts a transaction touched');
  checkFingerprint('Journal.cleanup', journal.cleanup);
  const cleanup = journal.cleanup as () => Promise<void>;
  journal.cleanup = async () => {
    // A new set each time the journal is cleaned (cleanJournal): read at each cleanup.
    const touched = journal.touched as Set<string>;
    await atCleanup(touched);
    touched.clear();
    return cleanup.call(journal);
  };
}

/** The parts of an entry of @ethereumjs/evm's opcode table that opcode hooks touch. */
export interface OpcodeEntry {
  opcodeInfo: { code: number; name: string; isAsync: boolean; dynamicGas?: boolean };
  opHandler: (runState: never, common: unknown) => unknown;
  /** The dynamic gas handler (opcodes with `opcodeInfo.dynamicGas`), run before the gas is charged. */
  gasHandler?: (runState: never, gas: bigint, common: unknown) => Promise<bigint> | bigint;
}

/**
 * The EVM's opcode table (`_opcodeMap`, indexed by opcode), whose handlers `opcodeHooks.ts` wraps.
 * It is rebuilt when the EVM changes hardfork, so it is read again before each run.
 */
export function opcodeTable(evm: EVM): OpcodeEntry[] {
  const table = (evm as unknown as { _opcodeMap?: unknown })._opcodeMap;
  if (!Array.isArray(table)) throw unsupported('@ethereumjs/evm', 'EVM._opcodeMap', 'the opcode table to hook');
  return table as OpcodeEntry[];
}

/**
 * Points a reused EVM at a new state for its next run: the EVM's `stateManager` (public) and its
 * journal's private `stateManager`, which the journal reads and writes through and which
 * @ethereumjs/evm sets only in its constructor; then clears the journal and transient storage left
 * by the previous run.
 */
export function pointEvmAt(evm: EVM, stateManager: StateManagerInterface): void {
  const journal = evm.journal as unknown as { stateManager?: StateManagerInterface };
  if (journal.stateManager === undefined) throw unsupported('@ethereumjs/evm', 'Journal.stateManager', 'the state the journal writes to');
  evm.stateManager = stateManager;
  journal.stateManager = stateManager;
  evm.journal.cleanJournal();
  evm.transientStorage.clear();
}

/**
 * Warms `addresses` (unprefixed lowercase hex) for the run, as `journal.addAlwaysWarmAddress` does,
 * straight into the journal's private `alwaysWarmJournal` map: the method checks each string with a
 * regular expression first, which for a fork's precompiles on every call cost more than the rest.
 */
export function warmAddresses(evm: EVM, addresses: readonly string[]): void {
  const warm = (evm.journal as unknown as { alwaysWarmJournal?: unknown }).alwaysWarmJournal;
  if (!(warm instanceof Map)) throw unsupported('@ethereumjs/evm', 'Journal.alwaysWarmJournal', 'the addresses warm for the whole run');
  for (const address of addresses) if (!warm.has(address)) warm.set(address, new Set());
}

/*
 * The call fast paths. @ethereumjs/evm 10.1.3 spends most of a simple view call outside the
 * bytecode: `runInterpreter` analyses the code's jump destinations again on every run (a pass over
 * the whole code that allocates an array entry per byte and a bigint per PUSH), and it and
 * `_executeCall` copy objects with spreads after other properties (`{ ...a, ...b }`,
 * `{ ...{ codeAddress }, ...message, gasLimit }`), which V8 in Node 20 runs on a slow path: each
 * costs ~15 µs on a 17-field message. `installCallFastPaths` gives an EVM instance its own copies
 * of these two methods that build the same objects with Object.assign and take the jump analysis
 * from a cache. The copies are of the pinned release: each original's source is fingerprinted and
 * a release whose method differs is refused with the method's name.
 */

/** @ethereumjs/evm's jump analysis of one code (Interpreter._getValidJumpDestinations). */
export interface JumpAnalysis {
  /** 1 at each valid JUMPDEST. */
  jumps: Uint8Array;
  /** The value each PUSH pushes, by the offset of its first immediate byte. */
  pushes: Record<number, bigint>;
  /** The opcode table entry of each byte (of the EVM that analysed it). */
  opcodesCached: OpcodeEntry[];
}

/**
 * Answers a jump analysis for `code` on an EVM whose opcode table is `table`: from a cache, or by
 * calling `analyze` (the interpreter's own analysis).
 */
export type JumpAnalyzer = (code: Uint8Array, table: OpcodeEntry[], analyze: () => JumpAnalysis) => JumpAnalysis;

/** What the fast paths use of an @ethereumjs/evm Interpreter instance. */
interface InterpreterInstance {
  _result: { selfdestruct?: unknown; createdAddresses?: unknown; returnValue?: Uint8Array; logs?: unknown };
  _env: object;
  _getValidJumpDestinations: (code: Uint8Array) => JumpAnalysis;
  run(
    code: unknown,
    opts: unknown,
  ): Promise<{ runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }; exceptionError?: { error: string } }>;
}
type InterpreterClass = new (...args: unknown[]) => InterpreterInstance;

/**
 * sha256 (first 16 hex digits) of the source of each method copied, or replaced in part, here
 * (the call fast paths; anvil's state), as the pinned release ships it (dist/esm): its package,
 * digest and use.
 */
const FINGERPRINTS = {
  'EVM.runInterpreter': ['@ethereumjs/evm', '1f4905264075376d', 'a method the call fast paths copy'],
  'EVM._executeCall': ['@ethereumjs/evm', 'f2358d2eeecc46e1', 'a method the call fast paths copy'],
  'Interpreter._getValidJumpDestinations': ['@ethereumjs/evm', 'a30ec99e04e322ec', 'a method the call fast paths copy'],
  'MerkleStateManager._writeContractStorage': [
    '@ethereumjs/statemanager',
    '744ac1ba06cc4d1c',
    'the storage write whose deletion of a zero anvil state replaces',
  ],
  'MerkleStateManager.getStorage': ['@ethereumjs/statemanager', 'c3078f8687c5f506', 'the storage read whose caching anvil state relies on'],
  'Journal.cleanup': ['@ethereumjs/evm', 'caf804e35c079fe0', 'the EIP-161 clearing anvil state replaces'],
} as const;

/** Checks that `fn` is the method `name` of the release this file was written against. */
export function checkFingerprint(name: keyof typeof FINGERPRINTS, fn: unknown): void {
  const [pkg, digest, use] = FINGERPRINTS[name];
  if (typeof fn !== 'function' || fingerprint(fn) !== digest) throw unsupported(pkg, name, use);
}

const fingerprints = new WeakMap<object, string>();
function fingerprint(fn: object): string {
  let digest = fingerprints.get(fn);
  if (digest === undefined) {
    digest = createHash('sha256').update(String(fn)).digest('hex').slice(0, 16);
    fingerprints.set(fn, digest);
  }
  return digest;
}

let interpreterClass: Promise<InterpreterClass> | undefined;

/**
 * @ethereumjs/evm's Interpreter class, which the package does not export: loaded from the module
 * beside the package's entry point (the same module instance the EVM uses).
 */
export function loadInterpreter(): Promise<InterpreterClass> {
  interpreterClass ??= (async () => {
    const entry = import.meta.resolve('@ethereumjs/evm');
    const mod = (await import(new URL('./interpreter.js', entry).href)) as { Interpreter?: InterpreterClass };
    const cls = mod.Interpreter;
    if (typeof cls !== 'function') throw unsupported('@ethereumjs/evm', 'Interpreter (dist/esm/interpreter.js)', 'the interpreter the call fast paths run');
    checkFingerprint('Interpreter._getValidJumpDestinations', cls.prototype._getValidJumpDestinations);
    return cls;
  })();
  return interpreterClass;
}

/** The private EVM fields and methods the copies use. */
interface EvmPrivates {
  stateManager: StateManagerInterface;
  blockchain: unknown;
  journal: unknown;
  _tx?: { gasPrice: bigint; origin?: Address };
  _block?: unknown;
  _optsCached: { profiler?: { enabled?: boolean } };
  performanceLogger: unknown;
  DEBUG: boolean;
  _opcodeMap: OpcodeEntry[];
  _reduceSenderBalance(account: Account, message: MessageFields): Promise<void>;
  _addToBalance(account: Account, message: MessageFields): Promise<void>;
  _loadCode(message: MessageFields): Promise<void>;
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<{ gasRefund?: bigint; executionGasUsed: bigint }>;
  postMessageCleanup(): void;
  runInterpreter(message: MessageFields, opts?: { initialLogs?: unknown }): Promise<{ executionGasUsed: bigint; gasRefund?: bigint }>;
  _executeCall(message: MessageFields): Promise<{ execResult: unknown }>;
}

/** The fields of an @ethereumjs/evm Message (or of the plain copy `_executeCall` makes of one). */
interface MessageFields {
  to?: Address;
  caller: Address;
  value: bigint;
  gasLimit: bigint;
  data: Uint8Array;
  code?: Uint8Array | ((...args: unknown[]) => unknown);
  codeAddress: Address;
  depth: number;
  isStatic: boolean;
  isCreate?: boolean;
  isCompiled: boolean;
  delegatecall: boolean;
  gasRefund: bigint;
  selfdestruct?: Map<string, Uint8Array>;
  createdAddresses?: Set<string>;
  chargeCodeAccesses?: boolean;
  blobVersionedHashes?: `0x${string}`[];
  accessWitness?: { commit(): void };
}

/** EIPs whose code in `_executeCall` the fast copy leaves out: with any active, the original runs. */
const EIPS_OUTSIDE_FAST_CALL = [6800, 7864, 2780, 7708, 7928, 8037];

/**
 * Gives `evm` (one of the call engine's own) fast copies of `runInterpreter` and `_executeCall` as
 * instance methods, with the jump analysis from `analyzer`. Throws when the EVM's methods are not
 * those of the release the copies were made from.
 */
export async function installCallFastPaths(evm: EVM, analyzer: JumpAnalyzer): Promise<void> {
  const Interpreter = await loadInterpreter();
  const self = evm as unknown as EvmPrivates;
  const proto = Object.getPrototypeOf(evm) as EvmPrivates;
  checkFingerprint('EVM.runInterpreter', proto.runInterpreter);
  checkFingerprint('EVM._executeCall', proto._executeCall);
  for (const field of ['_optsCached', 'performanceLogger', 'journal', '_opcodeMap'] as const) {
    if (!(field in self)) throw unsupported('@ethereumjs/evm', `EVM.${field}`, 'read by the call fast paths');
  }
  const originalRunInterpreter = proto.runInterpreter;
  const originalExecuteCall = proto._executeCall;
  const common = evm.common;

  // EVM.runInterpreter of @ethereumjs/evm 10.1.3, with Object.assign for the spreads, the jump
  // analysis from the analyzer, and the merged `runState` of the result only for a failed frame.
  self.runInterpreter = async function runInterpreter(message: MessageFields, opts: { initialLogs?: unknown } = {}) {
    // runCall and runCode set _tx and _block first; anything else (or the profiler) gets the original.
    if (self._block === undefined || self._tx === undefined || self._optsCached.profiler?.enabled === true)
      return originalRunInterpreter.call(self, message, opts);
    const contract = (await self.stateManager.getAccount(message.to ?? createZeroAddress())) ?? new Account();
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? 0n,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: self._tx.gasPrice,
      origin: self._tx.origin ?? message.caller ?? createZeroAddress(),
      block: self._block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    };
    const interpreter = new Interpreter(
      self,
      self.stateManager,
      self.blockchain,
      env,
      message.gasLimit,
      self.journal,
      self.performanceLogger,
      self._optsCached.profiler,
    );
    const analyze = interpreter._getValidJumpDestinations;
    interpreter._getValidJumpDestinations = (code: Uint8Array) => analyzer(code, self._opcodeMap, () => analyze.call(interpreter, code));
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct;
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses;
    const interpreterRes = await interpreter.run(message.code, opts);
    let result: InterpreterInstance['_result'] = interpreter._result;
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft;
    if (interpreterRes.exceptionError) {
      const error = interpreterRes.exceptionError.error;
      if (error !== EVMError.errorMessages.REVERT && error !== EVMError.errorMessages.INVALID_EOF_FORMAT) gasUsed = message.gasLimit;
      // Clear the result on error
      result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() });
    }
    message.accessWitness?.commit();
    return Object.assign({}, result, {
      // The frame's final state merged with its result and environment (~7 µs to build: ~40
      // fields): only the error texts of a failed frame read it, so a successful frame has none.
      runState: interpreterRes.exceptionError ? Object.assign({}, interpreterRes.runState, result, interpreter._env) : undefined,
      exceptionError: interpreterRes.exceptionError,
      gas: interpreterRes.runState?.gasLeft,
      executionGasUsed: gasUsed,
      gasRefund: interpreterRes.runState.gasRefund,
      stateGasSpilled: interpreterRes.runState.stateGasSpilled,
      returnValue: result.returnValue ?? new Uint8Array(0),
    });
  } as EvmPrivates['runInterpreter'];

  // EVM._executeCall of @ethereumjs/evm 10.1.3 for forks without the EIPs it special-cases after
  // Prague (Verkle/binary-tree witnesses, EIP-2780/7708/7928/8037), in debug mode or profiling: the
  // same steps, with Object.assign for the copy of the message the interpreter gets.
  self._executeCall = async function _executeCall(message: MessageFields) {
    if (self.DEBUG || self._optsCached.profiler?.enabled === true || EIPS_OUTSIDE_FAST_CALL.some((eip) => common.isActivatedEIP(eip))) {
      return originalExecuteCall.call(self, message);
    }
    const gasLimit = message.gasLimit;
    const account = (await self.stateManager.getAccount(message.caller)) ?? new Account();
    let errorMessage: unknown;
    // Reduce tx value from sender
    if (!message.delegatecall) {
      try {
        await self._reduceSenderBalance(account, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    // Load `to` account
    const toAccount = (await self.stateManager.getAccount(message.to!)) ?? new Account();
    // Add tx value to the `to` account
    if (!message.delegatecall) {
      try {
        await self._addToBalance(toAccount, message);
      } catch (e) {
        errorMessage = e;
      }
    }
    await self._loadCode(message);
    const code = message.code;
    if (!code || (typeof code !== 'function' && code.length === 0) || errorMessage !== undefined) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: message.gasLimit - gasLimit,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: undefined,
        },
      };
    }
    let result: { executionGasUsed: bigint; gasRefund?: bigint };
    if (message.isCompiled) {
      result = await self.runPrecompile(code, message.data, gasLimit);
      result.gasRefund = message.gasRefund;
    } else {
      result = await self.runInterpreter(Object.assign({ codeAddress: message.codeAddress }, message, { gasLimit }), { initialLogs: undefined });
    }
    if (message.depth === 0) self.postMessageCleanup();
    result.executionGasUsed += message.gasLimit - gasLimit;
    return { execResult: result };
  } as EvmPrivates['_executeCall'];
}

/**
 * The address a creation message will create at, as the EVM derives it (`_generateAddress`: the
 * caller's nonce, or CREATE2's salt and code), for tracers that see the message before the EVM
 * assigns its `to`. Called from a `beforeMessage` listener it gives what the EVM computes next.
 */
export async function createdAddress(evm: EVM, message: unknown): Promise<Address> {
  const generate = (evm as unknown as { _generateAddress?: (m: unknown) => Promise<Address> })._generateAddress;
  if (typeof generate !== 'function') throw unsupported('@ethereumjs/evm', 'EVM._generateAddress', 'the address a creation makes');
  return generate.call(evm, message);
}

/**
 * The address whose code a CALLCODE or DELEGATECALL message runs (the callee: its `to` stays the
 * calling contract); undefined for every other message. @ethereumjs/evm keeps it in Message's
 * private `_codeAddress`, set by the constructor (to undefined when none is given); the public
 * `codeAddress` getter cannot tell the two apart, as it falls back to `to` (and throws for a
 * creation). Throws if a message has no such field or holds something else than an address in it.
 */
export function borrowedCodeAddress(message: Message): Address | undefined {
  const fields = message as unknown as { _codeAddress?: unknown };
  const address = fields._codeAddress;
  if (address === undefined && '_codeAddress' in fields) return undefined;
  if (!((address as { bytes?: unknown } | null)?.bytes instanceof Uint8Array)) {
    throw unsupported('@ethereumjs/evm', 'Message._codeAddress', 'the code a CALLCODE or DELEGATECALL runs');
  }
  return address as Address;
}

/**
 * The first `length` bytes of an @ethereumjs/evm Memory (a frame's memory: `length` is its word
 * count times 32), a view without a copy. The public `read(offset, size)` would extend the memory
 * to the range read: this reads the private `_store` (which grows in 8 KiB steps) as it is.
 * Throws if the memory has no `_store` array.
 */
export function memoryBytes(memory: unknown, length: number): Uint8Array {
  const store = (memory as { _store?: unknown } | undefined)?._store;
  if (!(store instanceof Uint8Array)) throw unsupported('@ethereumjs/evm', 'Memory._store', 'the bytes of an EVM memory');
  return store.subarray(0, length);
}
