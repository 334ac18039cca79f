import type { Block } from '@ethereumjs/block';
import type { Log } from '@ethereumjs/evm';
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, bigIntToUnpaddedBytes, bytesToBigInt, hexToBytes, KECCAK256_RLP, setLengthLeft } from '@ethereumjs/util';
import { Bloom, runTx, type VM } from '@ethereumjs/vm';
import { OpBlockError } from '../../chain/op/baseFee.js';
import { DEPOSIT_TX_TYPE, decodeDepositTx, isDeposit } from '../../chain/op/depositTx.js';
import type { L1FeeParams, L1FeeRules } from '../../chain/op/l1Info.js';
import { DepositTransaction } from '../../chain/op/opBlock.js';
import { isActive, type OpRollup, upgradeAt } from '../../chain/op/rollup.js';
import { encodeConsensusReceipt } from '../../chain/receipts.js';
import { orderedTrieRoot } from '../../codec/orderedTrieRoot.js';
import { ensureCreate2Deployer } from './create2Deployer.js';
import { runDeposit } from './depositRun.js';
import { daFootprint, L1_BLOCK_ADDRESS, type L1Cost, l1Cost, l1FeeAt } from './l1Cost.js';
import {
  OPERATOR_FEE_SLOT,
  OPERATOR_FEE_VAULT,
  type OperatorFeeParams,
  type OperatorFeeRules,
  operatorFeeAt,
  operatorFeeCharge,
  operatorFeeRefund,
} from './operatorFee.js';
import { P256VERIFY_ADDRESS } from './precompiles.js';

/**
 * An OP-stack block run as op-geth runs one (`core/state_processor.go`, `state_transition.go`),
 * on @ethereumjs/vm: the EIP-4788 beacon root stored first (from Ecotone), then each transaction
 * in order — a deposit by {@link runDeposit}, any other by runTx, with the OP fees around it:
 *
 * - its L1 data fee (`l1Cost.ts`, from the L1Block contract's state at that point of the block)
 *   taken from the sender with the gas it buys, so a sender who cannot pay both makes the block
 *   invalid, and credited to the L1 fee vault (0x42…1a) once it ran;
 * - the base fee it paid (gas used × base fee) credited to the base fee vault (0x42…19) instead
 *   of burned; the priority fee goes to the coinbase (the sequencer fee vault) as on Ethereum.
 *
 * The VM must carry the upgrade's precompiles (`precompiles.ts`, `opPrecompiles`); a block
 * of Fjord or later on a VM without P256VERIFY is refused.
 *
 * Receipts are encoded as op-geth encodes them for the receipts root: a deposit's as type 0x7E
 * with its sender's nonce before it (`depositNonce`, from Regolith) and the receipt version 1
 * (from Canyon) after the logs. The state root is read once every transaction ran (OP blocks
 * carry no withdrawals before Isthmus).
 *
 * From Isthmus (which runs Prague's rules): the parent's hash stored in the EIP-2935 history
 * contract before the transactions, the operator fee (`operatorFee.ts`) taken with the L1 data fee
 * on the gas limit, the fee of the unused gas given back and the rest credited to the operator fee
 * vault (0x42…1b), and the message passer's storage root returned as the block's withdrawals root.
 *
 * The block whose time is exactly Canyon's first gets the create2 deployer's code
 * (`create2Deployer.ts`).
 *
 * From Jovian: the operator fee's Jovian formula, and each signed transaction's data-availability
 * footprint counted against the block's gas limit, their sum returned as the block's blobGasUsed
 * (the header's minimum base fee is a header rule: `chain/op/baseFee.ts`).
 */

export const BASE_FEE_VAULT = hexToBytes('0x4200000000000000000000000000000000000019');
export const L1_FEE_VAULT = hexToBytes('0x420000000000000000000000000000000000001a');
const BEACON_ROOTS = new Address(hexToBytes('0x000f3df6d732807ef1319fb7b8bb8522d0beac02'));
const BEACON_ROOTS_LENGTH = 8191n;
const HISTORY_STORAGE = new Address(hexToBytes('0x0000f90827f1c53a10cb7a02335b175320002935'));
const HISTORY_SERVE_WINDOW = 8191n;
/** L2ToL1MessagePasser: from Isthmus its storage root is the header's withdrawals root. */
const MESSAGE_PASSER = new Address(hexToBytes('0x4200000000000000000000000000000000000016'));

