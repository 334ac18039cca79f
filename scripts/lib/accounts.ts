// Owns the deterministic test accounts of both chain generators: a private key derived from a fixed
// string, so that every run signs with the same keys and mines the same blocks; and the addresses
// of the contracts they create.
import { type Address, getContractAddress, type Hex, keccak256, stringToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';

/** A named account with its private key and lower-case address. */
export interface KeyedAccount {
  name: string;
  privateKey: Hex;
  address: Address;
}

/** The account whose private key is keccak256(utf8(prefix + name)). */
export function deterministicAccount(prefix: string, name: string): KeyedAccount {
  const privateKey = keccak256(stringToBytes(`${prefix}${name}`));
  return { name, privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Address };
}

/** The lower-case address of the contract that `from` creates with CREATE at `nonce` (yellow paper 7). */
export function createAddress(from: Address, nonce: bigint | number): Address {
  return getContractAddress({ from, nonce: BigInt(nonce) }).toLowerCase() as Address;
}

/** The lower-case address of the contract that `from` creates with CREATE2 (EIP-1014). */
export function create2Address(from: Address, salt: Hex, initCode: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from, salt, bytecode: initCode }).toLowerCase() as Address;
}
