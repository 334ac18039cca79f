import { type BlockHeader, createBlockHeader, type HeaderData } from '@ethereumjs/block';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVM, EVMMockBlockchainInterface, EVMResult, Log, Message } from '@ethereumjs/evm';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  bigIntToBytes,
  bigIntToUnpaddedBytes,
  concatBytes,
  type DB,
  KECCAK256_RLP,
  KECCAK256_RLP_ARRAY,
  setLengthLeft,
} from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { sha256 } from 'ethereum-cryptography/sha256.js';
import { evmBlockchain } from '../chain/blockHashes.js';
import type { ChainStore } from '../chain/store.js';
import { bigIntToQuantity, bytesToData } from '../codec/hex.js';
import { type BlockContext, evmBlock } from './blockContext.js';
import type { AccountOverride, BlockOverrides, CallRequest } from './callArgs.js';
import { CallError, MessageError } from './callResult.js';
import { createdAddress, pointEvmAt } from './ethereumjsInternals.js';
import type { EvmPool } from './evmPool.js';
import type { Forks } from './forks.js';
import { callMessage } from './message.js';
import { hookOpcodes, type OpcodeHooks } from './opcodeHooks.js';
import { revertMessage } from './revert.js';
import { precompileEdits } from './stateOverrides.js';
import { applyMessage } from './transition.js';
import { overlayTrie } from './trieOverlay.js';

/**
 * eth_simulateV1 as geth runs it (ethereum/go-ethereum `internal/ethapi/simulate.go`): a chain of
 * blocks on top of a stored block, each with block overrides, state overrides and calls run as
 * transactions (nonces, gas refunds, tips to the fee recipient, EIP-161 clean-up), assembled into
 * blocks whose roots and hashes are computed as a client computes them: the state trie (an
 * in-memory overlay over the archive's trie), the transactions of the unsigned transactions geth
 * builds of the calls, the receipts, the withdrawals and the EIP-7685 requests hash.
 *
 * Before each block's calls: the EIP-4788 beacon root and the EIP-2935 parent hash are stored as
 * their system contracts store them. After them: the EIP-7002/7251 request contracts are called
 * as geth's system calls (their output is the block's requests), then withdrawals are credited.
 * EIP-6110 deposit requests come from the deposit contract's logs.
 */

/** One block of the request, as decoded. */
export interface SimBlock {
  blockOverrides?: BlockOverrides;
  stateOverrides?: AccountOverride[];
  calls: CallRequest[];
}

export interface SimulateRequest {
  blocks: SimBlock[];
  traceTransfers: boolean;
  validation: boolean;
  returnFullTransactions: boolean;
}

