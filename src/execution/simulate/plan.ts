import { type BlockHeader, createBlockHeader, type HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';
import type { BlockContext } from '../blockContext.js';
import type { AccountOverride, BlockOverrides, CallRequest, Withdrawal } from '../callArgs.js';
import type { Forks } from '../forks.js';
import { SimulateError } from './errors.js';

/**
 * The blocks of an eth_simulateV1 request and the header fields each has before its calls run, as
 * geth plans them (ethereum/go-ethereum `internal/ethapi/simulate.go` sanitizeChain and
 * makeHeaders): numbers and times in order, gaps filled, each field overridden or inherited.
 */

/** One block of the request, as decoded. */
export interface SimBlock {
  blockOverrides?: BlockOverrides;
  stateOverrides?: AccountOverride[];
  calls: CallRequest[];
}

/** A block of the simulated chain: one of the request's, or an empty one filling a gap. */
export interface PlannedBlock {
  overrides: BlockOverrides;
  stateOverrides: AccountOverride[];
  calls: CallRequest[];
  number: bigint;
  time: bigint;
}

/** What a simulated block is before its calls: the context they run in, and the header fields of its own. */
export interface SimBlockEnv {
  ctx: BlockContext;
  withdrawals: Withdrawal[];
  /** Cancun on. */
  beaconRoot?: Uint8Array;
  /** Cancun on. */
  excessBlobGas?: bigint;
}

/** The block before a simulated one: its header, and what the next inherits of it. */
export interface ParentBlock {
  header: BlockHeader;
  hash: Uint8Array;
  coinbase: Uint8Array;
  gasLimit: bigint;
  difficulty: bigint;
}

const TIMESTAMP_INCREMENT = 12n;
const ZERO32 = new Uint8Array(32);
/** EIP-1559's base fee of the first London block, which @ethereumjs/block insists on there. */
const INITIAL_BASE_FEE = 1_000_000_000n;

/**
 * geth's sanitizeChain: numbers and times in order, gaps filled with empty blocks 12 s apart.
 * Throws {@link SimulateError} when they go backwards or span more than `maxBlocks`.
 */
export function planChain(base: BlockHeader, blocks: SimBlock[], maxBlocks: number): PlannedBlock[] {
  const out: PlannedBlock[] = [];
  let prevNumber = base.number;
  let prevTime = base.timestamp;
  for (const block of blocks) {
    const overrides: BlockOverrides = block.blockOverrides ?? { unsupported: [] };
    const number = overrides.number ?? prevNumber + 1n;
    if (number <= prevNumber) throw new SimulateError('blockNumberOrder', `block numbers must be in order: ${number} <= ${prevNumber}`);
    if (number - base.number > BigInt(maxBlocks)) throw new SimulateError('tooManyBlocks', 'too many blocks');
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT;
      out.push({ overrides: { unsupported: [] }, stateOverrides: [], calls: [], number: n, time: prevTime });
    }
    prevNumber = number;
    let time: bigint;
    if (overrides.time === undefined) time = prevTime + TIMESTAMP_INCREMENT;
    else {
      time = overrides.time;
      if (time <= prevTime) throw new SimulateError('timestampOrder', `block timestamps must be in order: ${time} <= ${prevTime}`);
    }
    prevTime = time;
    out.push({ overrides, stateOverrides: block.stateOverrides ?? [], calls: block.calls, number, time });
  }
  return out;
}

/**
 * The context of `block`'s calls and its header fields known before them (geth's makeHeaders and
 * the simulator's block context): the fork of its number and time (kept post-merge on a merged
 * base), the fee recipient, gas limit and difficulty overridden or inherited from `parent`, the
 * base fee overridden, else EIP-1559's from the parent when `validation`, else 0, the excess blob
 * gas from the parent, the blob base fee overridden or from it.
 */
export function blockEnv(block: PlannedBlock, parent: ParentBlock, base: BlockHeader, forks: Forks, validation: boolean): SimBlockEnv {
  const o = block.overrides;
  let hardfork = forks.hardforkAt(block.number, block.time);
  if (base.common.gteHardfork('paris') && !forks.get(hardfork).common.gteHardfork('paris')) hardfork = 'paris';
  const fork = forks.get(hardfork);
  const { common } = fork;
  const isCancun = common.isActivatedEIP(4844);
  const gasLimit = o.gasLimit ?? parent.gasLimit;
  let baseFee: bigint | undefined;
  // geth's CalcBaseFee: the initial base fee after a pre-London parent
  const nextBaseFee = () => (parent.header.common.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : INITIAL_BASE_FEE);
  if (common.isActivatedEIP(1559)) baseFee = o.baseFeePerGas ?? (validation ? nextBaseFee() : 0n);
  const beaconRoot = isCancun ? (o.beaconRoot ?? ZERO32) : undefined;
  let excessBlobGas: bigint | undefined;
  if (isCancun) excessBlobGas = parent.header.common.isActivatedEIP(4844) ? parent.header.calcNextExcessBlobGas(common) : 0n;
  const { header: draft } = buildHeader(
    { number: block.number, timestamp: block.time, gasLimit, excessBlobGas, baseFeePerGas: baseFee, parentBeaconBlockRoot: beaconRoot },
    common,
  );
  const ctx: BlockContext = {
    header: base,
    number: block.number,
    timestamp: block.time,
    gasLimit,
    coinbase: o.feeRecipient ?? parent.coinbase,
    difficulty: o.difficulty ?? (common.gteHardfork('paris') ? 0n : parent.difficulty),
    prevRandao: o.prevRandao ?? ZERO32,
    baseFee,
    blobBaseFee: o.blobBaseFee ?? (isCancun ? draft.getBlobGasPrice() : undefined),
    fork,
  };
  return { ctx, withdrawals: o.withdrawals ?? [], beaconRoot, excessBlobGas };
}

/**
 * An @ethereumjs header of a simulated block, and its RLP fields as geth encodes them. The first
 * London block of a chain is refused by @ethereumjs/block unless its base fee is the initial one,
 * while a simulation without validation gives it 0: that header is built with the initial fee and
 * its encoded fields carry the real one (the header then only serves the next block's blob fee).
 */
export function buildHeader(fields: HeaderData, common: Common): { header: BlockHeader; raw: Uint8Array[] } {
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
