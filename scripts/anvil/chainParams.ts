// Owns the fixed parameters of every anvil chain (chain id, times, gas, fees, the contracts anvil
// always has) and its named test accounts. Fixed values make the chains reproducible (docs/peers.md).
import type { Address, Hex } from 'viem';
import { deterministicAccount, type KeyedAccount } from '../lib/accounts.js';

export const CHAIN_ID = 31337;
export const GENESIS_TIMESTAMP = 1_700_000_000;
/** Seconds between blocks. */
export const BLOCK_TIME = 12;
export const GAS_LIMIT = 30_000_000n;
export const GWEI = 10n ** 9n;
export const ETHER = 10n ** 18n;
export const INITIAL_BASE_FEE = 1_000_000_000n;
/** What every funded EOA holds in the genesis: 1,000,000 ether. */
export const EOA_BALANCE = 1_000_000n * ETHER;
/** Fees of every transaction: far above the base fee, so no transaction waits. */
export const MAX_FEE = 100n * GWEI;
export const TIP = 1n * GWEI;
export const LEGACY_GAS_PRICE = 2n * GWEI;

/**
 * anvil puts the deterministic-deployment proxy (Arachnid's CREATE2 deployer) into every state it
 * loads, even with --disable-default-create2-deployer; it is part of our genesis so that ethereumjs
 * and anvil start from the same state.
 */
export const CREATE2_DEPLOYER: { address: Address; code: Hex } = {
  address: '0x4e59b44847b379578588920ca78fbf26c0b4956c',
  code: '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3',
};
/** EIP-4788's beacon-roots contract: absent from anvil chains, since anvil 1.7.1 does not run its system call. */
export const BEACON_ROOTS_ADDRESS: Address = '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02';

/** How the keys are derived, as expected.json states it. */
export const KEY_DERIVATION = 'private key = keccak256(utf8("tracenode/anvil/<name>")); bench users are user0..user99';

/** A named test account: private key keccak256("tracenode/anvil/<name>"), lower-case address. */
export function accountFor(name: string): KeyedAccount {
  return deterministicAccount('tracenode/anvil/', name);
}
