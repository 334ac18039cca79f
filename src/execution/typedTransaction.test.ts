import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTx } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { encodeTx, type TxArgs, type TxType, unsignedTxFields } from './typedTransaction.js';

/**
 * The unsigned transactions built of a call equal @ethereumjs/tx's unsigned transactions of the
 * same fields (types 0, 1, 2, 4; a blob transaction needs a KZG setup there, so type 3 is checked
 * against EIP-4844's field order written out).
 */
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const TO = hexToBytes(`0x${'11'.repeat(20)}`);
const ENTRY = { address: hexToBytes(`0x${'22'.repeat(20)}`), storageKeys: [hexToBytes(`0x${'33'.repeat(32)}`)] };
const AUTH = { chainId: 1n, address: hexToBytes(`0x${'55'.repeat(20)}`), nonce: 0n, yParity: 1n, r: 1n, s: 1n };
const BLOB = hexToBytes(`0x01${'44'.repeat(31)}`);
const ARGS: TxArgs = {
  chainId: 1n,
  nonce: 1n,
  gas: 21000n,
  to: TO,
  value: 5n,
  data: hexToBytes('0x1234'),
  gasPrice: 7n,
  maxFeePerGas: 9n,
  maxPriorityFeePerGas: 2n,
  accessList: [ENTRY],
  maxFeePerBlobGas: 4n,
  blobVersionedHashes: [BLOB],
  authorizationList: [AUTH],
};

/** The same transaction as @ethereumjs/tx takes it, unsigned. */
function ethereumjsTx(type: TxType) {
  const typed = type !== 0;
  return createTx(
    {
      type,
      nonce: ARGS.nonce,
      gasLimit: ARGS.gas,
      to: TO,
      value: ARGS.value,
      data: ARGS.data,
      ...(type < 2 ? { gasPrice: ARGS.gasPrice } : { maxFeePerGas: ARGS.maxFeePerGas, maxPriorityFeePerGas: ARGS.maxPriorityFeePerGas }),
      ...(typed ? { chainId: ARGS.chainId, accessList: [{ address: bytesToHex(ENTRY.address), storageKeys: ENTRY.storageKeys.map(bytesToHex) }] } : {}),
      ...(type === 4 ? { authorizationList: [{ chainId: '0x1', address: bytesToHex(AUTH.address), nonce: '0x0', yParity: '0x1', r: '0x1', s: '0x1' }] } : {}),
    } as never,
    { common },
  );
}

describe('unsignedTxFields / encodeTx', () => {
  for (const type of [0, 1, 2, 4] as const) {
    it(`type ${type}: the encoding of @ethereumjs/tx's unsigned transaction`, () => {
      const fields = unsignedTxFields(type, ARGS);
      expect(bytesToHex(encodeTx(type, fields))).toBe(bytesToHex(ethereumjsTx(type).serialize()));
    });
  }

  it("type 3: EIP-4844's fields, then the zero signature", () => {
    const n = bigIntToUnpaddedBytes;
    const fields = [n(1n), n(1n), n(2n), n(9n), n(21000n), TO, n(5n), ARGS.data!, [[ENTRY.address, ENTRY.storageKeys]], n(4n), [BLOB]];
    const expected = concatBytes(Uint8Array.of(3), RLP.encode([...fields, new Uint8Array(), new Uint8Array(), new Uint8Array()]));
    expect(bytesToHex(encodeTx(3, unsignedTxFields(3, ARGS)))).toBe(bytesToHex(expected));
  });

  it('absent fields count as zero and empty', () => {
    const bare: TxArgs = { chainId: 1n, nonce: 0n, gas: 21000n };
    expect(unsignedTxFields(2, bare)).toEqual([n0(1n), n0(0n), n0(0n), n0(0n), n0(21000n), new Uint8Array(), n0(0n), new Uint8Array(), [], ...ZERO_SIG]);
  });
});

const n0 = bigIntToUnpaddedBytes;
const ZERO_SIG = [new Uint8Array(), new Uint8Array(), new Uint8Array()];
