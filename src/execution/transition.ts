import type { StateManagerInterface } from '@ethereumjs/common';
import { type EVM, EVMError, type EVMMockBlockchainInterface, type EVMResult, type Log } from '@ethereumjs/evm';
import { Account, Address, bytesToHex, bytesToUnprefixedHex } from '@ethereumjs/util';
import type { ChainStore } from '../chain/store.js';
import type { StateReadCache } from '../state/readCache.js';
import { applyAuthorizations, isDelegation } from './authorizations.js';
import { type BlockContext, blockchainBelow, evmBlock } from './blockContext.js';
import type { AccountOverride } from './callArgs.js';
import { type CallResult, checksum, MessageError } from './callResult.js';
import { pointEvmAt, warmAddresses } from './evm/journal.js';
import { type FailedFrame, gethErrorText, type PrecompileContext } from './evmErrors.js';
import { floorDataGas, intrinsicGas, type Message } from './message.js';
import type { OverlayState } from './overlayDb.js';
import { overriddenState, type PrecompileEdit } from './stateOverrides.js';

/**
 * One message run on an EVM over a fresh overlay of the block's state, as geth's state transition
 * runs it for a call (ethereum/go-ethereum `core/state_transition.go` with SkipNonceChecks,
 * SkipTransactionChecks and NoBaseFee: preCheck, buyGas, intrinsic gas, Prepare, the call, refunds
 * and the EIP-7623 floor). Nothing the run writes outlives it.
 */

const UINT256_LIMIT = 1n << 256n;

/** Everything a run needs besides the gas limit: the call, prepared once per request. */
export interface PreparedCall {
  ctx: BlockContext;
  msg: Message;
  state: AccountOverride[];
  /** Precompile map edits the state overrides imply (moves, and precompile addresses overridden). */
  precompileEdits: PrecompileEdit[];
}

/**
 * geth's state transition for one message with `gasLimit` (pre-Amsterdam rules) on `evm`, over
 * the state after `prepared.ctx.header` with the state overrides applied. Reverts and EVM failures
 * are results; message-validation failures throw {@link MessageError}.
 */
export async function runMessage(
  evm: EVM,
  store: ChainStore,
  reads: StateReadCache,
  prepared: PreparedCall,
  gasLimit: bigint,
  opts: RunOptions = {},
): Promise<CallResult> {
  const sm = opts.state ?? (await overriddenState(reads, prepared.ctx.header.stateRoot, prepared.state));
  return applyMessage(evm, sm, blockchainBelow(store, prepared.ctx.header.number), prepared, gasLimit, { settle: opts.settle });
}

/** How a run treats its state (ad-hoc tracing: calls in sequence, with the fees a transaction pays). */
export interface RunOptions {
  /** Run on this state (the overridden state a previous run left) instead of a fresh overlay. */
  state?: OverlayState;
  /** End as a transaction does (see {@link ApplyOptions.settle}). */
  settle?: boolean;
}

/**
 * How {@link applyMessage} departs from an eth_call run, for eth_simulateV1: the nonce is
 * checked (`nonce`: the message's), the base fee is not waived (`noBaseFee` false), and the run is
 * settled as a transaction (unused gas refunded to the sender, the tip paid to the coinbase,
 * touched empty accounts removed).
 */
export interface ApplyOptions {
  nonce?: bigint;
  noBaseFee?: boolean;
  settle?: boolean;
}