/** One transaction's receipt, with the OP fields op-geth gives it. */
export interface OpReceipt {
  type: number;
  status: 0 | 1;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  logs: Log[];
  bloom: Uint8Array;
  /** Deposits from Regolith. */
  depositNonce?: bigint;
  /** Deposits from Canyon. */
  depositReceiptVersion?: bigint;
  /** Ordinary transactions: the L1 data fee charged and its gas, with the rules and L1 attributes it was computed by. */
  l1?: L1Cost & { rules: L1FeeRules; params: L1FeeParams };
  /** Ordinary transactions from Isthmus: the operator fee's parameters at that point of the block. */
  operatorFee?: OperatorFeeParams;
  /**
   * Ordinary transactions from Jovian: the data-availability footprint and the gas scalar it was
   * computed with (op-reth prints them as the receipt's blobGasUsed and daFootprintGasScalar).
   */
  daFootprint?: { gasUsed: bigint; scalar: bigint };
  createdAddress?: Address;
}

export interface OpBlockResult {
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  receipts: OpReceipt[];
  /** From Isthmus: the message passer's storage root, which the header carries as its withdrawals root. */
  withdrawalsRoot?: Uint8Array;
  /** From Jovian: the block's data-availability footprint, which the header carries as its blobGasUsed. */
  blobGasUsed?: bigint;
}

export interface OpBlockInput {
  /** The block's header (as a Block without transactions: what runTx reads of it). */
  block: Block;
  /** Its transactions' EIP-2718 bytes, in order. */
  transactions: Uint8Array[];
  rollup: OpRollup;
  /**
   * `anvil`: the block as anvil 1.7.1's `--network optimism` makes it, where it differs from
   * op-geth and op-reth (whose rules are the default, and real OP chains' roots hold them):
   * - a deposit receipt's `depositNonce` is its sender's nonce after the deposit, not before;
   * - every ordinary transaction credits the operator fee vault, with 0 before Isthmus or for a
   *   zero fee, and the vault's empty account stays in the state (op-revm credits every vault;
   *   anvil's state keeps an account a transaction touched empty, which EIP-161 removes); so do
   *   the other vaults credited 0, and the L1Block account op-revm loads to read the fee's
   *   parameters (with `execution/loadedState.ts` on the VM, as anvil's blocks need it, its
   *   zero slots stay too).
   */
  quirks?: 'anvil';
}

/** Runs the block on `vm`'s state; the caller compares the result with the header. Throws {@link OpBlockError} for a block it cannot run. */
export async function executeOpBlock(vm: VM, input: OpBlockInput): Promise<OpBlockResult> {
  const { block, rollup } = input;
  const header = block.header;
  const time = header.timestamp;
  if (rollup.unknownUpgrade !== undefined && time >= rollup.unknownUpgrade.time) {
    throw new OpBlockError(
      `block ${header.number}: the chain's genesis schedules ${rollup.unknownUpgrade.name} at ${rollup.unknownUpgrade.time}, an upgrade tracenode does not know`,
    );
  }
  if (isActive(rollup, 'fjord', time) && !vm.evm.precompiles.has(P256VERIFY_ADDRESS.toString().slice(2))) {
    throw new OpBlockError(`block ${header.number}: the VM lacks Fjord's P256VERIFY: build it with opPrecompiles`);
  }
  const regolith = isActive(rollup, 'regolith', time);
  const canyon = isActive(rollup, 'canyon', time);
  const feeUpgrade = feeUpgradeAt(rollup, time);
  const isthmus = isActive(rollup, 'isthmus', time);
  const jovian = isActive(rollup, 'jovian', time);

  // One checkpoint around the block, as runBlock keeps one: the state manager writes to the trie
  // when it is committed, so the trie sees each slot's and account's last value only (a write per
  // transaction would reach, in between, nodes no client reads: a witness does not hold them).
  await vm.evm.journal.checkpoint();
  let run: { receipts: OpReceipt[]; bloom: Bloom; gasUsed: bigint; daUsed: bigint };
  try {
    run = await runTransactions(vm, input, { regolith, canyon, feeUpgrade, isthmus, jovian });
  } catch (e) {
    await vm.evm.journal.revert();
    throw e;
  }
  await vm.evm.journal.commit();
  const { receipts, bloom, gasUsed, daUsed } = run;
  const stateRoot = await vm.stateManager.getStateRoot();
  return {
    stateRoot,
    ...(isthmus ? { withdrawalsRoot: await storageRootOf(vm, MESSAGE_PASSER) } : {}),
    ...(jovian ? { blobGasUsed: daUsed } : {}),
    receiptsRoot: orderedTrieRoot(receipts.map(encodeOpReceipt)),
    transactionsRoot: orderedTrieRoot(input.transactions),
    logsBloom: bloom.bitvector,
    gasUsed,
    receipts,
  };
}

