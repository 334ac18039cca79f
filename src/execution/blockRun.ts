import { type Block, genRequestsRoot } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { Address, bigIntToAddressBytes, bytesToHex, CLRequest, CLRequestType, equalsBytes } from '@ethereumjs/util';
import { createVM, type RunBlockOpts, type RunBlockResult, runBlock, type VM, type VMOpts } from '@ethereumjs/vm';
import { sha256 } from 'ethereum-cryptography/sha256.js';
import { DomainError } from '../errors/domainError.js';
import { withBlsBackend } from './evm/bls.js';
import { installCallFastPaths } from './evm/callFastPaths.js';
import { eipActive, hidesRequestCalls, withoutRequestCalls, withoutSystemWrites } from './evm/common.js';
import { useFastOpcodes } from './evm/fastOpcodes.js';
import { codeArrayAnalyzer } from './evm/jumpAnalysis.js';

/**
 * A block run as the specification runs it, on @ethereumjs/vm's runBlock. One difference from
 * runBlock: the EIP-7002 and EIP-7251 request system calls. The specification (execution-specs
 * `process_checked_system_transaction`, Prague) makes each one a message from the system address
 * that transfers no value, so the system address is never read, written or touched; a block is
 * invalid when the contract has no code or its call fails. @ethereumjs/vm 10.1.3 reads and writes
 * the system address around each call, and ignores a missing contract or a failed call.
 *
 * The VM's Common hides the two EIPs from runBlock ({@link blockVmCommon}), and
 * {@link executeBlock} makes the calls after runBlock, where runBlock would have made them: after
 * the transactions and the withdrawals, last before the state root. The state root is then read
 * again and the requests hash computed over the deposits runBlock found and the two calls'
 * outputs.
 */

/** The request system calls of EIP-7002 and EIP-7251, in request-type order. */
const REQUEST_CALLS = [
  { eip: 7002, type: CLRequestType.Withdrawal, param: 'withdrawalRequestPredeployAddress', what: 'EIP-7002 withdrawal requests' },
  { eip: 7251, type: CLRequestType.Consolidation, param: 'consolidationRequestPredeployAddress', what: 'EIP-7251 consolidation requests' },
] as const;

/** A block that breaks a request system call's rules (no code at the contract, or a failed call): the block is invalid. */
export class SystemCallError extends DomainError {
  override readonly name = 'SystemCallError';
}

/** How a chain's blocks are held to the rules of the request system calls. */
export interface BlockRunRules {
  /**
   * A request contract without code gives no requests instead of making the block invalid: what
   * development nodes do (anvil's Prague chains have no code there), under lenient header checks.
   */
  emptySystemContracts?: boolean;
}

/**
 * The Common for a VM that executes blocks: a copy of `common` whose request system calls are
 * made by {@link executeBlock}, or, for a chain made without the EIP-4788 and EIP-2935 system
 * writes (Hardhat), one without those writes, whose blocks runBlock itself checks and whose
 * request calls it makes its own way.
 */
export function blockVmCommon(common: Common, systemWrites = true): Common {
  return systemWrites ? withoutRequestCalls(common) : withoutSystemWrites(common);
}

/**
 * A VM for executing blocks, as createVM builds it, with the BLS12-381 backend of the EIP-2537
 * precompiles whatever fork its Common starts on (`withBlsBackend`): a VM is built at the fork of
 * the first block it runs and then runs every later fork too.
 *
 * `fastPaths` (the importer's `import.evmFastPaths`) gives its EVM the call engine's copies of
 * the interpreter entry points and its faster MSTORE (`evm/README.md`), with jump analyses kept
 * per code array ({@link codeArrayAnalyzer}). The Common's EIP lookups stay the library's: a
 * block VM's Common changes fork from block to block, and copies of it are made as it does.
 */
export async function createBlockVM(opts: VMOpts, fastPaths = false): Promise<VM> {
  const vm = await createVM(opts);
  withBlsBackend(vm.evm as EVM);
  if (fastPaths) {
    await installCallFastPaths(vm.evm as EVM, codeArrayAnalyzer());
    useFastOpcodes(vm.evm as EVM);
  }
  return vm;
}

/**
 * Runs `opts.block` on `vm` as runBlock does, with the request system calls made as specified when
 * `vm`'s Common hides them ({@link blockVmCommon}). Without `generate`, the block's requests hash
 * and state root are checked as runBlock checks them, with runBlock's words. Throws
 * {@link SystemCallError} for a block that breaks a system call's rules.
 */
export async function executeBlock(vm: VM, opts: RunBlockOpts & BlockRunRules): Promise<RunBlockResult> {
  const { block } = opts;
  const calls = hidesRequestCalls(vm.common) ? REQUEST_CALLS.filter((c) => eipActive(block.common, c.eip)) : [];
  if (calls.length === 0) return runBlock(vm, opts);
  // runBlock compares the roots it computed before the calls: the comparison is made here instead.
  const result = await runBlock(vm, { ...opts, generate: true });
  const requests = [...(result.requests ?? [])];
  for (const call of calls) requests.push(new CLRequest(call.type, await requestCall(vm, block, call, opts.emptySystemContracts === true)));
  const stateRoot = await vm.stateManager.getStateRoot();
  const requestsHash = genRequestsRoot(requests, vm.common.customCrypto.sha256 ?? sha256);
  if (opts.generate !== true) {
    if (block.header.requestsHash === undefined || !equalsBytes(block.header.requestsHash, requestsHash)) {
      throw new Error(`invalid requestsHash (block ${block.header.number}): got ${bytesToHex(requestsHash)}`);
    }
    if (!equalsBytes(stateRoot, block.header.stateRoot)) {
      throw new Error(`invalid block stateRoot, got: ${bytesToHex(stateRoot)}, want: ${bytesToHex(block.header.stateRoot)} (block ${block.header.number})`);
    }
  }
  return { ...result, stateRoot, requestsHash, requests };
}

/**
 * One request system call: the contract's code run as a message from the system address with no
 * value, 30,000,000 gas (`systemCallGasLimit`) and no input, its writes kept; the call's output.
 */
async function requestCall(vm: VM, block: Block, call: (typeof REQUEST_CALLS)[number], emptyAllowed: boolean): Promise<Uint8Array> {
  const common = vm.common;
  const address = new Address(bigIntToAddressBytes(common.param(call.param)));
  const code = await vm.stateManager.getCode(address);
  if (code.length === 0 && emptyAllowed) return new Uint8Array();
  if (code.length === 0) throw new SystemCallError(`system contract empty: no code at ${address} (${call.what})`);
  const system = new Address(bigIntToAddressBytes(common.param('systemAddress')));
  const evm = vm.evm;
  await evm.journal.checkpoint();
  // runCode runs the code on the contract's account without reading or touching the caller's.
  const result = await evm.runCode({
    block: block as never,
    caller: system,
    origin: system,
    to: address,
    code,
    data: new Uint8Array(),
    gasLimit: common.param('systemCallGasLimit'),
    depth: 0,
  });
  if (result.exceptionError !== undefined) {
    await evm.journal.revert();
    throw new SystemCallError(`system contract call failed: ${address} (${call.what}): ${result.exceptionError.error}`);
  }
  await evm.journal.commit();
  return result.returnValue;
}
