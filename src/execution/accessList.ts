import type { EVM } from '@ethereumjs/evm';
import { bigIntToUnpaddedBytes, bytesToUnprefixedHex, generateAddress, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../codec/keccak.js';
import { recoverAuthority } from './authorizations.js';
import type { AccessListEntry, CallRequest } from './callArgs.js';
import { CallError, type CallResult, MessageError } from './callResult.js';
import { type OpcodeEntry, opcodeTable } from './evm/opcodeTable.js';
import { encodeTx, type TxType, unsignedTxFields } from './typedTransaction.js';

/**
 * eth_createAccessList as geth computes it (ethereum/go-ethereum `internal/ethapi/api.go`
 * AccessList, `eth/tracers/logger/access_list_tracer.go`): run the message with the list found so
 * far, record the storage slots and addresses it touches, and run again with the larger list until
 * a run touches nothing new (a warm access costs less, so the outcome can change between runs).
 *
 * What a run records, as geth's tracer: every slot of SLOAD/SSTORE (with its contract, whatever the
 * exclusions); the address operand of BALANCE, EXTCODE*, SELFDESTRUCT and the CALL family unless it
 * is the sender, the recipient (or the address a creation makes), a precompile or an authority of
 * the authorization list. The recorder wraps the dynamic gas handlers of those opcodes, which run
 * before their gas is charged, so an opcode that then runs out of gas is recorded as geth's tracer
 * records it (before Berlin, SLOAD and the EXTCODE* of a fixed price are seen only once paid for).
 */

/** The answer of one request: the list, and the gas and failure of the last run. */
export interface AccessListResult {
  accessList: AccessListEntry[];
  gasUsed: bigint;
  /** geth's `vmerr.Error()`: `execution reverted`, `out of gas`, … */
  error?: string;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
const OPCODES: ReadonlyMap<number, string> = new Map([
  [SLOAD, 'SLOAD'],
  [SSTORE, 'SSTORE'],
  [0x31, 'BALANCE'],
  [0x3b, 'EXTCODESIZE'],
  [0x3c, 'EXTCODECOPY'],
  [0x3f, 'EXTCODEHASH'],
  [0xff, 'SELFDESTRUCT'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf4, 'DELEGATECALL'],
  [0xfa, 'STATICCALL'],
]);
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);

interface RunStateView {
  stack: { peek(n?: number): bigint[] };
  interpreter: { getAddress(): { bytes: Uint8Array } };
}

/** Touched addresses (unprefixed hex) and their slots (unprefixed hex, 32 bytes). */
type Touched = Map<string, Set<string>>;

interface Recorder {
  ensure(): void;
  touched?: Touched;
  exclude?: ReadonlySet<string>;
}

/** The recorder of each EVM, hooked once; it records only while a list is being built. */
const recorders = new WeakMap<EVM, Recorder>();

/**
 * Wraps, for each opcode in `names`, its dynamic gas handler where it has one (so that an opcode
 * that then runs out of gas is still seen, as geth's tracer sees it), else its handler. The EVM
 * rebuilds its table on a hardfork change: the returned function wraps what is not yet wrapped.
 */
function hookBeforeGas(evm: EVM, names: ReadonlyMap<number, string>, before: (code: number, rs: RunStateView) => void): () => void {
  const wrapped = new WeakSet<object>();
  return () => {
    const table = opcodeTable(evm);
    for (const [code, name] of names) {
      const entry = table[code];
      if (!entry || entry.opcodeInfo.code !== code || entry.opcodeInfo.name !== name) continue;
      if (entry.opcodeInfo.dynamicGas && entry.gasHandler !== undefined) {
        if (wrapped.has(entry.gasHandler)) continue;
        const original = entry.gasHandler as (rs: RunStateView, gas: bigint, common: unknown) => Promise<bigint> | bigint;
        const hooked = (rs: RunStateView, gas: bigint, common: unknown) => {
          before(code, rs);
          return original(rs, gas, common);
        };
        wrapped.add(hooked);
        entry.gasHandler = hooked as OpcodeEntry['gasHandler'];
      } else {
        if (wrapped.has(entry.opHandler)) continue;
        const original = entry.opHandler as (rs: RunStateView, common: unknown) => unknown;
        const hooked = (rs: RunStateView, common: unknown) => {
          before(code, rs);
          return original(rs, common);
        };
        wrapped.add(hooked);
        entry.opHandler = hooked as OpcodeEntry['opHandler'];
      }
    }
  };
}

function recorderOf(evm: EVM): Recorder {
  let r = recorders.get(evm);
  if (r === undefined) {
    const rec: Recorder = { ensure: () => {} };
    rec.ensure = hookBeforeGas(evm, OPCODES, (code, rs) => {
      const touched = rec.touched;
      if (touched === undefined) return;
      if (code === SLOAD || code === SSTORE) {
        const [slot] = rs.stack.peek(1);
        addSlot(touched, bytesToUnprefixedHex(rs.interpreter.getAddress().bytes), slot!.toString(16).padStart(64, '0'));
        return;
      }
      const operand = CALLS.has(code) ? rs.stack.peek(2)[1]! : rs.stack.peek(1)[0]!;
      const address = (operand & ((1n << 160n) - 1n)).toString(16).padStart(40, '0');
      if (!rec.exclude!.has(address) && !touched.has(address)) touched.set(address, new Set());
    });
    recorders.set(evm, rec);
    r = rec;
  }
  r.ensure();
  return r;
}

function addSlot(touched: Touched, address: string, slot: string): void {
  let slots = touched.get(address);
  if (slots === undefined) {
    slots = new Set();
    touched.set(address, slots);
  }
  slots.add(slot);
}

function sameTouched(a: Touched, b: Touched): boolean {
  if (a.size !== b.size) return false;
  for (const [address, slots] of a) {
    const other = b.get(address);
    if (other === undefined || other.size !== slots.size) return false;
    for (const s of slots) if (!other.has(s)) return false;
  }
  return true;
}

/** geth's `accessList()`: addresses in byte order, each with its slots in byte order. */
function toAccessList(touched: Touched): AccessListEntry[] {
  return [...touched.keys()].sort().map((address) => ({
    address: hexToBytes(`0x${address}`),
    storageKeys: [...touched.get(address)!].sort().map((s) => hexToBytes(`0x${s}`)),
  }));
}

/** The starting list: the request's own, less its excluded addresses (geth's NewAccessListTracer). */
function fromAccessList(list: AccessListEntry[] | undefined, exclude: ReadonlySet<string>): Touched {
  const touched: Touched = new Map();
  for (const entry of list ?? []) {
    const address = bytesToUnprefixedHex(entry.address);
    if (exclude.has(address)) continue;
    if (!touched.has(address)) touched.set(address, new Set());
    for (const key of entry.storageKeys) addSlot(touched, address, bytesToUnprefixedHex(key));
  }
  return touched;
}

/** What {@link buildAccessList} needs besides the EVM: the request after defaults. */
export interface AccessListInputs {
  /** The request with geth's fee defaults, nonce, chain id, gas and value filled in. */
  request: CallRequest & { nonce: bigint; gas: bigint; chainId: bigint };
  from: Uint8Array;
  chainId: bigint;
  /** The fork's precompiles (unprefixed hex). */
  precompiles: readonly string[];
  /** Runs the message with `accessList` on a fresh state, as eth_call does (throws {@link MessageError}). */
  run(accessList: AccessListEntry[]): Promise<CallResult>;
}

/** geth's per-authorization floor used to bound the list of a request (`params.CallNewAccountGas`). */
const CALL_NEW_ACCOUNT_GAS = 25000n;

/** geth's AccessList loop on `evm` (the EVM `inputs.run` runs on). */
export async function buildAccessList(evm: EVM, inputs: AccessListInputs): Promise<AccessListResult> {
  const { request, from } = inputs;
  const to = request.to ?? generateAddress(from, bigIntToUnpaddedBytes(request.nonce));
  const exclude = new Set<string>([bytesToUnprefixedHex(from), bytesToUnprefixedHex(to), ...inputs.precompiles]);
  const auths = request.authorizationList ?? [];
  if (BigInt(auths.length) > request.gas / CALL_NEW_ACCOUNT_GAS) throw new CallError('insufficient gas to process all authorizations');
  for (const auth of auths) {
    if ((auth.chainId !== 0n && auth.chainId !== inputs.chainId) || auth.nonce >= (1n << 64n) - 1n) continue;
    // geth: an authority that cannot be recovered is not excluded
    const authority = recoverAuthority(auth);
    if (authority !== undefined) exclude.add(bytesToUnprefixedHex(authority.bytes));
  }

  const recorder = recorderOf(evm);
  let prev = fromAccessList(request.accessList, exclude);
  for (;;) {
    const accessList = toAccessList(prev);
    const touched = fromAccessList(accessList, exclude);
    recorder.touched = touched;
    recorder.exclude = exclude;
    let result: CallResult;
    try {
      result = await inputs.run(accessList);
    } catch (err) {
      if (err instanceof MessageError) {
        throw new CallError(`failed to apply transaction: ${unsignedTxHash({ ...request, accessList })} err: ${err.reason}`);
      }
      throw err;
    } finally {
      recorder.touched = undefined;
      recorder.exclude = undefined;
    }
    if (sameTouched(touched, prev)) {
      const error = result.failure === undefined ? undefined : result.failure.kind === 'revert' ? 'execution reverted' : result.failure.message;
      return { accessList, gasUsed: result.gasUsed, ...(error === undefined ? {} : { error }) };
    }
    prev = touched;
  }
}

/**
 * The hash geth names in `failed to apply transaction: <hash>`: the unsigned transaction its
 * `ToTransaction(LegacyTxType)` builds of the request (type by the fields given; signature zero).
 */
export function unsignedTxHash(r: AccessListInputs['request']): string {
  // geth's ToTransaction(LegacyTxType): a gas price makes it legacy, else the newest type its fields ask for
  let type: TxType = 1;
  if (r.gasPrice !== undefined) type = 0;
  else if (r.authorizationList !== undefined) type = 4;
  else if (r.blobVersionedHashes !== undefined) type = 3;
  else if (r.maxFeePerGas !== undefined) type = 2;
  return bytesToHash(keccak256(encodeTx(type, unsignedTxFields(type, r))));
}

function bytesToHash(b: Uint8Array): string {
  return `0x${bytesToUnprefixedHex(b)}`;
}
