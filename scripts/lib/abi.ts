// Owns the ABI encoding of both chain generators (viem's encoders): calldata from a compiled
// contract or from a function signature, creation code with constructor arguments, and the storage
// slots of Solidity state variables (https://docs.soliditylang.org/en/latest/internals/layout_in_storage.html).
import { type AbiFunction, concat, encodeDeployData, encodeFunctionData, type Hex, isHex, keccak256, numberToHex, pad, parseAbiItem } from 'viem';
import type { Artifact } from './solc.js';

/** A static ABI value as the generators write it: a number, a bool or 0x-hex (address, bytes32). */
export type AbiValue = bigint | number | boolean | Hex;

/** Calldata of `functionName` of a compiled contract. */
export function functionData(artifact: Artifact, functionName: string, args: readonly unknown[] = []): Hex {
  return encodeFunctionData({ abi: artifact.abi, functionName, args });
}

/** Creation code of a compiled contract followed by its ABI-encoded constructor arguments. */
export function deployData(artifact: Artifact, args: readonly unknown[] = []): Hex {
  return encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
}

const signatures = new Map<string, AbiFunction>();

/** Calldata of a function given by its signature, e.g. calldata('transfer(address,uint256)', to, amount). */
export function calldata(signature: string, ...args: AbiValue[]): Hex {
  let item = signatures.get(signature);
  if (!item) {
    item = parseAbiItem(`function ${signature}`) as AbiFunction;
    signatures.set(signature, item);
  }
  return encodeFunctionData({ abi: [item], args });
}

/** A mapping key or slot: a number, or 0x-hex (an address, a 32-byte slot). */
export type SlotKey = bigint | number | string;

/** The 32-byte word of a slot number, a key or a 20- or 32-byte hex value (left-padded). */
function word(v: SlotKey): Hex {
  if (typeof v === 'string') {
    if (!isHex(v)) throw new Error(`not a hex key: ${v}`);
    return pad(v.toLowerCase() as Hex, { size: 32 });
  }
  return numberToHex(v, { size: 32 });
}

/** 32-byte hex of a storage slot number. */
export function slotHex(n: bigint | number): Hex {
  return numberToHex(n, { size: 32 });
}

/** Storage slot of mapping[key] for a mapping declared at `slot`: keccak256(pad32(key) . pad32(slot)). */
export function mappingSlot(key: SlotKey, slot: SlotKey): Hex {
  return keccak256(concat([word(key), word(slot)]));
}