/** Canyon's deployer code (in its block), the beacon root stored, then every transaction run in order, with its receipt. */
async function runTransactions(
  vm: VM,
  input: OpBlockInput,
  rules: { regolith: boolean; canyon: boolean; feeUpgrade: L1FeeRules; isthmus: boolean; jovian: boolean },
): Promise<{ receipts: OpReceipt[]; bloom: Bloom; gasUsed: bigint; daUsed: bigint }> {
  const { block } = input;
  const header = block.header;
  const { regolith, canyon, feeUpgrade, isthmus, jovian } = rules;
  // op-geth (state_processor.go) installs the create2 deployer's code first, in the block whose time is exactly Canyon's.
  if (input.rollup.times.canyon === header.timestamp) await ensureCreate2Deployer(vm);
  if (vm.common.isActivatedEIP(4788)) await storeBeaconRoot(vm, header.parentBeaconBlockRoot!, header.timestamp);
  if (isthmus) await storeParentHash(vm, header.parentHash, header.number);

  const receipts: OpReceipt[] = [];
  const bloom = new Bloom(undefined, vm.common);
  let cumulative = 0n;
  // Jovian: the data-availability footprints of the block's signed transactions, bounded by its gas limit.
  let daUsed = 0n;
  for (const [index, raw] of input.transactions.entries()) {
    let receipt: Omit<OpReceipt, 'cumulativeGasUsed'>;
    if (isDeposit(raw)) {
      const tx = decodeDepositTx(raw);
      if (!(tx.isSystemTx && !regolith)) checkGas(header.gasLimit, cumulative, tx.gasLimit, header.number, index);
      // As runTx does for a signed one, so that what records a block's transactions (the trace
      // index) sees the deposit as one.
      const nonce = (await vm.stateManager.getAccount(new Address(tx.from)))?.nonce ?? 0n;
      const announced = new DepositTransaction(raw, nonce) as unknown as TypedTransaction;
      await announce(vm, 'beforeTx', announced);
      const run = await runDeposit(vm, tx, block, { regolith });
      // What runTx's afterTx carries and the tracers read: the gas, the message's result, the logs.
      const execResult = run.execResult ?? { executionGasUsed: run.gasUsed, returnValue: new Uint8Array() };
      await announce(vm, 'afterTx', { transaction: announced, totalGasSpent: run.gasUsed, execResult, receipt: { logs: run.logs } });
      receipt = {
        type: DEPOSIT_TX_TYPE,
        status: run.status,
        gasUsed: run.gasUsed,
        logs: run.logs,
        bloom: logsBloom(vm, run.logs),
        ...(regolith ? { depositNonce: input.quirks === 'anvil' ? run.nonce + 1n : run.nonce } : {}),
        ...(canyon ? { depositReceiptVersion: 1n } : {}),
        ...(run.createdAddress ? { createdAddress: run.createdAddress } : {}),
      };
    } else {
      receipt = await runOrdinary(
        vm,
        raw,
        block,
        {
          feeUpgrade,
          operatorFee: jovian ? 'jovian' : isthmus ? 'isthmus' : undefined,
          anvil: input.quirks === 'anvil',
          ...(jovian ? { daAvailable: header.gasLimit - daUsed } : {}),
        },
        cumulative,
        index,
      );
    }
    cumulative += receipt.gasUsed;
    daUsed += receipt.daFootprint?.gasUsed ?? 0n;
    bloom.or(new Bloom(receipt.bloom, vm.common));
    receipts.push({ ...receipt, cumulativeGasUsed: cumulative });
  }
  return { receipts, bloom, gasUsed: cumulative, daUsed };
}

/** The L1 data fee rules of a block at `time`: Fjord's from Fjord on. */
export function feeUpgradeAt(rollup: OpRollup, time: bigint): L1FeeRules {
  const upgrade = upgradeAt(rollup, time);
  if (upgrade === 'bedrock' || upgrade === 'regolith') return upgrade;
  if (upgrade === 'canyon' || upgrade === 'delta') return 'regolith';
  return isActive(rollup, 'fjord', time) ? 'fjord' : 'ecotone';
}