/** A failure geth answers with its own code (-38xxx, -32602, -32603…). */
export class SimulateError extends Error {
  override readonly name = 'SimulateError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a simulation needs of the engine and the worker. */
export interface SimulateDeps {
  store: ChainStore;
  /** The archive's trie nodes (read only; a simulation's nodes stay in its own overlay). */
  stateDb: DB<string, string | Uint8Array>;
  forks: Forks;
  evms: EvmPool;
  /** The gas all calls of the request may use together (geth's `--rpc.gascap` budget). */
  gasBudget: bigint;
  /** The EIP-6110 deposit contract (geth's `DepositContractAddress`). */
  depositContract: Uint8Array;
}

const MAINNET_DEPOSIT_CONTRACT = '00000000219ab540356cbb839cbe05303d7705fa';

/**
 * The deposit contract of a chain, as geth's chain config has it: the genesis config's
 * `depositContractAddress`, mainnet's for chain id 1 without one, else the zero address.
 */
export function depositContractOf(config: Record<string, unknown>): Uint8Array {
  const given = config.depositContractAddress;
  if (typeof given === 'string' && /^0x[0-9a-fA-F]{40}$/.test(given)) return hexBytes(given.slice(2).toLowerCase());
  return config.chainId === 1 ? hexBytes(MAINNET_DEPOSIT_CONTRACT) : new Uint8Array(20);
}

/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"), the deposit contract's event. */
const DEPOSIT_TOPIC = hexBytes('649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5');

/**
 * EIP-6110 deposit requests of a block's logs, as geth's ParseDepositLogs: each DepositEvent of the
 * deposit contract gives pubkey ‖ withdrawal credentials ‖ amount ‖ signature ‖ index, read from the
 * event's fixed ABI layout (576 bytes; another layout fails the request as geth's does).
 */
function depositRequests(logs: Log[], contract: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [address, topics, data] of logs) {
    if (!equalBytes(address, contract) || topics.length === 0 || !equalBytes(topics[0]!, DEPOSIT_TOPIC)) continue;
    if (data.length !== 576) throw new CallError(`unable to parse deposit data: deposit wrong length: want 576, have ${data.length}`);
    parts.push(data.subarray(192, 240), data.subarray(288, 320), data.subarray(352, 360), data.subarray(416, 512), data.subarray(544, 552));
  }
  return concatBytes(...parts);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const TIMESTAMP_INCREMENT = 12n;
const ZERO32 = new Uint8Array(32);
const BEACON_ROOTS = new Address(hexBytes('000f3df6d732807ef1319fb7b8bb8522d0beac02'));
const HISTORY_STORAGE = new Address(hexBytes('0000f90827f1c53a10cb7a02335b175320002935'));
const HISTORY_SERVE_WINDOW = 8191n;
const SYSTEM_ADDRESS = new Address(hexBytes('fffffffffffffffffffffffffffffffffffffffe'));
/** EIP-7002 withdrawal and EIP-7251 consolidation request contracts, with their request types. */
const REQUEST_CONTRACTS: Array<[number, Address]> = [
  [0x01, new Address(hexBytes('00000961ef480eb55e80d19ad83579a64c007002'))],
  [0x02, new Address(hexBytes('0000bbddc7ce488642fb579f8b00f3a590007251'))],
];
const SYSTEM_CALL_GAS = 30_000_000n;
const BEACON_ROOTS_LENGTH = 8191n;
/** ERC-7528: the pseudo-address of ETH transfer logs, and the ERC-20 Transfer topic. */
const TRANSFER_LOG_ADDRESS = hexBytes('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
const TRANSFER_TOPIC = hexBytes('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** A log as the simulation reports it: its place in the block's count of logs (geth's tracer). */
interface SimLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  index: number;
}

/**
 * geth's simulation log tracer (`internal/ethapi/logtracer.go`): logs in the order emitted, a
 * frame's logs dropped when it fails, ERC-7528 transfer logs (from 0xeeee…) for value moved by
 * calls, creations and SELFDESTRUCT when `traceTransfers`; numbered block-wide, dropped ones included.
 */
class LogTracer {
  frames: SimLog[][] = [];
  count = 0;
  constructor(readonly traceTransfers: boolean) {}
  reset(): void {
    this.frames = [];
  }
  capture(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    this.frames[this.frames.length - 1]?.push({ address, topics, data, index: this.count++ });
  }
  transfer(from: Uint8Array, to: Uint8Array, value: bigint): void {
    if (this.traceTransfers)
      this.capture(TRANSFER_LOG_ADDRESS, [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)], setLengthLeft(bigIntToBytes(value), 32));
  }
  enter(message: Message, created?: Address): void {
    this.frames.push([]);
    if (message.to === undefined) {
      if (message.value > 0n && created !== undefined) this.transfer(message.caller.bytes, created.bytes, message.value);
      return;
    }
    const callcode = message.to?.equals(message.caller) === true && !message.codeAddress.equals(message.to!);
    if (!message.delegatecall && !callcode && message.value > 0n && message.to !== undefined)
      this.transfer(message.caller.bytes, message.to.bytes, message.value);
  }
  exit(depth: number, failed: boolean): void {
    if (depth === 0) {
      if (failed) this.frames[0] = [];
      return;
    }
    if (this.frames.length <= 1) return;
    const frame = this.frames.pop()!;
    if (!failed) this.frames[this.frames.length - 1]!.push(...frame);
  }
  logs(): SimLog[] {
    return this.frames[0] ?? [];
  }
}

interface TracerRunState {
  stack: { peek(n?: number): bigint[] };
  memory: { read(offset: number, size: number): Uint8Array };
  interpreter: { getAddress(): Address; getSelfBalance(): bigint };
}

const TRACED_OPCODES: ReadonlyMap<number, string> = new Map([
  [0xa0, 'LOG'],
  [0xa1, 'LOG'],
  [0xa2, 'LOG'],
  [0xa3, 'LOG'],
  [0xa4, 'LOG'],
  [0xff, 'SELFDESTRUCT'],
]);

/** Each EVM's LOG/SELFDESTRUCT hooks, installed once; they feed the tracer of the run under way. */
const tracerHooks = new WeakMap<EVM, { hooks: OpcodeHooks; tracer?: LogTracer }>();

function attachTracer(evm: EVM, tracer: LogTracer): () => void {
  let entry = tracerHooks.get(evm);
  if (entry === undefined) {
    const e: { hooks: OpcodeHooks; tracer?: LogTracer } = { hooks: undefined as unknown as OpcodeHooks };
    e.hooks = hookOpcodes<TracerRunState>(evm, TRACED_OPCODES, (code, rs) => {
      const t = e.tracer;
      if (t === undefined) return;
      if (code === 0xff) {
        const balance = rs.interpreter.getSelfBalance();
        if (balance > 0n) t.transfer(rs.interpreter.getAddress().bytes, setLengthLeft(bigIntToBytes(rs.stack.peek(1)[0]! & ((1n << 160n) - 1n)), 20), balance);
        return;
      }
      const n = code - 0xa0;
      const [offset, size, ...topics] = rs.stack.peek(2 + n);
      const data = size === 0n ? new Uint8Array() : Uint8Array.from(rs.memory.read(Number(offset), Number(size)));
      t.capture(
        rs.interpreter.getAddress().bytes,
        topics.map((x) => setLengthLeft(bigIntToBytes(x), 32)),
        data,
      );
    });
    tracerHooks.set(evm, e);
    entry = e;
  }
  entry.hooks.ensure();
  entry.tracer = tracer;
  const before = async (message: Message) => {
    // a creation's address, for its transfer log (geth's OnEnter names it)
    const created = message.to === undefined && message.value > 0n && tracer.traceTransfers ? await createdAddress(evm, message) : undefined;
    tracer.enter(message, created);
  };
  const after = (result: EVMResult) => {
    // the depth of the frame that ends is the depth of the frames still open, less one
    tracer.exit(tracer.frames.length - 1, result.execResult.exceptionError !== undefined);
  };
  evm.events.on('beforeMessage', before);
  evm.events.on('afterMessage', after);
  const current = entry;
  return () => {
    evm.events.off('beforeMessage', before);
    evm.events.off('afterMessage', after);
    current.tracer = undefined;
  };
}

/** geth's errors of a message that cannot be included, by the text of the inner error. */
function txValidationCode(reason: string): number {
  if (reason.startsWith('nonce too high')) return -38011;
  if (reason.startsWith('nonce too low')) return -38010;
  if (reason.startsWith('max fee per gas less than block base fee')) return -38012;
  if (reason.startsWith('insufficient funds')) return -38014;
  if (reason.startsWith('intrinsic gas too low')) return -38013;
  if (reason.startsWith('max initcode size exceeded')) return -38025;
  if (reason.startsWith('max priority fee per gas higher than max fee per gas')) return -32602;
  return -32603;
}

/** The root of a trie of `items` keyed by RLP(index), as a block's transactions/receipts/withdrawals tries. */
async function listRoot(items: Uint8Array[]): Promise<Uint8Array> {
  if (items.length === 0) return KECCAK256_RLP;
  const trie = new MerklePatriciaTrie();
  for (const [i, item] of items.entries()) await trie.put(RLP.encode(i), item);
  return trie.root();
}

function bloomOf(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (value: Uint8Array) => {
    const h = keccak256(value);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const [address, topics] of logs) {
    add(address);
    for (const t of topics) add(t);
  }
  return bloom;
}

/** The unsigned transaction geth's `ToTransaction(DynamicFeeTxType)` builds of a call, and its encoding. */
interface SimTx {
  type: number;
  encoded: Uint8Array;
  /** The block body's element: the encoding of a typed transaction, the list of a legacy one. */
  bodyItem: Uint8Array | Uint8Array[];
  hash: Uint8Array;
  json: Record<string, unknown>;
}

function buildTx(args: Required<Pick<CallRequest, 'nonce' | 'gas' | 'value' | 'chainId'>> & CallRequest, from: Uint8Array): SimTx {
  const n = bigIntToUnpaddedBytes;
  const to = args.to ?? new Uint8Array();
  const data = args.data ?? new Uint8Array();
  const al = (args.accessList ?? []).map((e) => [e.address, e.storageKeys]);
  const sig = [new Uint8Array(), new Uint8Array(), new Uint8Array()];
  const json: Record<string, unknown> = {
    from: bytesToData(from),
    gas: bigIntToQuantity(args.gas),
    hash: '',
    input: bytesToData(data),
    nonce: bigIntToQuantity(args.nonce),
    to: args.to === undefined ? null : bytesToData(args.to),
    value: bigIntToQuantity(args.value),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
  const accessListJson = (args.accessList ?? []).map((e) => ({ address: bytesToData(e.address), storageKeys: e.storageKeys.map(bytesToData) }));
  let type: number;
  let fields: unknown[];
  if (args.authorizationList !== undefined) {
    type = 4;
    const auths = args.authorizationList.map((a) => [n(a.chainId), a.address, n(a.nonce), n(a.yParity), n(a.r), n(a.s)]);
    fields = [n(args.chainId), n(args.nonce), n(args.maxPriorityFeePerGas ?? 0n), n(args.maxFeePerGas ?? 0n), n(args.gas), to, n(args.value), data, al, auths];
    json.authorizationList = args.authorizationList.map((a) => ({
      chainId: bigIntToQuantity(a.chainId),
      address: bytesToData(a.address),
      nonce: bigIntToQuantity(a.nonce),
      yParity: bigIntToQuantity(a.yParity),
      r: bigIntToQuantity(a.r),
      s: bigIntToQuantity(a.s),
    }));
  } else if (args.blobVersionedHashes !== undefined) {
    type = 3;
    fields = [
      n(args.chainId),
      n(args.nonce),
      n(args.maxPriorityFeePerGas ?? 0n),
      n(args.maxFeePerGas ?? 0n),
      n(args.gas),
      to,
      n(args.value),
      data,
      al,
      n(args.maxFeePerBlobGas ?? 0n),
      args.blobVersionedHashes,
    ];
    json.maxFeePerBlobGas = bigIntToQuantity(args.maxFeePerBlobGas ?? 0n);
    json.blobVersionedHashes = args.blobVersionedHashes.map(bytesToData);
  } else if (args.gasPrice === undefined) {
    type = 2;
    fields = [n(args.chainId), n(args.nonce), n(args.maxPriorityFeePerGas ?? 0n), n(args.maxFeePerGas ?? 0n), n(args.gas), to, n(args.value), data, al];
  } else {
    type = 0;
    fields = [n(args.nonce), n(args.gasPrice), n(args.gas), to, n(args.value), data];
  }
  json.type = bigIntToQuantity(type);
  if (type === 0) {
    const list = [...fields, ...sig] as Uint8Array[];
    const encoded = RLP.encode(list);
    json.gasPrice = bigIntToQuantity(args.gasPrice ?? 0n);
    return { type, encoded, bodyItem: list, hash: keccak256(encoded), json };
  }
  json.maxFeePerGas = bigIntToQuantity(args.maxFeePerGas ?? 0n);
  json.maxPriorityFeePerGas = bigIntToQuantity(args.maxPriorityFeePerGas ?? 0n);
  json.accessList = accessListJson;
  json.chainId = bigIntToQuantity(args.chainId);
  json.yParity = '0x0';
  const encoded = concatBytes(Uint8Array.of(type), RLP.encode([...fields, ...sig] as never));
  return { type, encoded, bodyItem: encoded, hash: keccak256(encoded), json };
}

/** Applies one block's state overrides to the simulation's state, as geth's `StateOverride.Apply`. */
async function applyStateOverrides(sm: StateManagerInterface, overrides: AccountOverride[]): Promise<void> {
  for (const o of overrides) {
    const address = new Address(o.address);
    // geth creates an account only for a field it sets (a precompile move alone creates none)
    if (o.nonce !== undefined || o.balance !== undefined) {
      const account = (await sm.getAccount(address)) ?? new Account();
      if (o.nonce !== undefined) account.nonce = o.nonce;
      if (o.balance !== undefined) account.balance = o.balance;
      await sm.putAccount(address, account);
    }
    if (o.code !== undefined) await sm.putCode(address, o.code);
    if (o.state !== undefined) {
      await sm.clearStorage(address);
      for (const [slot, value] of o.state) await sm.putStorage(address, slot, value);
    }
    if (o.stateDiff !== undefined) for (const [slot, value] of o.stateDiff) await sm.putStorage(address, slot, value);
  }
}

interface PlannedBlock {
  overrides: BlockOverrides;
  stateOverrides: AccountOverride[];
  calls: CallRequest[];
  number: bigint;
  time: bigint;
}

/** geth's sanitizeChain: numbers and times in order, gaps filled with empty blocks 12 s apart. */
function planChain(base: BlockHeader, blocks: SimBlock[], maxBlocks: number): PlannedBlock[] {
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const block of blocks) {
    const overrides: BlockOverrides = block.blockOverrides ?? { unsupported: [] };
    const number = overrides.number ?? prevNumber + 1n;
    if (number <= prevNumber) throw new SimulateError(-38020, `block numbers must be in order: ${number} <= ${prevNumber}`);
    if (number - base.number > BigInt(maxBlocks)) throw new SimulateError(-38026, 'too many blocks');
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ overrides: { unsupported: [] }, stateOverrides: [], calls: [], number: n, time: prevTime });
    }
    prevNumber = number;
    let time: bigint;
    if (overrides.time === undefined) time = prevTime + TIMESTAMP_INCREMENT;
    else {
      time = overrides.time;
      if (time <= prevTime) throw new SimulateError(-38021, `block timestamps must be in order: ${time} <= ${prevTime}`);
    }
    prevTime = time;
    out.push({ overrides, stateOverrides: block.stateOverrides ?? [], calls: block.calls, number, time });
  }
  return out;
}

