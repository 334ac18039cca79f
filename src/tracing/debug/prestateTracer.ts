import { bigIntToBytes, bytesToHex, equalsBytes, generateAddress, generateAddress2, KECCAK256_NULL } from '@ethereumjs/util';
import { isDelegation } from '../../execution/authorizations.js';
import { type AccountView, addressKey, type RunStateView, type StateView, type Tracer, type TxEnd, type TxStart, word32, wordToAddress } from './tracer.js';

/**
 * geth's `prestateTracer` (ethereum/go-ethereum `eth/tracers/native/prestate.go`): the accounts a
 * transaction touched, as they were before it. Touched means: the sender, the recipient (or the
 * created contract), the coinbase, EIP-7702 authorities and delegation targets, and whatever an
 * opcode named: BALANCE, EXTCODE*, SELFDESTRUCT beneficiaries, CALL-family targets, CREATE/CREATE2
 * addresses, and the slots SLOAD/SSTORE used. Each is read at its first touch, before the
 * transaction changed it. Accounts that did not exist are left out (unless `includeEmpty`).
 *
 * `diffMode` answers `{pre, post}` with only what changed: `post` has the new balance, nonce,
 * code, code hash and non-zero slots that differ; `pre` keeps the changed accounts with their
 * changed, non-zero slots; self-destructed accounts appear in `pre` only.
 */

interface Account {
  view: AccountView;
  storage: Map<string, Uint8Array>;
  empty: boolean;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
const SELFDESTRUCT = 0xff;
const ACCOUNT_READS = new Set([0x31, 0x3b, 0x3c, 0x3f, SELFDESTRUCT]);
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const ZERO32 = new Uint8Array(32);

export interface PrestateOptions {
  diffMode: boolean;
  disableCode: boolean;
  disableStorage: boolean;
  includeEmpty: boolean;
}

export class PrestateTracer implements Tracer {
  readonly opcodes = [SLOAD, SSTORE, 0x31, 0x3b, 0x3c, 0x3f, SELFDESTRUCT, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa];
  private readonly pre = new Map<string, Account>();
  private readonly post = new Map<string, Record<string, unknown>>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();
  private tx: TxStart | undefined;

  constructor(private readonly options: PrestateOptions) {}

  async startTx(tx: TxStart, before: StateView): Promise<void> {
    this.tx = tx;
    const to = tx.to ?? tx.created;
    if (tx.to === undefined && tx.created) this.created.add(addressKey(tx.created));
    else if (tx.to && tx.prague) {
      const code = (await before.account(tx.to)).code;
      if (isDelegation(code)) await this.lookup(code.subarray(3, 23), before);
    }
    await this.lookup(tx.from, before);
    if (to) await this.lookup(to, before);
    await this.lookup(tx.coinbase, before);
    for (const authority of tx.authorities) await this.lookup(authority, before);
  }

  async opcode(code: number, runState: RunStateView, now: StateView): Promise<void> {
    const stack = runState.stack;
    const n = stack.length;
    const caller = runState.interpreter.getAddress().bytes;
    if ((code === SLOAD || code === SSTORE) && n >= 1) {
      await this.lookupStorage(caller, word32(stack.peek(1)[0]), now);
    } else if (ACCOUNT_READS.has(code) && n >= 1) {
      await this.lookup(wordToAddress(stack.peek(1)[0]), now);
      if (code === SELFDESTRUCT && (!this.tx?.cancun || this.created.has(addressKey(caller)))) this.deleted.add(addressKey(caller));
    } else if (CALLS.has(code) && n >= 5) {
      const target = wordToAddress(stack.peek(2)[1]);
      await this.lookup(target, now);
      if (this.tx?.prague) {
        const targetCode = (await now.account(target)).code;
        if (isDelegation(targetCode)) await this.lookup(targetCode.subarray(3, 23), now);
      }
    } else if (code === 0xf0) {
      const nonce = (await now.account(caller)).nonce;
      const address = generateAddress(caller, bigIntToBytes(nonce));
      await this.lookup(address, now);
      this.created.add(addressKey(address));
    } else if (code === 0xf5 && n >= 4) {
      const [, offset, size, salt] = stack.peek(4);
      const init = size === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(size));
      const address = generateAddress2(caller, word32(salt), init);
      await this.lookup(address, now);
      this.created.add(addressKey(address));
    }
  }

