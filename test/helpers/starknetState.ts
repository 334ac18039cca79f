import type { FixtureBlock } from './starknetFixtures.js';

/**
 * Contract state for the stand-in Starknet upstream (`starknetUpstream.ts`), which has no Cairo VM
 * either: each block's state update is derived from the block's own transactions and events, and
 * the state at a block is found by replaying those updates over a base state, in the plainest
 * way (maps, no index), so that tracenode's indexed reads can be checked against it.
 *
 * The derivation is synthetic but deterministic and shaped like the real thing:
 * - `deployed_contracts`: the `contract_address` of each DEPLOY / DEPLOY_ACCOUNT receipt, with the
 *   transaction's `class_hash`;
 * - `nonces`: the sender of each transaction that has a nonce, at that nonce + 1;
 * - `storage_diffs`: per event, slot `keys[1]` (0x0 without one) of the emitting contract set to
 *   `data[0]` (0x0 without one), the last write of a block winning;
 * - `declared_classes` / `deprecated_declared_classes`: each DECLARE's class (v2+ / v0–v1).
 *
 * The base state (before the chain's first block) deploys every other address the chain touches,
 * with class `0xba5e…`, nonce 0x0 and storage `0x5eed…` in every slot, and declares every class
 * the chain deploys or the base uses; class definitions are small synthetic objects.
 */

export interface StateUpdateJson {
  block_hash: string;
  new_root: string;
  old_root: string;
  state_diff: {
    storage_diffs: Array<{ address: string; storage_entries: Array<{ key: string; value: string }> }>;
    deprecated_declared_classes: string[];
    declared_classes: Array<{ class_hash: string; compiled_class_hash: string }>;
    deployed_contracts: Array<{ address: string; class_hash: string }>;
    replaced_classes: Array<{ contract_address: string; class_hash: string }>;
    nonces: Array<{ contract_address: string; nonce: string }>;
  };
}

type Tx = { transaction?: Record<string, unknown>; receipt: Record<string, unknown> & { transaction_hash: string } };

/** A felt's canonical spelling. */
export const felt = (v: string | bigint): string => `0x${BigInt(v).toString(16)}`;

/** The state update of `block`, its parent's `new_root` as `old_root` (see the module comment). */
export function stateUpdateOf(block: FixtureBlock, oldRoot: string): StateUpdateJson {
  const storage = new Map<string, Map<string, string>>();
  const nonces = new Map<string, string>();
  const deployed: Array<{ address: string; class_hash: string }> = [];
  const declared: Array<{ class_hash: string; compiled_class_hash: string }> = [];
  const deprecated: string[] = [];
  for (const { transaction: tx, receipt } of block.transactions as unknown as Tx[]) {
    const type = tx?.type;
    if ((type === 'DEPLOY' || type === 'DEPLOY_ACCOUNT') && typeof receipt.contract_address === 'string' && typeof tx?.class_hash === 'string') {
      deployed.push({ address: felt(receipt.contract_address), class_hash: felt(tx.class_hash) });
    }
    const sender = typeof tx?.sender_address === 'string' ? tx.sender_address : type === 'DEPLOY_ACCOUNT' ? (receipt.contract_address as string) : undefined;
    if (sender !== undefined && typeof tx?.nonce === 'string') nonces.set(felt(sender), felt(BigInt(tx.nonce) + 1n));
    if (type === 'DECLARE' && typeof tx?.class_hash === 'string') {
      if (typeof tx.compiled_class_hash === 'string') declared.push({ class_hash: felt(tx.class_hash), compiled_class_hash: felt(tx.compiled_class_hash) });
      else deprecated.push(felt(tx.class_hash));
    }
    for (const e of receipt.events as Array<{ from_address: string; keys: string[]; data: string[] }>) {
      const slots = storage.get(felt(e.from_address)) ?? new Map<string, string>();
      slots.set(felt(e.keys[1] ?? '0x0'), felt(e.data[0] ?? '0x0'));
      storage.set(felt(e.from_address), slots);
    }
  }
  return {
    block_hash: block.block_hash,
    new_root: (block.new_root as string | undefined) ?? '0x0',
    old_root: oldRoot,
    state_diff: {
      storage_diffs: [...storage].map(([address, slots]) => ({ address, storage_entries: [...slots].map(([key, value]) => ({ key, value })) })),
      deprecated_declared_classes: deprecated,
      declared_classes: declared,
      deployed_contracts: deployed,
      replaced_classes: [],
      nonces: [...nonces].map(([contract_address, nonce]) => ({ contract_address, nonce })),
    },
  };
}