/** EIP-1559's base fee of the first London block, which @ethereumjs/block insists on there. */
const INITIAL_BASE_FEE = 1_000_000_000n;

/**
 * An @ethereumjs header of a simulated block, and its RLP fields as geth encodes them. The first
 * London block of a chain is refused by @ethereumjs/block unless its base fee is the initial one,
 * while a simulation without validation gives it 0: that header is built with the initial fee and
 * its encoded fields carry the real one (the header then only serves the next block's blob fee).
 */
function buildHeader(fields: HeaderData, common: Common): { header: BlockHeader; raw: Uint8Array[] } {
  const opts = { common, skipConsensusFormatValidation: true };
  const london = common.hardforkBlock('london');
  if (fields.baseFeePerGas === undefined || london === null || fields.number !== london || fields.baseFeePerGas === INITIAL_BASE_FEE) {
    const header = createBlockHeader(fields, opts);
    return { header, raw: header.raw() };
  }
  const header = createBlockHeader({ ...fields, baseFeePerGas: INITIAL_BASE_FEE }, opts);
  const raw = header.raw();
  raw[15] = bigIntToUnpaddedBytes(fields.baseFeePerGas as bigint);
  return { header, raw };
}

/** Runs a simulation on top of `base`; returns geth's answer (a JSON value). */
export async function simulate(deps: SimulateDeps, base: BlockHeader, req: SimulateRequest, maxBlocks: number): Promise<unknown[]> {
  const { store, forks, evms } = deps;
  const planned = planChain(base, req.blocks, maxBlocks);
  const trie = await overlayTrie(deps.stateDb, base.stateRoot);
  let budget = deps.gasBudget;
  // one deadline for the whole request, as geth's RPCEVMTimeout covers the whole simulation
  const deadline = evms.deadline();
  const canonical = evmBlockchain(store);
  const simHashes = new Map<bigint, Uint8Array>([[base.number, base.hash()]]);
  const chain: EVMMockBlockchainInterface = {
    async getBlock(n: number | bigint) {
      const number = BigInt(n);
      const hash = simHashes.get(number);
      if (hash !== undefined) return { hash: () => hash };
      if (number < base.number) return canonical.getBlock(Number(number));
      return { hash: () => ZERO32 };
    },
    putBlock: canonical.putBlock,
    shallowCopy: () => chain,
  };

  const results: unknown[] = [];
  let parent = base;
  let parentHashOf = base.hash();
  let prev = { coinbase: base.coinbase.bytes, gasLimit: base.gasLimit, difficulty: base.difficulty };
  const baseIsMerged = base.common.gteHardfork('paris');
  let sm: MerkleStateManager | undefined;
  for (const block of planned) {
    const o = block.overrides;
    let hardfork = forks.hardforkAt(block.number, block.time);
    if (baseIsMerged && !forks.get(hardfork).common.gteHardfork('paris')) hardfork = 'paris';
    const fork = forks.get(hardfork);
    const common = fork.common;
    sm ??= new MerkleStateManager({ common, trie, caches: new Caches() });
    const isLondon = common.isActivatedEIP(1559);
    const isShanghai = common.isActivatedEIP(4895);
    const isCancun = common.isActivatedEIP(4844);
    const isPrague = common.isActivatedEIP(7685);
    const postMerge = common.gteHardfork('paris');

    const coinbase = o.feeRecipient ?? prev.coinbase;
    const gasLimit = o.gasLimit ?? prev.gasLimit;
    const difficulty = o.difficulty ?? (postMerge ? 0n : prev.difficulty);
    const prevRandao = o.prevRandao ?? ZERO32;
    let baseFee: bigint | undefined;
    // geth's CalcBaseFee: the initial base fee after a pre-London parent
    const nextBaseFee = () => (parent.common.isActivatedEIP(1559) ? parent.calcNextBaseFee() : INITIAL_BASE_FEE);
    if (isLondon) baseFee = o.baseFeePerGas ?? (req.validation ? nextBaseFee() : 0n);
    const withdrawals = o.withdrawals ?? [];
    const beaconRoot = isCancun ? (o.beaconRoot ?? ZERO32) : undefined;
    let excessBlobGas: bigint | undefined;
    if (isCancun) excessBlobGas = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
    const { header: draft } = buildHeader(
      { number: block.number, timestamp: block.time, gasLimit, excessBlobGas, baseFeePerGas: baseFee, parentBeaconBlockRoot: beaconRoot },
      common,
    );
    const blobBaseFee = o.blobBaseFee ?? (isCancun ? draft.getBlobGasPrice() : undefined);
    const ctx: BlockContext = {
      header: base,
      number: block.number,
      timestamp: block.time,
      gasLimit,
      coinbase,
      difficulty,
      prevRandao,
      baseFee,
      blobBaseFee,
      fork,
    };

    // state overrides: checks and precompile moves of this block, then the account edits
    const edits = precompileEdits(fork, block.stateOverrides);
    await applyStateOverrides(sm, block.stateOverrides);
    // system contracts before the calls: EIP-4788 beacon root, EIP-2935 parent hash
    const parentHash = parentHashOf;
    if (isCancun && (await sm.getCode(BEACON_ROOTS)).length > 0) {
      const idx = block.time % BEACON_ROOTS_LENGTH;
      await sm.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(idx), 32), bigIntToUnpaddedBytes(block.time));
      await sm.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(idx + BEACON_ROOTS_LENGTH), 32), beaconRoot!);
    }
    if (isPrague && (await sm.getCode(HISTORY_STORAGE)).length > 0) {
      await sm.putStorage(HISTORY_STORAGE, setLengthLeft(bigIntToBytes((block.number - 1n) % HISTORY_SERVE_WINDOW), 32), parentHash);
    }

    let pool = gasLimit;
    let blobGasUsed = 0n;
    const txs: SimTx[] = [];
    const receipts: Uint8Array[] = [];
    const calls: Array<Record<string, unknown>> = [];
    const callLogs: SimLog[][] = [];
    const allLogs: Log[] = [];
    const tracer = new LogTracer(req.traceTransfers);
    const requests: Uint8Array[] = [];
    await evms.withEvm(
      common,
      edits,
      async (evm) => {
        const detach = attachTracer(evm, tracer);
        try {
          for (const [i, call] of block.calls.entries()) {
            tracer.reset();
            const from = call.from ?? new Uint8Array(20);
            const nonce = call.nonce ?? (await sm!.getAccount(new Address(from)))?.nonce ?? 0n;
            const wanted = call.gas ?? pool;
            if (pool < wanted) throw new SimulateError(-38015, `block gas limit reached: remaining: ${pool}, required: ${wanted}`);
            const gas = wanted > budget ? budget : wanted;
            const gasCapped = gas < wanted;
            // geth's CallDefaults (no cap of its own) and ToMessage, without eth_call's waived base fee
            const msg = callMessage({ ...call, gas }, { ...ctx }, gas);
            const fees =
              baseFee === undefined || call.gasPrice !== undefined
                ? { gasPrice: call.gasPrice ?? 0n }
                : { maxFeePerGas: call.maxFeePerGas ?? 0n, maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n };
            const tx = buildTx({ ...call, ...fees, nonce, gas, value: msg.value, chainId: common.chainId(), maxFeePerBlobGas: msg.blobFeeCap }, from);
            let result: Awaited<ReturnType<typeof applyMessage>>;
            sm!.originalStorageCache.clear();
            try {
              result = await applyMessage(evm, sm!, chain, { ctx, msg, state: [], precompileEdits: edits }, msg.gasLimit, {
                nonce: req.validation ? nonce : undefined,
                noBaseFee: !req.validation,
                settle: true,
              });
            } catch (err) {
              if (err instanceof MessageError) throw new SimulateError(txValidationCode(err.reason), err.message);
              throw err;
            }
            pool -= result.gasUsed;
            if (result.gasUsed > budget) throw new CallError(`RPC gas cap exhausted: need ${result.gasUsed}, remaining ${budget}`);
            budget -= result.gasUsed;
            blobGasUsed += BigInt(msg.blobHashes?.length ?? 0) * fork.params.blobGasPerBlob;
            const logs = result.failure === undefined ? (result.logs ?? []) : [];
            const status = result.failure === undefined ? 1n : 0n;
            receipts.push(
              concatBytes(
                tx.type === 0 ? new Uint8Array() : Uint8Array.of(tx.type),
                RLP.encode([bigIntToUnpaddedBytes(status), bigIntToUnpaddedBytes(gasLimit - pool), bloomOf(logs), logs as never]),
              ),
            );
            txs.push(tx);
            callLogs.push(tracer.logs());
            allLogs.push(...logs);
            const out: Record<string, unknown> = {
              // geth's ExecutionResult.Return(): nothing when the run failed (the revert data is in `error`)
              returnData: result.failure === undefined ? bytesToData(result.returnValue) : '0x',
              logs: [],
              gasUsed: bigIntToQuantity(result.gasUsed),
              maxUsedGas: bigIntToQuantity(result.peakGasUsed),
              status: bigIntToQuantity(status),
            };
            if (result.failure?.kind === 'revert') {
              out.error = { message: revertMessage(result.returnValue), code: 3, data: bytesToData(result.returnValue) };
            } else if (result.failure !== undefined) {
              out.error = { message: result.failure.message + (gasCapped ? " (gas limit was capped by the RPC server's global gas cap)" : ''), code: -32015 };
            }
            calls.push(out);
            void i;
          }
        } finally {
          detach();
        }
        // EIP-7685 requests (Prague): geth's system calls to the request contracts after the calls
        if (isPrague) {
          const deposits = depositRequests(allLogs, deps.depositContract);
          if (deposits.length > 0) requests.push(concatBytes(Uint8Array.of(0x00), deposits));
          pointEvmAt(evm, sm!);
          for (const [type, address] of REQUEST_CONTRACTS) {
            if ((await sm!.getCode(address)).length === 0) continue;
            const system = await sm!.getAccount(SYSTEM_ADDRESS);
            const r = await evm.runCall({
              block: evmBlock(ctx) as never,
              caller: SYSTEM_ADDRESS,
              to: address,
              gasLimit: SYSTEM_CALL_GAS,
              origin: SYSTEM_ADDRESS,
            });
            if (system === undefined) await sm!.deleteAccount(SYSTEM_ADDRESS);
            else await sm!.putAccount(SYSTEM_ADDRESS, system);
            if (r.execResult.exceptionError) throw new CallError(`system call failed to execute: ${r.execResult.exceptionError.error}`);
            if (r.execResult.returnValue.length > 0) requests.push(concatBytes(Uint8Array.of(type), r.execResult.returnValue));
          }
        }
      },
      undefined,
      deadline,
    );

    // before the merge, ethash's block reward to the coinbase (geth's beacon engine finalises a
    // header with a difficulty as ethash does; no uncles here)
    if (difficulty !== 0n && !postMerge) {
      // ethash's block reward: 5 ether, 3 from Byzantium (EIP-649), 2 from Constantinople (EIP-1234)
      const reward = common.gteHardfork('constantinople') ? 2n * 10n ** 18n : common.gteHardfork('byzantium') ? 3n * 10n ** 18n : 5n * 10n ** 18n;
      const address = new Address(coinbase);
      const account = (await sm.getAccount(address)) ?? new Account();
      account.balance += reward;
      await sm.putAccount(address, account);
    }
    // withdrawals (gwei) after the calls
    for (const w of withdrawals) {
      const address = new Address(w.address);
      const account = (await sm.getAccount(address)) ?? new Account();
      account.balance += w.amount * 1_000_000_000n;
      await sm.putAccount(address, account);
    }
    const stateRoot = await sm.getStateRoot();
    const withdrawalsRaw = withdrawals.map((w) => [
      bigIntToUnpaddedBytes(w.index),
      bigIntToUnpaddedBytes(w.validatorIndex),
      w.address,
      bigIntToUnpaddedBytes(w.amount),
    ]);
    const { header, raw } = buildHeader(
      {
        parentHash,
        uncleHash: KECCAK256_RLP_ARRAY,
        coinbase,
        stateRoot,
        transactionsTrie: await listRoot(txs.map((t) => t.encoded)),
        receiptTrie: await listRoot(receipts),
        logsBloom: bloomOf(allLogs),
        difficulty,
        number: block.number,
        gasLimit,
        gasUsed: gasLimit - pool,
        timestamp: block.time,
        extraData: new Uint8Array(),
        mixHash: prevRandao,
        nonce: new Uint8Array(8),
        baseFeePerGas: baseFee,
        withdrawalsRoot: isShanghai ? await listRoot(withdrawalsRaw.map((w) => RLP.encode(w))) : undefined,
        blobGasUsed: isCancun ? blobGasUsed : undefined,
        excessBlobGas,
        parentBeaconBlockRoot: beaconRoot,
        requestsHash: isPrague ? sha256(concatBytes(...requests.map((r) => sha256(r)))) : undefined,
      },
      common,
    );
    const hash = keccak256(RLP.encode(raw as never));
    simHashes.set(block.number, hash);
    const body: unknown[] = [raw, txs.map((t) => t.bodyItem), []];
    if (isShanghai) body.push(withdrawalsRaw);
    const size = RLP.encode(body as never).length;

    // the block as geth's RPCMarshalBlock, with the calls' results
    const where = { blockHash: bytesToData(hash), blockNumber: bigIntToQuantity(block.number), blockTimestamp: bigIntToQuantity(block.time) };
    for (const [i, logs] of callLogs.entries()) {
      calls[i]!.logs = logs.map(({ address, topics, data, index }) => ({
        address: bytesToData(address),
        topics: topics.map(bytesToData),
        data: bytesToData(data),
        blockNumber: where.blockNumber,
        transactionHash: bytesToData(txs[i]!.hash),
        transactionIndex: bigIntToQuantity(i),
        blockHash: where.blockHash,
        blockTimestamp: where.blockTimestamp,
        logIndex: bigIntToQuantity(index),
        removed: false,
      }));
    }
    const out: Record<string, unknown> = {
      number: bigIntToQuantity(block.number),
      hash: bytesToData(hash),
      parentHash: bytesToData(parentHash),
      nonce: '0x0000000000000000',
      mixHash: bytesToData(prevRandao),
      sha3Uncles: bytesToData(KECCAK256_RLP_ARRAY),
      logsBloom: bytesToData(header.logsBloom),
      stateRoot: bytesToData(stateRoot),
      miner: bytesToData(coinbase),
      difficulty: bigIntToQuantity(difficulty),
      extraData: '0x',
      size: bigIntToQuantity(size),
      gasLimit: bigIntToQuantity(gasLimit),
      gasUsed: bigIntToQuantity(gasLimit - pool),
      timestamp: bigIntToQuantity(block.time),
      transactionsRoot: bytesToData(header.transactionsTrie),
      receiptsRoot: bytesToData(header.receiptTrie),
      transactions: txs.map((t, i) => {
        if (!req.returnFullTransactions) return bytesToData(t.hash);
        const json: Record<string, unknown> = { ...where, ...t.json, hash: bytesToData(t.hash), transactionIndex: bigIntToQuantity(i) };
        if (t.type !== 0 && baseFee !== undefined) {
          const cap = BigInt(json.maxFeePerGas as string);
          const tip = BigInt(json.maxPriorityFeePerGas as string);
          json.gasPrice = bigIntToQuantity(tip + baseFee < cap ? tip + baseFee : cap);
        } else if (t.type !== 0) json.gasPrice = json.maxFeePerGas;
        return json;
      }),
      uncles: [],
      calls,
    };
    if (baseFee !== undefined) out.baseFeePerGas = bigIntToQuantity(baseFee);
    if (isShanghai) {
      out.withdrawalsRoot = bytesToData(header.withdrawalsRoot!);
      out.withdrawals = withdrawals.map((w) => ({
        index: bigIntToQuantity(w.index),
        validatorIndex: bigIntToQuantity(w.validatorIndex),
        address: bytesToData(w.address),
        amount: bigIntToQuantity(w.amount),
      }));
    }
    if (isCancun) {
      out.blobGasUsed = bigIntToQuantity(blobGasUsed);
      out.excessBlobGas = bigIntToQuantity(excessBlobGas!);
      out.parentBeaconBlockRoot = bytesToData(beaconRoot!);
    }
    if (isPrague) out.requestsHash = bytesToData(header.requestsHash!);
    results.push(out);
    parent = header;
    parentHashOf = hash;
    prev = { coinbase, gasLimit, difficulty };
  }
  return results;
}