/** One message on `sm` (left with the run's writes), with BLOCKHASH answered by `blockchain`. */
export async function applyMessage(
  evm: EVM,
  sm: StateManagerInterface,
  blockchain: EVMMockBlockchainInterface,
  prepared: PreparedCall,
  gasLimit: bigint,
  opts: ApplyOptions = {},
): Promise<CallResult & { logs?: Log[] }> {
  const { ctx, msg } = prepared;
  const { common, params } = ctx.fork;
  const from = new Address(msg.from);

  await preCheck(sm, prepared, gasLimit, opts);
  const blobGas = BigInt(msg.blobHashes?.length ?? 0) * params.blobGasPerBlob;

  // buyGas: the balance must cover gas * feeCap + value (+ blob gas * blob fee cap)
  let mgval = gasLimit * msg.gasPrice;
  let balanceCheck = gasLimit * msg.feeCap + msg.value;
  if (blobGas > 0n) {
    balanceCheck += blobGas * (msg.blobFeeCap ?? 0n);
    mgval += blobGas * (ctx.blobBaseFee ?? 0n);
  }
  const sender = (await sm.getAccount(from)) ?? new Account();
  if (balanceCheck >= UINT256_LIMIT)
    failMessage(`insufficient funds for gas * price + value: address ${checksum(msg.from)} required balance exceeds 256 bits`, gasLimit);
  if (sender.balance < balanceCheck) {
    failMessage(`insufficient funds for gas * price + value: address ${checksum(msg.from)} have ${sender.balance} want ${balanceCheck}`, gasLimit);
  }
  sender.balance -= mgval;

  // intrinsic gas and the EIP-7623 floor
  const isCreate = msg.to === undefined;
  const intrinsic = intrinsicGas(params, msg, isCreate);
  if (gasLimit < intrinsic) failMessage(`intrinsic gas too low: have ${gasLimit}, want ${intrinsic}`, gasLimit);
  const floor = floorDataGas(params, msg.data);
  if (gasLimit < floor) failMessage(`intrinsic gas too low: have ${gasLimit}, want ${floor}`, gasLimit);
  if (msg.value > 0n && sender.balance < msg.value) failMessage(`insufficient funds for transfer: address ${checksum(msg.from)}`, gasLimit);
  if (isCreate && params.maxInitCodeSize !== undefined && BigInt(msg.data.length) > params.maxInitCodeSize) {
    failMessage(`max initcode size exceeded: code size ${msg.data.length} limit ${params.maxInitCodeSize}`, gasLimit);
  }

  // point the pooled EVM at this run's state and block
  pointEvmAt(evm, sm);
  evm.blockchain = blockchain;

  // Prepare: warm sender, recipient, precompiles, coinbase (EIP-3651) and the access list
  if (common.isActivatedEIP(2929)) {
    warmAddresses(evm, ctx.fork.precompileAddresses);
    warmAddresses(evm, [bytesToUnprefixedHex(msg.from)]);
    if (msg.to !== undefined) warmAddresses(evm, [bytesToUnprefixedHex(msg.to)]);
    if (common.isActivatedEIP(3651)) warmAddresses(evm, [bytesToUnprefixedHex(ctx.coinbase)]);
    for (const entry of msg.accessList) {
      const address = bytesToUnprefixedHex(entry.address);
      evm.journal.addAlwaysWarmAddress(address);
      for (const key of entry.storageKeys) evm.journal.addAlwaysWarmSlot(address, bytesToUnprefixedHex(key));
    }
  }

  // the sender's nonce goes up before the call (a CREATE derives its address from the old one)
  // a uint64, as geth's SetNonce(GetNonce()+1) (only reachable with nonce checks skipped)
  sender.nonce = (sender.nonce + 1n) & 0xffffffffffffffffn;
  await sm.putAccount(from, sender);

  let authRefund = 0n;
  if (!isCreate && msg.authorizations !== undefined) authRefund = await applyAuthorizations(evm, sm, common, params, msg.authorizations);
  if (!isCreate) {
    const code = await sm.getCode(new Address(msg.to!));
    if (isDelegation(code)) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(code.subarray(3, 23)));
  }

  const block = evmBlock(ctx);
  const executionGas = gasLimit - intrinsic;
  const result: EVMResult = await evm.runCall({
    block: block as never,
    gasPrice: msg.gasPrice,
    origin: from,
    caller: from,
    gasLimit: executionGas,
    to: msg.to === undefined ? undefined : new Address(msg.to),
    value: msg.value,
    data: msg.data,
    blobVersionedHashes: msg.blobHashes?.map((h) => bytesToHex(h)),
    skipNonceIncrement: true,
  });
  const exec = result.execResult;

  // gas: refunds (capped: 1/2 before London, 1/5 after) and the EIP-7623 floor
  let peak = intrinsic + exec.executionGasUsed;
  const quotient = common.isActivatedEIP(3529) ? 5n : 2n;
  let refund = authRefund + (exec.exceptionError ? 0n : (exec.gasRefund ?? 0n));
  if (refund > peak / quotient) refund = peak / quotient;
  let used = peak - refund;
  if (used < floor) used = floor;
  if (peak < floor) peak = floor;

  if (opts.settle) {
    // geth's refundGas and the tip to the coinbase, then EIP-161's removal of touched empty accounts
    const after = (await sm.getAccount(from)) ?? new Account();
    after.balance += (gasLimit - used) * msg.gasPrice;
    await sm.putAccount(from, after);
    const skipTip = opts.noBaseFee !== false && msg.feeCap === 0n && msg.tipCap === 0n;
    if (!skipTip) {
      let tip = msg.tipCap;
      if (ctx.baseFee !== undefined && msg.feeCap - ctx.baseFee < tip) tip = msg.feeCap - ctx.baseFee;
      const fee = used * (common.isActivatedEIP(1559) ? tip : msg.gasPrice);
      if (fee > 0n) {
        const coinbase = new Address(ctx.coinbase);
        const account = (await sm.getAccount(coinbase)) ?? new Account();
        account.balance += fee;
        await sm.putAccount(coinbase, account);
      }
    }
    if (common.gteHardfork('spuriousDragon')) await evm.journal.cleanup();
  }

  const err = exec.exceptionError;
  if (!err) return { returnValue: exec.returnValue, gasUsed: used, peakGasUsed: peak, logs: exec.logs };
  if (err.error === EVMError.errorMessages.REVERT) {
    return { returnValue: exec.returnValue, gasUsed: used, peakGasUsed: peak, failure: { kind: 'revert' } };
  }
  const frame = (exec as { runState?: FailedFrame }).runState;
  const message = gethErrorText(err, frame, precompileContext(evm, msg));
  return {
    returnValue: new Uint8Array(),
    gasUsed: used,
    peakGasUsed: peak,
    failure: { kind: 'halt', message, outOfGas: message === 'out of gas' },
  };
}