/** The state updates of a linked chain, block by block. */
export function stateUpdatesOf(blocks: readonly FixtureBlock[]): StateUpdateJson[] {
  return blocks.map((b, i) => stateUpdateOf(b, i === 0 ? '0x0' : ((blocks[i - 1].new_root as string | undefined) ?? '0x0')));
}

/** The base class of an address the chain does not deploy. */
export const baseClassOf = (address: string): string => felt(0xba5e00000000n + (BigInt(address) % 0xffffffffn));
/** The base value of a slot. */
export const baseSlotValue = (key: string): string => felt(0x5eed00000000n + (BigInt(key) % 0xffffffffn));

/** A synthetic class definition for `classHash` (a Sierra-shaped object). */
export function classDefinition(classHash: string): Record<string, unknown> {
  return {
    sierra_program: [felt(classHash), '0x1'],
    contract_class_version: '0.1.0',
    entry_points_by_type: { CONSTRUCTOR: [], EXTERNAL: [], L1_HANDLER: [] },
    abi: '[]',
  };
}

/**
 * The state after block `n` of `updates` (n = -1: the base): what `starknet_getStorageAt`,
 * `starknet_getNonce` and `starknet_getClassHashAt` answer there. `touched` is every address the
 * chain writes (the base deploys those it does not deploy).
 */
export class ReplayedState {
  private readonly storage = new Map<string, string>();
  private readonly nonces = new Map<string, string>();
  private readonly classes = new Map<string, string>();
  private readonly declared = new Set<string>();

  constructor(updates: readonly StateUpdateJson[], n: number, baseAddresses: ReadonlySet<string>, baseClasses: ReadonlySet<string>) {
    for (const a of baseAddresses) {
      this.classes.set(a, baseClassOf(a));
      this.declared.add(baseClassOf(a));
    }
    for (const c of baseClasses) this.declared.add(c);
    for (const u of updates.slice(0, n + 1)) {
      const d = u.state_diff;
      for (const s of d.storage_diffs) for (const e of s.storage_entries) this.storage.set(`${felt(s.address)}/${felt(e.key)}`, felt(e.value));
      for (const x of d.nonces) this.nonces.set(felt(x.contract_address), felt(x.nonce));
      for (const x of d.deployed_contracts) this.classes.set(felt(x.address), felt(x.class_hash));
      for (const x of d.replaced_classes) this.classes.set(felt(x.contract_address), felt(x.class_hash));
      for (const c of d.declared_classes) this.declared.add(felt(c.class_hash));
      for (const c of d.deprecated_declared_classes) this.declared.add(felt(c));
    }
    this.base = baseAddresses;
  }

  private readonly base: ReadonlySet<string>;

  /** undefined: no contract at the address. */
  storageAt(address: string, key: string): string | undefined {
    const written = this.storage.get(`${felt(address)}/${felt(key)}`);
    if (written !== undefined) return written;
    if (!this.classes.has(felt(address))) return undefined;
    return this.base.has(felt(address)) ? baseSlotValue(key) : '0x0';
  }

  nonceAt(address: string): string | undefined {
    return this.nonces.get(felt(address)) ?? (this.classes.has(felt(address)) ? '0x0' : undefined);
  }

  classHashAt(address: string): string | undefined {
    return this.classes.get(felt(address));
  }

  isDeclared(classHash: string): boolean {
    return this.declared.has(felt(classHash));
  }
}

/** Every address a chain's updates write that they do not deploy: the base deploys them. */
export function baseAddressesOf(updates: readonly StateUpdateJson[]): Set<string> {
  const deployed = new Set(updates.flatMap((u) => u.state_diff.deployed_contracts.map((d) => felt(d.address))));
  const touched = updates.flatMap((u) => [
    ...u.state_diff.storage_diffs.map((s) => felt(s.address)),
    ...u.state_diff.nonces.map((x) => felt(x.contract_address)),
  ]);
  return new Set(touched.filter((a) => !deployed.has(a)));
}

/** Every class the updates deploy: the base declares them (the chain declares none of them itself). */
export function baseClassesOf(updates: readonly StateUpdateJson[]): Set<string> {
  return new Set(updates.flatMap((u) => u.state_diff.deployed_contracts.map((d) => felt(d.class_hash))));
}
