import { z } from 'zod';
import { HexError } from '../../../codec/hex.js';
import { Address, Data, directDecoder, Hash, type HexString, jsonType, Quantity, Quantity64, wire } from '../../../codec/schemas.js';
import type { AccessListEntry, AccountOverride, Authorization, BlockOverrides, CallRequest } from '../../../execution/callArgs.js';

/**
 * Wire schemas of the `eth_call` / `eth_estimateGas` arguments, decoded to the execution layer's
 * values (`execution/callArgs.ts`): geth's `TransactionArgs` call object
 * (ethereum/go-ethereum `internal/ethapi/transaction_args.go`), the state-override set and the
 * block overrides (`internal/ethapi/override/override.go`).
 *
 * Like Go's `encoding/json`, object keys match field names case-insensitively, unknown keys are
 * ignored and `null` means "not given".
 */

class FieldError extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

/**
 * Decodes one value with a codec schema, or throws a {@link FieldError} at `path`. A schema made
 * of one decoding function is called directly (the same value and message as zod's parse, which
 * costs more than the decoding on every field of every call object).
 */
function decodeWith<T>(schema: z.ZodType<T>, value: unknown, path: (string | number)[]): T {
  const direct = directDecoder(schema);
  if (direct !== undefined) {
    try {
      return direct(value) as T;
    } catch (err) {
      if (err instanceof HexError) throw new FieldError(path, err.message);
      throw err;
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new FieldError(path, parsed.error.issues[0]?.message ?? 'invalid value');
  return parsed.data;
}

function optional<T>(schema: z.ZodType<T>, value: unknown, path: (string | number)[]): T | undefined {
  return value === undefined || value === null ? undefined : decodeWith(schema, value, path);
}

/** A JSON object's members keyed by lower-cased name (Go matches field names case-insensitively). */
function members(value: unknown, goType: string, path: (string | number)[]): Map<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FieldError(path, `json: cannot unmarshal ${jsonType(value)} into Go value of type ${goType}`);
  }
  const out = new Map<string, unknown>();
  for (const [key, v] of Object.entries(value)) out.set(key.toLowerCase(), v);
  return out;
}

function list<T>(value: unknown, goType: string, path: (string | number)[], item: (v: unknown, p: (string | number)[]) => T): T[] {
  if (!Array.isArray(value)) throw new FieldError(path, `json: cannot unmarshal ${jsonType(value)} into Go value of type ${goType}`);
  return value.map((v, i) => item(v, [...path, i]));
}

function required<T>(m: Map<string, unknown>, name: string, goType: string, path: (string | number)[], schema: z.ZodType<T>): T {
  const v = m.get(name.toLowerCase());
  if (v === undefined || v === null) throw new FieldError(path, `missing required field '${name}' for ${goType}`);
  return decodeWith(schema, v, [...path, name]);
}

function decodeAccessList(value: unknown, path: (string | number)[]): AccessListEntry[] {
  return list(value, 'types.AccessList', path, (v, p) => {
    const m = members(v, 'types.AccessTuple', p);
    const keys = m.get('storagekeys');
    if (keys === undefined || keys === null) throw new FieldError(p, `missing required field 'storageKeys' for AccessTuple`);
    return {
      address: required(m, 'address', 'AccessTuple', p, Address),
      storageKeys: list(keys, '[]common.Hash', [...p, 'storageKeys'], (k, kp) => decodeWith(Hash, k, kp)),
    };
  });
}

