import type { Common } from '@ethereumjs/common';
import { unsupported } from './upstream.js';

/**
 * The uses of @ethereumjs/common's private fields (the other files of this directory hold the
 * EVM's and the state manager's): the EIPs a Common answers, answered from a set, some of them
 * hidden from the VM's runBlock. Each accessor checks what it finds and throws an Error naming the field rather
 * than carry on with every EIP off.
 */

/** Common's own `isActivatedEIP` (the prototype's method, whatever an instance was given). Throws if it is no longer one. */
function prototypeLookup(common: Common, use: string): (this: Common, eip: number) => boolean {
  const proto = Object.getPrototypeOf(common) as { isActivatedEIP?: unknown };
  if (typeof proto.isActivatedEIP !== 'function') throw unsupported('@ethereumjs/common', 'Common.prototype.isActivatedEIP', use);
  return proto.isActivatedEIP as (this: Common, eip: number) => boolean;
}

/**
 * The interpreter asks `isActivatedEIP` several times per opcode, and @ethereumjs/common answers
 * with a linear search of its private `_activatedEIPsCache` array (a quarter of the time of a
 * compute-heavy call). `common` answers from a Set of that array instead, less the EIPs in
 * `hidden`, rebuilt on `hardforkChanged`. Throws if the array is missing or stale (EIP-1, on every
 * fork, checked against Common's own answer), so that a renamed field cannot turn every EIP off.
 */
function answerFromSet(common: Common, hidden: ReadonlySet<number>): void {
  const activated = prototypeLookup(common, 'the EIPs isActivatedEIP searches');
  const read = (): Set<number> => {
    const cache = (common as unknown as { _activatedEIPsCache?: unknown })._activatedEIPsCache;
    if (!Array.isArray(cache)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    const active = new Set<number>(cache.filter((eip: number) => !hidden.has(eip)));
    if (active.has(1) !== activated.call(common, 1)) throw unsupported('@ethereumjs/common', 'Common._activatedEIPsCache', 'the EIPs isActivatedEIP searches');
    return active;
  };
  let active = read();
  common.events.on('hardforkChanged', () => {
    active = read();
  });
  common.isActivatedEIP = (eip: number) => active.has(eip);
}

const NO_EIPS: ReadonlySet<number> = new Set();

/** `common` (one that stays on a hardfork, or follows it with setHardfork) answers `isActivatedEIP` from a Set: {@link answerFromSet}. */
export function fastEipLookup(common: Common): void {
  answerFromSet(common, NO_EIPS);
}

/** EIP-4788 (beacon roots) and EIP-2935 (block-hash history): the system writes runBlock makes before a block's transactions. */
const SYSTEM_WRITE_EIPS: ReadonlySet<number> = new Set([4788, 2935]);

/** EIP-7002 (withdrawal requests) and EIP-7251 (consolidations): the request system calls runBlock makes after a block's withdrawals. */
const REQUEST_CALL_EIPS: ReadonlySet<number> = new Set([7002, 7251]);

/** The Commons {@link withoutRequestCalls} made. */
const hidingRequestCalls = new WeakSet<Common>();

/**
 * A copy of `common` that answers false for the EIPs in `hidden` and, for every other EIP, what
 * its hardfork activates (kept current by setHardforkBy), from a Set ({@link answerFromSet}).
 */
function withoutEips(common: Common, hidden: ReadonlySet<number>): Common {
  const copy = common.copy();
  answerFromSet(copy, hidden);
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
  return prototypeLookup(common, 'the EIPs a block runs with').call(common, eip);
}

/** Whether `common` was made by {@link withoutRequestCalls}: its blocks' request calls are the caller's to make. */
export function hidesRequestCalls(common: Common): boolean {
  return hidingRequestCalls.has(common);
}
