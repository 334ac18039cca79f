import type { StateManagerInterface } from '@ethereumjs/common';
import { type EVM, EVMError } from '@ethereumjs/evm';
import { Account, type Address, createZeroAddress } from '@ethereumjs/util';
import { type InterpreterInstance, type JumpAnalyzer, loadInterpreter } from './interpreter.js';
import type { OpcodeEntry } from './opcodeTable.js';
import { checkFingerprint, unsupported } from './upstream.js';

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
