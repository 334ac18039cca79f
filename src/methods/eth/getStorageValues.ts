import { z } from 'zod';
import { BlockNumberOrHash } from '../../codec/blockId.js';
import { bytesToData32, hexKey } from '../../codec/hex.js';
import { Address, Hash, jsonType } from '../../codec/schemas.js';
import { InvalidParamsError, LimitExceededError } from '../../rpc/errors.js';
import { defineMethod } from '../../rpc/method.js';
import type { EthContext } from '../context.js';
import { STATE } from '../raises.js';
import { resolveBlock } from './_shared/resolveBlock.js';

/** The request map `{ "<address>": ["<slot>", …] }`, decoded as geth's `map[common.Address][]common.Hash`. */
const StorageRequests = z.unknown().transform((value, ctx): Map<string, { address: Uint8Array; slots: Uint8Array[] }> => {
  const fail = (message: string, path: (string | number)[] = []) => {
    ctx.addIssue({ code: 'custom', message, path });
    return z.NEVER;
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail(`json: cannot unmarshal ${jsonType(value)} into Go value of type map[common.Address][]common.Hash`);
  }
  const out = new Map<string, { address: Uint8Array; slots: Uint8Array[] }>();
  for (const [key, list] of Object.entries(value)) {
    const address = Address.safeParse(key);
    if (!address.success) return fail(address.error.issues[0]?.message ?? 'invalid address', [key]);
    if (list !== null && !Array.isArray(list)) return fail(`json: cannot unmarshal ${jsonType(list)} into Go value of type []common.Hash`, [key]);
    const slots: Uint8Array[] = [];
    for (const [i, item] of (list ?? []).entries()) {
      const slot = Hash.safeParse(item);
      if (!slot.success) return fail(slot.error.issues[0]?.message ?? 'invalid hash', [key, i]);
      slots.push(slot.data);
    }
    // Go's map: a repeated address (in another letter case) replaces the earlier one
    out.set(hexKey(address.data), { address: address.data, slots });
  }
  return out;
});

/**
 * `eth_getStorageValues(requests, block?)`: the 32-byte values of many storage slots of many
 * accounts at one block (default `latest`), keyed by lower-case address in request order (zeros
 * for unset slots and missing accounts), as geth's `GetStorageValues`: -32602 `empty request` for no
 * slot at all, -32005 `too many slots (max N)` above `rpc.getStorageValuesMaxSlots` (geth's 1024),
 * both checked before the block is resolved.
 * https://github.com/ethereum/execution-apis (eth_getStorageValues)
 */
export const getStorageValues = defineMethod({
  name: 'eth_getStorageValues',
  raises: STATE,
  params: [StorageRequests, BlockNumberOrHash],
  required: 1,
  handler: async (ctx: EthContext, [requests, block], req) => {
    const max = ctx.limits.getStorageValuesMaxSlots;
    let total = 0;
    for (const { slots } of requests.values()) {
      total += slots.length;
      if (total > max) throw new LimitExceededError(`too many slots (max ${max})`);
    }
    if (total === 0) throw new InvalidParamsError('empty request');
    const header = await resolveBlock(ctx, block, req);
    const result: Record<string, string[]> = {};
    for (const { address, slots } of requests.values()) {
      const values = await Promise.all(slots.map((slot) => ctx.state.storage(header.stateRoot, address, slot)));
      result[`0x${hexKey(address)}`] = values.map(bytesToData32);
    }
    return result;
  },
});