/** A message-validation failure of a run with `gasLimit`. */
function failMessage(reason: string, gasLimit: bigint): never {
  throw new MessageError(reason, gasLimit);
}

/** The precompile the top frame called, for precompile-specific error texts. */
function precompileContext(evm: EVM, msg: Message): PrecompileContext {
  if (msg.to === undefined || evm.precompiles.get(bytesToUnprefixedHex(msg.to)) === undefined) return undefined;
  let address = 0;
  for (const b of msg.to) address = address * 256 + b;
  return { address, input: msg.data };
}

/**
 * geth's `preCheck` of a message before it buys gas: the nonce (when checked), the fee fields
 * (London), the blob fields and the authorization list. A failure throws as {@link failMessage}.
 */
async function preCheck(sm: StateManagerInterface, prepared: PreparedCall, gasLimit: bigint, opts: ApplyOptions): Promise<void> {
  const { ctx, msg } = prepared;
  const { common, params } = ctx.fork;
  const from = new Address(msg.from);
  if (opts.nonce !== undefined) {
    const stNonce = (await sm.getAccount(from))?.nonce ?? 0n;
    if (stNonce < opts.nonce) failMessage(`nonce too high: address ${checksum(msg.from)}, tx: ${opts.nonce} state: ${stNonce}`, gasLimit);
    if (stNonce > opts.nonce) failMessage(`nonce too low: address ${checksum(msg.from)}, tx: ${opts.nonce} state: ${stNonce}`, gasLimit);
    if (stNonce === (1n << 64n) - 1n) failMessage(`nonce has max value: address ${checksum(msg.from)}, nonce: ${stNonce}`, gasLimit);
  }

  // preCheck: fee fields (London), blobs, authorizations
  if (common.isActivatedEIP(1559)) {
    const skip = opts.noBaseFee !== false && msg.feeCap === 0n && msg.tipCap === 0n;
    if (!skip) {
      if (msg.feeCap < msg.tipCap) {
        failMessage(
          `max priority fee per gas higher than max fee per gas: address ${checksum(msg.from)}, maxPriorityFeePerGas: ${msg.tipCap}, maxFeePerGas: ${msg.feeCap}`,
          gasLimit,
        );
      }
      if (msg.feeCap < (ctx.baseFee ?? 0n)) {
        failMessage(`max fee per gas less than block base fee: address ${checksum(msg.from)}, maxFeePerGas: ${msg.feeCap}, baseFee: ${ctx.baseFee}`, gasLimit);
      }
    }
  }
  if (msg.blobHashes !== undefined) {
    if (msg.to === undefined) failMessage('blob transaction of type create', gasLimit);
    if (msg.blobHashes.length === 0) failMessage('blob transaction missing blob hashes', gasLimit);
    if (params.maxBlobsPerTx !== undefined && msg.blobHashes.length > params.maxBlobsPerTx) failMessage('blob transaction has too many blobs', gasLimit);
    msg.blobHashes.forEach((h, i) => {
      if (h[0] !== 0x01) failMessage(`blob ${i} has invalid hash version`, gasLimit);
    });
  }
  const blobGas = BigInt(msg.blobHashes?.length ?? 0) * params.blobGasPerBlob;
  if (blobGas > 0n && msg.blobFeeCap !== 0n && (msg.blobFeeCap ?? 0n) < (ctx.blobBaseFee ?? 0n)) {
    failMessage(
      `max fee per blob gas less than block blob gas fee: address ${checksum(msg.from)} blobGasFeeCap: ${msg.blobFeeCap}, blobBaseFee: ${ctx.blobBaseFee}`,
      gasLimit,
    );
  }
  if (msg.authorizations !== undefined) {
    if (msg.to === undefined) failMessage(`EIP-7702 transaction cannot be used to create contract (sender ${checksum(msg.from)})`, gasLimit);
    if (msg.authorizations.length === 0) failMessage(`EIP-7702 transaction with empty auth list (sender ${checksum(msg.from)})`, gasLimit);
  }
}