function checkGas(blockLimit: bigint, used: bigint, txLimit: bigint, number: bigint, index: number): void {
  if (used + txLimit > blockLimit) throw new OpBlockError(`block ${number}: transaction ${index} needs ${txLimit} gas, ${blockLimit - used} left`);
}

/** An ordinary (signed) transaction with the OP fees around it. */
async function runOrdinary(
  vm: VM,
  raw: Uint8Array,
  block: Block,
  fees: { feeUpgrade: L1FeeRules; operatorFee: OperatorFeeRules | undefined; anvil: boolean; daAvailable?: bigint },
  used: bigint,
  index: number,
): Promise<Omit<OpReceipt, 'cumulativeGasUsed'>> {
  const header = block.header;
  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(raw, { common: vm.common }) as TypedTransaction;
  } catch (e) {
    throw new OpBlockError(`block ${header.number}: transaction ${index} cannot be decoded: ${(e as Error).message}`);
  }
  if (tx.type === 3) throw new OpBlockError(`block ${header.number}: transaction ${index} is a blob transaction, which OP chains do not take`);
  checkGas(header.gasLimit, used, tx.gasLimit, header.number, index);
  const l1Address = new Address(hexToBytes(L1_BLOCK_ADDRESS));
  // op-revm loads the L1Block account to read its storage; anvil keeps what was loaded, empty or not.
  if (fees.anvil && (await vm.stateManager.getAccount(l1Address)) === undefined) await vm.stateManager.putAccount(l1Address, new Account());
  // getStorage answers a word without its leading zeros: the scalars' offsets count from a full word.
  const word = async (slot: bigint) => setLengthLeft(await vm.stateManager.getStorage(l1Address, setLengthLeft(bigIntToBytes(slot), 32)), 32);
  const fee = await l1FeeAt(word, fees.feeUpgrade, fees.anvil ? 'op-revm' : 'op-geth');
  const l1 = l1Cost(raw, fee.rules, fee.params);
  const operator = fees.operatorFee === undefined ? undefined : { rules: fees.operatorFee, params: await operatorFeeAt(word) };
  const da = fees.daAvailable === undefined ? undefined : await daFootprintOf(raw, word, fees.daAvailable, header.number, index);
  const operatorCharge = operator === undefined ? 0n : operatorFeeCharge(raw, tx.gasLimit, operator.params, operator.rules);
  const sender = tx.getSenderAddress();
  // Both fees are taken before the run, with the gas they buy: a sender who cannot pay them makes the block invalid.
  const upFront = (l1?.fee ?? 0n) + operatorCharge;
  if (upFront > 0n) {
    const account = (await vm.stateManager.getAccount(sender)) ?? new Account();
    if (account.balance < upFront) {
      throw new OpBlockError(
        `block ${header.number}: transaction ${index}'s sender ${sender} cannot pay its L1 data fee ${l1?.fee ?? 0n} and operator fee ${operatorCharge} (balance ${account.balance})`,
      );
    }
    account.balance -= upFront;
    await vm.stateManager.putAccount(sender, account);
  }
  const result = await runTx(vm, { tx, block, skipHardForkValidation: true, blockGasUsed: used });
  const gasUsed = result.totalGasSpent;
  await credit(vm, BASE_FEE_VAULT, gasUsed * header.baseFeePerGas!, fees.anvil);
  if (l1 !== undefined) await credit(vm, L1_FEE_VAULT, l1.fee, fees.anvil);
  if (operator !== undefined && operatorCharge > 0n) {
    // The fee of the gas the run did not use goes back to the sender; the rest to the vault.
    const refund = operatorFeeRefund(tx.gasLimit, gasUsed, operator.params, operator.rules);
    await credit(vm, sender.bytes, refund);
    await credit(vm, OPERATOR_FEE_VAULT, operatorCharge - refund);
  } else if (fees.anvil) {
    await credit(vm, OPERATOR_FEE_VAULT, 0n, true);
  }
  const logs = result.execResult.logs ?? [];
  return {
    type: tx.type,
    status: result.execResult.exceptionError === undefined ? 1 : 0,
    gasUsed,
    logs,
    bloom: result.bloom.bitvector,
    ...(l1 !== undefined ? { l1: { ...l1, rules: fee.rules, params: fee.params } } : {}),
    ...(operator !== undefined ? { operatorFee: operator.params } : {}),
    ...(da !== undefined ? { daFootprint: da } : {}),
    ...(result.createdAddress ? { createdAddress: result.createdAddress } : {}),
  };
}