function decodeAuthorizations(value: unknown, path: (string | number)[]): Authorization[] {
  return list(value, '[]types.SetCodeAuthorization', path, (v, p) => {
    const m = members(v, 'types.SetCodeAuthorization', p);
    const yParity = required(m, 'yParity', 'SetCodeAuthorization', p, Quantity64);
    if (yParity > 0xffn) throw new FieldError([...p, 'yParity'], 'hex number > 8 bits');
    return {
      chainId: required(m, 'chainId', 'SetCodeAuthorization', p, Quantity),
      address: required(m, 'address', 'SetCodeAuthorization', p, Address),
      nonce: required(m, 'nonce', 'SetCodeAuthorization', p, Quantity64),
      yParity,
      r: required(m, 'r', 'SetCodeAuthorization', p, Quantity),
      s: required(m, 's', 'SetCodeAuthorization', p, Quantity),
    };
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** geth's text when `data` and `input` disagree (`transaction_args.go`). */
export const DATA_INPUT_MISMATCH = 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data';

function decodeCallRequest(value: unknown): CallRequest {
  const m = members(value, 'ethapi.TransactionArgs', []);
  const get = (name: string) => m.get(name.toLowerCase());
  const input = optional(Data, get('input'), ['input']);
  const data = optional(Data, get('data'), ['data']);
  if (input !== undefined && data !== undefined && !sameBytes(input, data)) throw new FieldError([], DATA_INPUT_MISMATCH);
  const accessList = get('accessList');
  const hashes = get('blobVersionedHashes');
  const auths = get('authorizationList');
  return {
    from: optional(Address, get('from'), ['from']),
    to: optional(Address, get('to'), ['to']),
    gas: optional(Quantity64, get('gas'), ['gas']),
    gasPrice: optional(Quantity, get('gasPrice'), ['gasPrice']),
    maxFeePerGas: optional(Quantity, get('maxFeePerGas'), ['maxFeePerGas']),
    maxPriorityFeePerGas: optional(Quantity, get('maxPriorityFeePerGas'), ['maxPriorityFeePerGas']),
    maxFeePerBlobGas: optional(Quantity, get('maxFeePerBlobGas'), ['maxFeePerBlobGas']),
    value: optional(Quantity, get('value'), ['value']),
    nonce: optional(Quantity64, get('nonce'), ['nonce']),
    data: input ?? data,
    accessList: accessList === undefined || accessList === null ? undefined : decodeAccessList(accessList, ['accessList']),
    chainId: optional(Quantity, get('chainId'), ['chainId']),
    blobVersionedHashes:
      hashes === undefined || hashes === null ? undefined : list(hashes, '[]common.Hash', ['blobVersionedHashes'], (h, p) => decodeWith(Hash, h, p)),
    authorizationList: auths === undefined || auths === null ? undefined : decodeAuthorizations(auths, ['authorizationList']),
    type: optional(Quantity64, get('type'), ['type']),
  };
}

function decodeSlots(value: unknown, path: (string | number)[]): Array<[Uint8Array, Uint8Array]> {
  const obj = value as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FieldError(path, `json: cannot unmarshal ${jsonType(value)} into Go value of type map[common.Hash]common.Hash`);
  }
  return Object.keys(obj).map((key) => [decodeWith(Hash, key, [...path, key]), decodeWith(Hash, obj[key], [...path, key])]);
}

function decodeStateOverrides(value: unknown): AccountOverride[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FieldError([], `json: cannot unmarshal ${jsonType(value)} into Go value of type override.StateOverride`);
  }
  return Object.entries(value).map(([key, account]) => {
    const address = decodeWith(Address, key, [key]);
    const m = members(account, 'override.OverrideAccount', [key]);
    const state = m.get('state');
    const stateDiff = m.get('statediff');
    return {
      address,
      balance: optional(Quantity, m.get('balance'), [key, 'balance']),
      nonce: optional(Quantity64, m.get('nonce'), [key, 'nonce']),
      code: optional(Data, m.get('code'), [key, 'code']),
      state: state === undefined || state === null ? undefined : decodeSlots(state, [key, 'state']),
      stateDiff: stateDiff === undefined || stateDiff === null ? undefined : decodeSlots(stateDiff, [key, 'stateDiff']),
      movePrecompileToAddress: optional(Address, m.get('moveprecompiletoaddress'), [key, 'movePrecompileToAddress']),
    };
  });
}

function decodeBlockOverrides(value: unknown): BlockOverrides {
  const m = members(value, 'override.BlockOverrides', []);
  // geth's current names first, then the older spellings some clients still send.
  const pick = (...names: string[]) => {
    for (const n of names) {
      const v = m.get(n.toLowerCase());
      if (v !== undefined && v !== null) return { name: n, value: v };
    }
    return undefined;
  };
  const dec = <T>(schema: z.ZodType<T>, ...names: string[]): T | undefined => {
    const hit = pick(...names);
    return hit === undefined ? undefined : decodeWith(schema, hit.value, [hit.name]);
  };
  const unsupported = ['beaconRoot', 'withdrawals'].filter((n) => {
    const v = m.get(n.toLowerCase());
    return v !== undefined && v !== null;
  });
  return {
    number: dec(Quantity, 'number'),
    difficulty: dec(Quantity, 'difficulty'),
    time: dec(Quantity64, 'time'),
    gasLimit: dec(Quantity64, 'gasLimit'),
    feeRecipient: dec(Address, 'feeRecipient', 'coinbase'),
    prevRandao: dec(Hash, 'prevRandao', 'random'),
    baseFeePerGas: dec(Quantity, 'baseFeePerGas', 'baseFee'),
    blobBaseFee: dec(Quantity, 'blobBaseFee'),
    unsupported,
    beaconRoot: dec(Hash, 'beaconRoot'),
    withdrawals: (() => {
      const w = m.get('withdrawals');
      if (w === undefined || w === null) return undefined;
      return list(w, 'types.Withdrawals', ['withdrawals'], (v, p) => {
        const wm = members(v, 'types.Withdrawal', p);
        return {
          index: required(wm, 'index', 'Withdrawal', p, Quantity64),
          validatorIndex: required(wm, 'validatorIndex', 'Withdrawal', p, Quantity64),
          address: required(wm, 'address', 'Withdrawal', p, Address),
          amount: required(wm, 'amount', 'Withdrawal', p, Quantity64),
        };
      });
    })(),
  };
}

/** Turns a decoder that throws {@link FieldError} into a zod schema whose issue carries the path. */
function schemaOf<T>(decode: (value: unknown) => T) {
  return z.unknown().transform((value, ctx): T => {
    try {
      return decode(value);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message, path: err.path });
      return z.NEVER;
    }
  });
}