  async endTx(_end: TxEnd, after: StateView): Promise<void> {
    if (this.options.diffMode) await this.diff(after);
    if (this.options.includeEmpty) return;
    for (const [key, account] of this.pre) if (account.empty) this.pre.delete(key);
  }

  result(): unknown {
    const pre = renderState(this.pre, this.options);
    if (!this.options.diffMode) return pre;
    return { post: sortKeys(Object.fromEntries(this.post)), pre };
  }

  private async lookup(address: Uint8Array, state: StateView): Promise<void> {
    const key = addressKey(address);
    if (this.pre.has(key)) return;
    const view = await state.account(address);
    const exists = view.nonce > 0n || view.code.length > 0 || view.balance !== 0n;
    this.pre.set(key, { view, storage: new Map(), empty: !exists });
  }

  private async lookupStorage(address: Uint8Array, slot: Uint8Array, state: StateView): Promise<void> {
    if (this.options.disableStorage) return;
    const account = this.pre.get(addressKey(address));
    if (!account) return;
    const key = bytesToHex(slot);
    if (account.storage.has(key)) return;
    account.storage.set(key, await state.storage(address, slot));
  }

  /** geth's processDiffState: keep what changed, record the new values in `post`. */
  private async diff(after: StateView): Promise<void> {
    const o = this.options;
    for (const [key, account] of this.pre) {
      if (this.deleted.has(key)) continue;
      const address = hexAddress(key);
      const now = await after.account(address);
      const post: Record<string, unknown> = {};
      let modified = false;
      const pre = account.view;
      if (now.balance !== pre.balance) {
        modified = true;
        post.balance = quantity(now.balance);
      }
      if (now.nonce !== pre.nonce) {
        modified = true;
        post.nonce = Number(now.nonce);
      }
      const preHash = pre.code.length > 0 ? pre.codeHash : KECCAK256_NULL;
      if (!equalsBytes(now.codeHash, preHash)) {
        modified = true;
        post.codeHash = bytesToHex(now.codeHash);
      }
      if (!o.disableCode && !equalsBytes(now.code, pre.code)) {
        modified = true;
        post.code = bytesToHex(now.code);
      }
      if (!o.disableStorage) {
        const slots: Record<string, string> = {};
        for (const [slot, value] of [...account.storage]) {
          if (equalsBytes(value, ZERO32)) account.storage.delete(slot);
          const newValue = await after.storage(address, hexAddress(slot));
          if (equalsBytes(value, newValue)) {
            account.storage.delete(slot);
          } else {
            modified = true;
            if (!equalsBytes(newValue, ZERO32)) slots[slot] = bytesToHex(newValue);
          }
        }
        if (Object.keys(slots).length > 0) post.storage = sortKeys(slots);
      }
      if (modified) this.post.set(`0x${key}`, orderAccount(post));
      else this.pre.delete(key);
    }
  }
}

/** geth's JSON of the pre state: balance always, nonce when not zero, code, code hash, storage. */
function renderState(accounts: Map<string, Account>, o: PrestateOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...accounts.keys()].sort()) {
    const { view, storage } = accounts.get(key)!;
    const json: Record<string, unknown> = { balance: quantity(view.balance) };
    if (!o.disableCode && view.code.length > 0) json.code = bytesToHex(view.code);
    if (view.code.length > 0 && !equalsBytes(view.codeHash, KECCAK256_NULL) && !equalsBytes(view.codeHash, ZERO32)) json.codeHash = bytesToHex(view.codeHash);
    if (view.nonce !== 0n) json.nonce = Number(view.nonce);
    if (!o.disableStorage && storage.size > 0) {
      json.storage = sortKeys(Object.fromEntries([...storage].map(([k, v]) => [k, bytesToHex(v)])));
    }
    out[`0x${key}`] = json;
  }
  return out;
}

function orderAccount(a: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['balance', 'code', 'codeHash', 'nonce', 'storage']) if (a[k] !== undefined) out[k] = a[k];
  return out;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function quantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}

function hexAddress(hex: string): Uint8Array {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(h.slice(i * 2, i * 2 + 2), 16);
  return out;
}