/**
 * Jovian: a signed transaction's data-availability footprint — its estimated compressed size
 * (Fjord's, in bytes) × the DA footprint gas scalar L1Block holds (slot 8, bytes [18, 20)) —,
 * refused when more than the block has left of its gas limit for them (op-reth's executor: the
 * header's blobGasUsed is their sum, and the next base fee counts it when it exceeds the gas used).
 */
async function daFootprintOf(
  raw: Uint8Array,
  word: (slot: bigint) => Promise<Uint8Array>,
  available: bigint,
  number: bigint,
  index: number,
): Promise<{ gasUsed: bigint; scalar: bigint }> {
  const scalar = bytesToBigInt((await word(OPERATOR_FEE_SLOT)).subarray(18, 20));
  const gasUsed = daFootprint(raw, scalar);
  if (gasUsed > available) {
    throw new OpBlockError(`block ${number}: transaction ${index}'s data-availability footprint ${gasUsed} is more than the ${available} the block has left`);
  }
  return { gasUsed, scalar };
}

/**
 * Tells the VM's listeners of `topic` as runTx tells them: in order, a listener that takes a
 * second argument (a callback) awaited until it calls it, as @ethereumjs/vm's own events are.
 */
async function announce(vm: VM, topic: 'beforeTx' | 'afterTx', data: unknown): Promise<void> {
  for (const listener of vm.events.listeners(topic) as Array<(data: unknown, resolve?: () => void) => void>) {
    if (listener.length === 2) await new Promise<void>((resolve) => listener(data, resolve));
    else listener(data);
  }
}

async function credit(vm: VM, address: Uint8Array, amount: bigint, keepEmpty = false): Promise<void> {
  const at = new Address(address);
  const found = await vm.stateManager.getAccount(at);
  // Nothing credited to an account that is not there leaves none (EIP-161 removes the touched empty account).
  if (found === undefined && amount === 0n && !keepEmpty) return;
  const account = found ?? new Account();
  account.balance += amount;
  await vm.stateManager.putAccount(at, account);
}

/** EIP-2935 (from Isthmus, as Prague): the parent's hash in the history contract's ring buffer, where it has code. */
async function storeParentHash(vm: VM, parentHash: Uint8Array, number: bigint): Promise<void> {
  if (number === 0n || (await vm.stateManager.getCode(HISTORY_STORAGE)).length === 0) return;
  await vm.stateManager.putStorage(HISTORY_STORAGE, setLengthLeft(bigIntToBytes((number - 1n) % HISTORY_SERVE_WINDOW), 32), parentHash);
}

/** An account's storage root (the empty trie's for an account that is not there). */
async function storageRootOf(vm: VM, address: Address): Promise<Uint8Array> {
  return (await vm.stateManager.getAccount(address))?.storageRoot ?? KECCAK256_RLP;
}

/** EIP-4788: the block's time and parent beacon root in the ring buffers, where the contract has code. */
async function storeBeaconRoot(vm: VM, root: Uint8Array, time: bigint): Promise<void> {
  if ((await vm.stateManager.getCode(BEACON_ROOTS)).length === 0) return;
  const index = time % BEACON_ROOTS_LENGTH;
  await vm.stateManager.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index), 32), bigIntToUnpaddedBytes(time));
  await vm.stateManager.putStorage(BEACON_ROOTS, setLengthLeft(bigIntToBytes(index + BEACON_ROOTS_LENGTH), 32), root);
}

function logsBloom(vm: VM, logs: Log[]): Uint8Array {
  const bloom = new Bloom(undefined, vm.common);
  for (const [address, topics] of logs) {
    bloom.add(address);
    for (const topic of topics) bloom.add(topic);
  }
  return bloom.bitvector;
}

/** A receipt as the receipts root holds it: Ethereum's encoding, a deposit's with its OP fields after the logs. */
export function encodeOpReceipt(r: OpReceipt): Uint8Array {
  return encodeConsensusReceipt({ ...r, statusOrRoot: Uint8Array.of(r.status) }, r.type, r.bloom);
}