/** A call object on the wire (geth `TransactionArgs`): hex fields, lists for access lists, blobs and authorizations. */
export interface CallObjectWire {
  from?: HexString | null;
  to?: HexString | null;
  gas?: HexString | null;
  gasPrice?: HexString | null;
  maxFeePerGas?: HexString | null;
  maxPriorityFeePerGas?: HexString | null;
  maxFeePerBlobGas?: HexString | null;
  value?: HexString | null;
  nonce?: HexString | null;
  data?: HexString | null;
  input?: HexString | null;
  chainId?: HexString | null;
  type?: HexString | null;
  accessList?: readonly { address: HexString; storageKeys: readonly HexString[] }[] | null;
  blobVersionedHashes?: readonly HexString[] | null;
  authorizationList?: readonly Record<string, unknown>[] | null;
}

/** One account's overrides on the wire. */
export interface AccountOverrideWire {
  balance?: HexString;
  nonce?: HexString;
  code?: HexString;
  state?: Record<HexString, HexString>;
  stateDiff?: Record<HexString, HexString>;
  movePrecompileToAddress?: HexString;
}

/** The `eth_call` / `eth_estimateGas` call object (geth `TransactionArgs`). */
export const CallObject = wire<CallObjectWire>()(schemaOf(decodeCallRequest));
/** The state-override set: `{ "<address>": { balance, nonce, code, state | stateDiff, movePrecompileToAddress } }`. */
export const StateOverrideSet = wire<Record<HexString, AccountOverrideWire>>()(schemaOf(decodeStateOverrides));
/** Block overrides: number, difficulty, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas, blobBaseFee. */
export const BlockOverrideSet = schemaOf(decodeBlockOverrides);
