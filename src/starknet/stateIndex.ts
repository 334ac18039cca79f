import type { BatchOp, Level } from '../db/database.js';
import type { StateDiff, StateUpdateInput } from './block.js';
import { feltToBytes } from './felt.js';
import { array, felt, object } from './jsonInput.js';
import { classDeclaredKey, encodeBlockNumber, postingKey, statePrefix, stateUpdateKey } from './keys.js';

/**
 * A block's state update in the store (key schema in `keys.ts`): the `U` record, the update as
 * its source gave it (a `starknet_getStateUpdate` answer, served back as is), and one history
 * entry per item it wrote, at the block's number: `S` per storage slot, `O` per nonce, `Z` per
 * deployed or replaced contract, `D` per declared class. Taking a block away deletes exactly those
 * entries, found again from its `U` record.
 */

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The puts of block `number`'s state update. */
export function stateOps(number: number, update: StateUpdateInput): BatchOp[] {
  const ops: BatchOp[] = [{ type: 'put', key: stateUpdateKey(number), value: utf8Encoder.encode(JSON.stringify(update.json)) }];
  const block = encodeBlockNumber(number);
  for (const { key, value } of itemEntries(number, update.diff)) ops.push({ type: 'put', key, value });
  for (const classHash of update.diff.declared) ops.push({ type: 'put', key: classDeclaredKey(feltToBytes(classHash)), value: block });
  return ops;
}

/** The deletes of stored block `number`'s state update and its entries (none when it has no update). */
export async function stateRemovalOps(level: Level, number: number): Promise<BatchOp[]> {
  const value = await level.get(stateUpdateKey(number));
  if (value === undefined) return [];
  const update = parseStateUpdateJson(JSON.parse(utf8Decoder.decode(value)));
  const ops: BatchOp[] = [{ type: 'del', key: stateUpdateKey(number) }];
  for (const { key } of itemEntries(number, update.diff)) ops.push({ type: 'del', key });
  for (const classHash of update.diff.declared) ops.push({ type: 'del', key: classDeclaredKey(feltToBytes(classHash)) });
  return ops;
}

/** The stored state update of block `number` (the source's JSON), or undefined. */
export async function readStateUpdate(level: Level, number: number): Promise<Record<string, unknown> | undefined> {
  const value = await level.get(stateUpdateKey(number));
  return value === undefined ? undefined : (JSON.parse(utf8Decoder.decode(value)) as Record<string, unknown>);
}

/** The `S`, `O` and `Z` entries of a diff at block `number`: each item's key and its new value (32 bytes). */
function itemEntries(number: number, diff: StateDiff): Array<{ key: Uint8Array; value: Uint8Array }> {
  return [
    ...diff.storage.map((s) => ({ key: postingKey(statePrefix.storage(feltToBytes(s.address), feltToBytes(s.key)), number), value: feltToBytes(s.value) })),
    ...diff.nonces.map((n) => ({ key: postingKey(statePrefix.nonce(feltToBytes(n.address)), number), value: feltToBytes(n.nonce) })),
    ...diff.classes.map((c) => ({ key: postingKey(statePrefix.classHash(feltToBytes(c.address)), number), value: feltToBytes(c.classHash) })),
  ];
}

/**
 * Validates one `starknet_getStateUpdate` result (STATE_UPDATE of spec 0.8; a pending update,
 * which has no `block_hash`, is refused) and reads its diff. Throws an Error naming the
 * offending field (`state_diff.nonces[2].nonce: invalid felt "0xzz"`).
 */
export function parseStateUpdateJson(raw: unknown): StateUpdateInput {
  const u = object(raw, 'state update');
  const blockHash = felt(u.block_hash, 'block_hash');
  felt(u.new_root, 'new_root');
  felt(u.old_root, 'old_root');
  const d = object(u.state_diff, 'state_diff');
  const list = (name: string) => (d[name] === undefined ? [] : array(d[name], `state_diff.${name}`));
  const diff: StateDiff = { storage: [], nonces: [], classes: [], declared: [] };
  list('storage_diffs').forEach((item, i) => {
    const where = `state_diff.storage_diffs[${i}]`;
    const o = object(item, where);
    const address = felt(o.address, `${where}.address`);
    array(o.storage_entries, `${where}.storage_entries`).forEach((e, j) => {
      const entry = object(e, `${where}.storage_entries[${j}]`);
      diff.storage.push({
        address,
        key: felt(entry.key, `${where}.storage_entries[${j}].key`),
        value: felt(entry.value, `${where}.storage_entries[${j}].value`),
      });
    });
  });
  list('nonces').forEach((item, i) => {
    const o = object(item, `state_diff.nonces[${i}]`);
    diff.nonces.push({ address: felt(o.contract_address, `state_diff.nonces[${i}].contract_address`), nonce: felt(o.nonce, `state_diff.nonces[${i}].nonce`) });
  });
  for (const [name, addressField] of [
    ['deployed_contracts', 'address'],
    ['replaced_classes', 'contract_address'],
  ] as const) {
    list(name).forEach((item, i) => {
      const o = object(item, `state_diff.${name}[${i}]`);
      diff.classes.push({
        address: felt(o[addressField], `state_diff.${name}[${i}].${addressField}`),
        classHash: felt(o.class_hash, `state_diff.${name}[${i}].class_hash`),
      });
    });
  }
  list('declared_classes').forEach((item, i) => {
    diff.declared.push(felt(object(item, `state_diff.declared_classes[${i}]`).class_hash, `state_diff.declared_classes[${i}].class_hash`));
  });
  list('deprecated_declared_classes').forEach((item, i) => {
    diff.declared.push(felt(item, `state_diff.deprecated_declared_classes[${i}]`));
  });
  return { blockHash, json: u, diff };
}
