import type { Common } from '@ethereumjs/common';
import { unsupported } from './ethereumjsInternals.js';

/**
 * The uses of @ethereumjs/common's private fields (`ethereumjsInternals.ts` holds the EVM's and the
 * state manager's): the EIPs a Common answers, answered from a set, some of them hidden from the
 * VM's runBlock. Each accessor checks what it finds and throws an Error naming the field rather
 * than carry on with every EIP off.
 */

/**
 * The interpreter asks `isActivatedEIP` several times per opcode, and @ethereumjs/common answers
 * with a linear search of its private `_activatedEIPsCache` array (a quarter of the time of a
 * compute-heavy call). For a Common that stays on one hardfork, answer from a Set of that array
 * instead, rebuilt on `hardforkChanged`. Throws if the array is missing, so that a renamed field
 * cannot turn every EIP off.
 */
export function fastEipLookup(common: Common): void {
  const original = common.isActivatedEIP.bind(common);
  const read = (): Set<number> => {
    const cache = (common as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache;
    if (!Array.isArray(cache)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    const active = new Set<number>(cache);
    // EIP-1 (chainstart) is active on every fork: a stale array left behind a rename shows here.
    if (active.has(1) !== original(1)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    return active;
  };
  let active = read();
  common.events.on('hardforkChanged', () => {
    active = read();
  });
  common.isActivatedEIP = (eip: number) => active.has(eip);
}

/** EIP-4788 (beacon roots) and EIP-2935 (block-hash history): the system writes runBlock makes before a block's transactions. */
const SYSTEM_WRITE_EIPS: ReadonlySet<number> = new Set([4788, 2935]);

/** EIP-7002 (withdrawal requests) and EIP-7251 (consolidations): the request system calls runBlock makes after a block's withdrawals. */
const REQUEST_CALL_EIPS: ReadonlySet<number> = new Set([7002, 7251]);

/** The Commons {@link withoutRequestCalls} made. */
const hidingRequestCalls = new WeakSet<Common>();

/**
 * A copy of `common` that answers false for the EIPs in `hidden` and what the prototype answers
 * (its own hardfork's EIPs, kept current by setHardforkBy) for every other EIP. Throws if
 * `isActivatedEIP` is no longer a method of Common's prototype.
 */
function withoutEips(common: Common, hidden: ReadonlySet<number>): Common {
  const copy = common.copy();
  const proto = Object.getPrototypeOf(copy) as { isActivatedEIP?: unknown };
  if (typeof proto.isActivatedEIP !== 'function') throw unsupported('@ethereumjs/common', 'Common.prototype.isActivatedEIP', 'the EIPs runBlock asks about');
  const activated = proto.isActivatedEIP as (this: Common, eip: number) => boolean;
  // The interpreter asks several times an opcode: answered from a set of the hardfork's EIPs, made
  // again when the hardfork changes (as fastEipLookup does), rather than by Common's linear search.
  const read = (): Set<number> => {
    const cache = (copy as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache;
    if (!Array.isArray(cache)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    const active = new Set<number>(cache.filter((eip: number) => !hidden.has(eip)));
    if (active.has(1) !== activated.call(copy, 1)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    return active;
  };
  let active = read();
  copy.events.on('hardforkChanged', () => {
    active = read();
  });
  copy.isActivatedEIP = (eip: number) => active.has(eip);
  return copy;
}

/**
 * A copy of `common` for a VM that executes blocks without the EIP-4788 and EIP-2935 system
 * writes (a Hardhat chain: `chain/systemWrites.ts`). @ethereumjs/vm's runBlock makes each write
 * when `vm.common.isActivatedEIP(4788)` / `(2935)` answers true, and nothing else in the VM or the
 * EVM asks about these two EIPs (read in @ethereumjs/vm 10.1.3 `runBlock.ts`, `buildBlock.ts`;
 * @ethereumjs/evm asks about neither), so the copy answers false for them. Blocks keep their own
 * Common, in which both EIPs stay active: their headers still carry `parentBeaconBlockRoot`.
 */
export function withoutSystemWrites(common: Common): Common {
  return withoutEips(common, SYSTEM_WRITE_EIPS);
}

/**
 * A copy of `common` for a VM whose blocks' EIP-7002 and EIP-7251 system calls are made by
 * `execution/blockRun.ts` instead of @ethereumjs/vm. Its `accumulateRequests` is the only code of
 * the VM and the EVM that asks about these EIPs (read in @ethereumjs/vm 10.1.3 `requests.ts`,
 * @ethereumjs/evm 10.1.3), and it makes each call with `runCall` from the system address: it reads
 * that account, the call raises its nonce, and the account is put back or deleted after. The EIPs
 * never touch the system address, and a witness holds no trie path for it.
 */
export function withoutRequestCalls(common: Common): Common {
  const copy = withoutEips(common, REQUEST_CALL_EIPS);
  hidingRequestCalls.add(copy);
  return copy;
}

/**
 * Whether `eip` is active in `common`'s hardfork, as Common's own method answers: what the copies
 * above hide (a block made with such a copy carries it) is answered too.
 */
export function eipActive(common: Common, eip: number): boolean {
  const proto = Object.getPrototypeOf(common) as { isActivatedEIP?: unknown };
  if (typeof proto.isActivatedEIP !== 'function') throw unsupported('@ethereumjs/common', 'Common.prototype.isActivatedEIP', 'the EIPs a block runs with');
  return (proto.isActivatedEIP as (this: Common, eip: number) => boolean).call(common, eip);
}

/** Whether `common` was made by {@link withoutRequestCalls}: its blocks' request calls are the caller's to make. */
export function hidesRequestCalls(common: Common): boolean {
  return hidingRequestCalls.has(common);
}
