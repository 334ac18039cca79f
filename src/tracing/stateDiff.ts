import type { StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';
import { bytesToUnprefixedHex, KECCAK256_NULL, setLengthLeft } from '@ethereumjs/util';
import type { CallFrame } from './callTree.js';

/**
 * The state a transaction changed, account by account, with no wire format in it (the Parity
 * renderer is {@link ./parityResults.ts}). Two steps:
 *
 * 1. {@link recordStateChanges} watches a state manager during one run: on the first access of
 *    an account (or a storage slot) in the run it reads the value the run starts from, and at the
 *    end the value it left. Every state access of @ethereumjs/vm and @ethereumjs/evm goes through
 *    the state manager's methods, so the first access always precedes the run's first write.
 * 2. {@link stateDiff} turns those values into per-account deltas by reth's rules
 *    (paradigmxyz/revm-inspectors `populate_state_diff`), which anvil serves as well:
 *    - an account the run left as it found it (read only; or touched, e.g. a coinbase paid
 *      nothing) is not listed;
 *    - a contract the run created on an address without balance is all `+` (balance, nonce, code,
 *      and the storage slots it set); created and destroyed in the same run, it is not listed;
 *    - any other account: `=` or `*` for balance and nonce, `*` for storage slots whose value
 *      changed (from 0 for new slots), code `*` when it changed; an account that did not exist
 *      and received value is `*` from 0 (reth and anvil; OpenEthereum said `+`);
 *    - an account that existed and was deleted (a pre-Cancun SELFDESTRUCT, an EIP-161 cleanup) is
 *      all `-`, as OpenEthereum shows a died account (only the slots the run touched are listed).
 */

/** How one value changed. */
export type Delta<T> = { kind: 'same' } | { kind: 'added'; to: T } | { kind: 'removed'; from: T } | { kind: 'changed'; from: T; to: T };

/** What one account's change is, in domain values; storage values are 32 bytes. */
export interface AccountDiff {
  address: Uint8Array;
  balance: Delta<bigint>;
  nonce: Delta<bigint>;
  code: Delta<Uint8Array>;
  /** By slot, ascending. */
  storage: Array<{ key: Uint8Array; delta: Delta<Uint8Array> }>;
}

/** A run's state diff, by address ascending. */
export type StateDiff = AccountDiff[];

/** An account's fields as a run found or left it (undefined: no account). */
interface AccountState {
  balance: bigint;
  nonce: bigint;
  codeHash: Uint8Array;
}

/** One account a run accessed: its state before and after, and the slots it accessed. */
export interface AccountChange {
  address: Uint8Array;
  pre: AccountState | undefined;
  post: AccountState | undefined;
  /** Codes, read only when the code hash changed. */
  preCode: Uint8Array;
  postCode: Uint8Array;
  /** Slot (32 bytes), value before, value after (32 bytes each). */
  slots: Array<[Uint8Array, Uint8Array, Uint8Array]>;
}

interface Watched {
  address: Address;
  pre: AccountState | undefined;
  preCode: Uint8Array | undefined;
  slots: Map<string, [Uint8Array, Uint8Array]>;
}

/** Watches a state manager; one run at a time, between `begin()` and `finish()`. */
export interface StateChangeRecorder {
  begin(): void;
  /** The accounts the run accessed, with their values before and now. Stops watching. */
  finish(): Promise<AccountChange[]>;
}

const EMPTY = new Uint8Array(0);

function stateOf(account: Account | undefined): AccountState | undefined {
  return account === undefined ? undefined : { balance: account.balance, nonce: account.nonce, codeHash: account.codeHash.slice() };
}

function word(value: Uint8Array): Uint8Array {
  return setLengthLeft(value, 32);
}

/**
 * Wraps the account, code and storage methods of `sm` in place (the VM and EVM hold the same
 * object) so that a run's first access of each account and slot records its value first.
 */
export function recordStateChanges(sm: StateManagerInterface): StateChangeRecorder {
  const getAccount = sm.getAccount.bind(sm);
  const getCode = sm.getCode.bind(sm);
  const getStorage = sm.getStorage.bind(sm);
  let watched: Map<string, Watched> | undefined;

  const touch = async (address: Address): Promise<Watched | undefined> => {
    if (!watched) return undefined;
    const key = bytesToUnprefixedHex(address.bytes);
    let entry = watched.get(key);
    if (!entry) {
      entry = { address, pre: undefined, preCode: undefined, slots: new Map() };
      watched.set(key, entry);
      entry.pre = stateOf(await getAccount(address));
    }
    return entry;
  };
  const touchCode = async (address: Address): Promise<void> => {
    const entry = await touch(address);
    if (entry && entry.preCode === undefined) entry.preCode = await getCode(address);
  };
  const touchSlot = async (address: Address, slot: Uint8Array): Promise<void> => {
    const entry = await touch(address);
    if (!entry) return;
    const key = bytesToUnprefixedHex(slot);
    if (!entry.slots.has(key)) entry.slots.set(key, [word(slot), word(await getStorage(address, slot))]);
  };

  const methods = sm as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const wrap = (name: keyof StateManagerInterface, before: (args: never[]) => Promise<void>): void => {
    const original = methods[name]!.bind(sm);
    methods[name] = async (...args: unknown[]) => {
      if (watched) await before(args as never[]);
      return original(...args);
    };
  };
  for (const name of ['getAccount', 'putAccount', 'modifyAccountFields', 'getCodeSize', 'getCode', 'clearStorage'] as const) {
    wrap(name, async ([address]: never[]) => void (await touch(address as Address)));
  }
  wrap('putCode', async ([address]: never[]) => touchCode(address as Address));
  wrap('deleteAccount', async ([address]: never[]) => touchCode(address as Address));
  wrap('getStorage', async ([address, slot]: never[]) => touchSlot(address as Address, slot as Uint8Array));
  wrap('putStorage', async ([address, slot]: never[]) => touchSlot(address as Address, slot as Uint8Array));

  return {
    begin() {
      watched = new Map();
    },
    async finish() {
      const entries = [...(watched?.values() ?? [])];
      watched = undefined;
      const out: AccountChange[] = [];
      for (const entry of entries) {
        const post = stateOf(await getAccount(entry.address));
        const codeChanged = !sameBytes(entry.pre?.codeHash ?? KECCAK256_NULL, post?.codeHash ?? KECCAK256_NULL);
        const slots: AccountChange['slots'] = [];
        for (const [slot, before] of entry.slots.values()) slots.push([slot, before, word(await getStorage(entry.address, slot))]);
        out.push({
          address: entry.address.bytes,
          pre: entry.pre,
          post,
          // the code before is read on the first write that may change it (putCode, deleteAccount)
          preCode: codeChanged ? (entry.preCode ?? EMPTY) : EMPTY,
          postCode: post !== undefined && (codeChanged || entry.pre === undefined) ? await getCode(entry.address) : EMPTY,
          slots,
        });
      }
      return out;
    },
  };
}

/**
 * The addresses a transaction created: CREATE/CREATE2 frames that succeeded, with every frame
 * above them (a creation under a failed frame is undone), as unprefixed hex.
 */
export function createdAddresses(root: CallFrame | undefined): Set<string> {
  const out = new Set<string>();
  const visit = (frame: CallFrame): void => {
    if (frame.error !== undefined) return;
    if ((frame.kind === 'create' || frame.kind === 'create2') && frame.to) out.add(bytesToUnprefixedHex(frame.to));
    for (const child of frame.children) if (child.kind !== 'selfdestruct') visit(child);
  };
  if (root) visit(root);
  return out;
}

const same = { kind: 'same' } as const;

function delta<T>(from: T, to: T, equal: (a: T, b: T) => boolean): Delta<T> {
  return equal(from, to) ? same : { kind: 'changed', from, to };
}

const eq = (a: bigint, b: bigint) => a === b;

/** The state diff of a run's changes (see the module comment for the rules). */
export function stateDiff(changes: readonly AccountChange[], created: ReadonlySet<string>): StateDiff {
  const out: StateDiff = [];
  for (const change of changes) {
    const { pre, post } = change;
    const wasCreated = created.has(bytesToUnprefixedHex(change.address));
    const changedSlots = change.slots.filter(([, before, after]) => !sameBytes(before, after)).sort(([a], [b]) => compareBytes(a, b));
    if (wasCreated && post === undefined) continue;
    if (post !== undefined && wasCreated && (pre?.balance ?? 0n) === 0n) {
      out.push({
        address: change.address,
        balance: { kind: 'added', to: post.balance },
        nonce: { kind: 'added', to: post.nonce },
        code: { kind: 'added', to: change.postCode },
        storage: changedSlots.map(([key, , after]) => ({ key, delta: { kind: 'added', to: after } })),
      });
      continue;
    }
    if (post === undefined) {
      if (pre === undefined) continue;
      out.push({
        address: change.address,
        balance: { kind: 'removed', from: pre.balance },
        nonce: { kind: 'removed', from: pre.nonce },
        code: { kind: 'removed', from: change.preCode },
        storage: change.slots
          .filter(([, before]) => before.some((b) => b !== 0))
          .sort(([a], [b]) => compareBytes(a, b))
          .map(([key, before]) => ({ key, delta: { kind: 'removed', from: before } })),
      });
      continue;
    }
    const before = pre ?? { balance: 0n, nonce: 0n, codeHash: KECCAK256_NULL };
    const codeSame = sameBytes(before.codeHash, post.codeHash);
    if (changedSlots.length === 0 && before.balance === post.balance && before.nonce === post.nonce && codeSame) continue;
    out.push({
      address: change.address,
      balance: delta(before.balance, post.balance, eq),
      nonce: delta(before.nonce, post.nonce, eq),
      code: codeSame ? same : { kind: 'changed', from: change.preCode, to: change.postCode },
      storage: changedSlots.map(([key, from, to]) => ({ key, delta: { kind: 'changed', from, to } })),
    });
  }
  return out.sort((a, b) => compareBytes(a.address, b.address));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
