import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import {
  Account,
  type Address,
  bigIntToUnpaddedBytes,
  bytesToUnprefixedHex,
  concatBytes,
  eoaCode7702RecoverAuthority,
  equalsBytes,
  SECP256K1_ORDER,
  SECP256K1_ORDER_DIV_2,
} from '@ethereumjs/util';
import type { Authorization } from './callArgs.js';
import type { MessageParams } from './messageParams.js';

/**
 * EIP-7702 (https://eips.ethereum.org/EIPS/eip-7702) authorizations of a message, applied as geth
 * applies them before the call (ethereum/go-ethereum `core/state_transition.go`
 * applyAuthorization, validateAuthorization), and the delegation designator they install.
 */

/** The designator's prefix; the delegate's 20-byte address follows it. */
const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);

/** Whether account code is an EIP-7702 delegation designator (`0xef0100 ‖ address`). */
export function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** The account that signed an EIP-7702 authorization, or undefined when its signature does not recover. */
export function recoverAuthority(auth: Authorization): Address | undefined {
  try {
    return eoaCode7702RecoverAuthority([
      bigIntToUnpaddedBytes(auth.chainId),
      auth.address,
      bigIntToUnpaddedBytes(auth.nonce),
      bigIntToUnpaddedBytes(auth.yParity),
      bigIntToUnpaddedBytes(auth.r),
      bigIntToUnpaddedBytes(auth.s),
    ]);
  } catch {
    return undefined;
  }
}

/**
 * Applies a message's authorizations to `sm`: invalid ones are skipped; each valid one warms its
 * authority, bumps its nonce and installs (or clears) its delegation. Returns the refund for
 * authorities that already existed.
 */
export async function applyAuthorizations(evm: EVM, sm: StateManagerInterface, common: Common, p: MessageParams, auths: Authorization[]): Promise<bigint> {
  let refund = 0n;
  const chainId = common.chainId();
  for (const auth of auths) {
    if (auth.chainId !== 0n && auth.chainId !== chainId) continue;
    if (auth.nonce >= (1n << 64n) - 1n) continue;
    if (auth.yParity > 1n || auth.r === 0n || auth.s === 0n || auth.r >= SECP256K1_ORDER || auth.s > SECP256K1_ORDER_DIV_2) continue;
    const authority = recoverAuthority(auth);
    if (authority === undefined) continue;
    evm.journal.addAlwaysWarmAddress(bytesToUnprefixedHex(authority.bytes));
    const existing = await sm.getAccount(authority);
    const code = existing ? await sm.getCode(authority) : new Uint8Array();
    const delegated = isDelegation(code);
    if (code.length > 0 && !delegated) continue;
    if ((existing?.nonce ?? 0n) !== auth.nonce) continue;
    // the per-empty-account cost was charged as intrinsic gas; an existing account refunds the
    // difference to the per-authorization base cost
    if (existing !== undefined) refund += p.perEmptyAccountCost - p.perAuthBaseGas;
    const account = existing ?? new Account();
    account.nonce = auth.nonce + 1n;
    await sm.putAccount(authority, account);
    const zero = auth.address.every((b) => b === 0);
    if (zero) {
      if (delegated) await sm.putCode(authority, new Uint8Array());
    } else if (!delegated || !equalsBytes(code.subarray(3, 23), auth.address)) {
      await sm.putCode(authority, concatBytes(DELEGATION_PREFIX, auth.address));
    }
  }
  return refund;
}
