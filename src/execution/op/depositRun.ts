import type { Block } from '@ethereumjs/block';
import type { ExecResult, Log } from '@ethereumjs/evm';
import { Account, Address, bytesToUnprefixedHex, createAddressFromString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { DepositTx } from '../../chain/op/depositTx.js';

/**
 * A deposit run as op-geth's state transition runs one (`core/state_transition.go`, OP
 * specification "deposits", "execution"):
 *
 * 1. `mint` is credited to `from`, kept whatever happens next;
 * 2. checks that would make an ordinary transaction invalid make the deposit *fail* instead (a
 *    system transaction from Regolith on, gas below the intrinsic gas, a value `from` cannot pay,
 *    init code over EIP-3860's limit): everything after the mint is undone, `from`'s nonce is
 *    raised, the receipt has status 0 and uses the whole gas limit;
 * 3. otherwise `from`'s nonce is raised and the message runs with the gas limit less intrinsic
 *    gas, at gas price 0 (nothing bought, nothing refunded in wei, nothing paid to the coinbase);
 *    an EVM failure (revert, out of gas) undoes the message as on Ethereum.
 *
 * Gas used: from Regolith what the run used, refunds counted (EIP-3529's cap); before Regolith
 * the whole gas limit, and 0 for a system transaction.
 */

export interface DepositRun {
  /** Gas the receipt and the block count. */
  gasUsed: bigint;
  status: 0 | 1;
  logs: Log[];
  /** `from`'s nonce before the deposit (receipts' `depositNonce` from Regolith). */
  nonce: bigint;
  createdAddress: Address | undefined;
  /** The message's result; none for a deposit that failed before its message ran. */
  execResult?: ExecResult;
}

export interface DepositRules {
  regolith: boolean;
}

/** Gas a deposit pays before it runs (Ethereum's intrinsic gas, without an access list). */
function intrinsicGas(vm: VM, tx: DepositTx): bigint {
  const common = vm.common;
  let zeroes = 0;
  for (const byte of tx.data) if (byte === 0) zeroes++;
  let gas = common.param('txGas') + BigInt(zeroes) * common.param('txDataZeroGas') + BigInt(tx.data.length - zeroes) * common.param('txDataNonZeroGas');
  if (tx.to === undefined) {
    gas += common.param('txCreationGas');
    if (common.isActivatedEIP(3860)) gas += common.param('initCodeWordGas') * BigInt(Math.ceil(tx.data.length / 32));
  }
  return gas;
}

/** Why the deposit fails before its message runs, or undefined. */
async function failsBeforeRun(vm: VM, tx: DepositTx, rules: DepositRules, balance: bigint): Promise<string | undefined> {
  if (tx.isSystemTx && rules.regolith) return 'system transactions are not supported from Regolith';
  const intrinsic = intrinsicGas(vm, tx);
  if (tx.gasLimit < intrinsic) return `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`;
  if (tx.value > balance) return 'insufficient funds for transfer';
  if (tx.to === undefined && vm.common.isActivatedEIP(3860) && BigInt(tx.data.length) > vm.common.param('maxInitCodeSize')) {
    return 'max initcode size exceeded';
  }
  return undefined;
}

/** Runs `tx` in `block` on `vm`'s state (its changes committed to the state manager). */
export async function runDeposit(vm: VM, tx: DepositTx, block: Block, rules: DepositRules): Promise<DepositRun> {
  const evm = vm.evm;
  const from = new Address(tx.from);
  await evm.journal.cleanup();
  await evm.journal.checkpoint();
  const minted = (await vm.stateManager.getAccount(from)) ?? new Account();
  minted.balance += tx.mint;
  await evm.journal.putAccount(from, minted);
  const nonce = minted.nonce;

  await evm.journal.checkpoint();
  const failure = await failsBeforeRun(vm, tx, rules, minted.balance);
  if (failure !== undefined) {
    await evm.journal.revert();
    const account = (await vm.stateManager.getAccount(from)) ?? new Account();
    account.nonce += 1n;
    await evm.journal.putAccount(from, account);
    await finish(vm);
    const gasUsed = tx.isSystemTx && !rules.regolith ? 0n : tx.gasLimit;
    return { gasUsed, status: 0, logs: [], nonce, createdAddress: undefined };
  }

  // EIP-2929's warm set, as for any transaction: precompiles, sender, recipient, coinbase (EIP-3651).
  for (const [address] of evm.precompiles.entries()) evm.journal.addAlwaysWarmAddress(address);
  evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(tx.from));
  if (tx.to !== undefined) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(tx.to));
  if (vm.common.isActivatedEIP(3651)) evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes));

  const account = (await vm.stateManager.getAccount(from)) ?? new Account();
  account.nonce += 1n;
  await evm.journal.putAccount(from, account);
  const intrinsic = intrinsicGas(vm, tx);
  const result = await evm.runCall({
    block: block as never,
    gasPrice: 0n,
    caller: from,
    origin: from,
    gasLimit: tx.gasLimit - intrinsic,
    to: tx.to === undefined ? undefined : new Address(tx.to),
    value: tx.value,
    data: tx.data,
    skipNonceIncrement: true,
  });
  await evm.journal.commit();
  const exec = result.execResult;
  await destroySelfdestructed(vm, exec.selfdestruct, exec.createdAddresses);
  await finish(vm);

  let gasUsed: bigint;
  if (rules.regolith) {
    const spent = exec.executionGasUsed + intrinsic;
    const refund = exec.gasRefund ?? 0n;
    const cap = spent / vm.common.param('maxRefundQuotient');
    gasUsed = spent - (refund < cap ? refund : cap);
  } else {
    gasUsed = tx.isSystemTx ? 0n : tx.gasLimit;
  }
  const failed = exec.exceptionError !== undefined;
  return {
    gasUsed,
    status: failed ? 0 : 1,
    logs: failed ? [] : (exec.logs ?? []),
    nonce,
    createdAddress: failed ? undefined : result.createdAddress,
    execResult: exec,
  };
}

/** The outer checkpoint committed, touched empty accounts removed (EIP-161), as runTx ends a transaction. */
async function finish(vm: VM): Promise<void> {
  await vm.evm.journal.commit();
  await vm.evm.journal.cleanup();
  vm.stateManager.originalStorageCache.clear();
}

/** Accounts the message self-destructed, deleted (from Cancun only those it created, EIP-6780). */
async function destroySelfdestructed(vm: VM, destroyed: Map<string, string> | undefined, created: Set<string> | undefined): Promise<void> {
  if (destroyed === undefined) return;
  for (const hex of [...destroyed.keys()].sort()) {
    const address = createAddressFromString(hex);
    if (vm.common.isActivatedEIP(6780) && !created?.has(address.toString())) continue;
    await vm.evm.journal.deleteAccount(address);
  }
}
