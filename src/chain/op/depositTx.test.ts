import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { DepositDecodeError, decodeDepositTx, encodeDepositTx, isDeposit } from './depositTx.js';

/** The transactions of a real OP Sepolia block (fixtures/op-stack/, kona's executor fixture). */
function realTransactions(number: number): Uint8Array[] {
  const file = resolve(import.meta.dirname, `../../../fixtures/op-stack/op-sepolia-${number}.json.br`);
  const json = JSON.parse(brotliDecompressSync(readFileSync(file)).toString('utf8')) as { fixture: { executing_payload: { transactions: string[] } } };
  return json.fixture.executing_payload.transactions.map((t) => hexToBytes(t as `0x${string}`));
}

describe('deposit transactions (type 0x7E)', () => {
  it('the L1 attributes deposit opening OP Sepolia block 26,207,960, read field by field (as its bytes spell them) and encoded again to the same bytes', () => {
    const raw = realTransactions(26207960)[0];
    expect(isDeposit(raw)).toBe(true);
    const tx = decodeDepositTx(raw);
    expect({
      ...tx,
      sourceHash: bytesToHex(tx.sourceHash),
      from: bytesToHex(tx.from),
      to: bytesToHex(tx.to!),
      data: bytesToHex(tx.data.subarray(0, 4)),
    }).toEqual({
      sourceHash: '0x77efb5d9d697e7e37fffcb8b904e28df49667b73d9fc17515eb0e4a0c377d3db',
      from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
      to: '0x4200000000000000000000000000000000000015',
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      // setL1BlockValuesEcotone(): the packed attributes follow the selector.
      data: '0x440a5e20',
    });
    expect(tx.data.length).toBe(164);
    expect(bytesToHex(encodeDepositTx(tx))).toBe(bytesToHex(raw));
  });

  it('every deposit of the seven real blocks decodes and encodes again to its bytes; no signed transaction is taken for one', () => {
    let deposits = 0;
    for (const n of [26207960, 26207961, 26207962, 26207963, 26208384, 26208858, 26211680]) {
      for (const raw of realTransactions(n)) {
        if (!isDeposit(raw)) {
          expect(() => decodeDepositTx(raw)).toThrow(DepositDecodeError);
          continue;
        }
        deposits++;
        expect(bytesToHex(encodeDepositTx(decodeDepositTx(raw)))).toBe(bytesToHex(raw));
      }
    }
    expect(deposits).toBeGreaterThanOrEqual(7);
  });

  it('a creation (empty to), a mint and a system flag encode and decode', () => {
    const tx = {
      sourceHash: new Uint8Array(32).fill(1),
      from: new Uint8Array(20).fill(2),
      to: undefined,
      mint: 10n ** 18n,
      value: 5n,
      gasLimit: 100_000n,
      isSystemTx: true,
      data: Uint8Array.of(0x60, 0x00),
    };
    expect(decodeDepositTx(encodeDepositTx(tx))).toEqual(tx);
  });

  it('error: bytes that are not a deposit are refused, saying why', () => {
    const fields = [
      new Uint8Array(32),
      new Uint8Array(20),
      new Uint8Array(),
      new Uint8Array(),
      new Uint8Array(),
      Uint8Array.of(1),
      new Uint8Array(),
      new Uint8Array(),
    ];
    const deposit = (f: Uint8Array[]) => concatBytes(Uint8Array.of(0x7e), RLP.encode(f));
    expect(() => decodeDepositTx(Uint8Array.of(0x02, 0xc0))).toThrow(/not a deposit: type 0x2/);
    expect(() => decodeDepositTx(deposit(fields.slice(0, 7)))).toThrow(/not a list of 8/);
    expect(() => decodeDepositTx(deposit([fields[0], new Uint8Array(19), ...fields.slice(2)]))).toThrow(/from: 19 bytes/);
    expect(() => decodeDepositTx(deposit([...fields.slice(0, 6), Uint8Array.of(2), fields[7]]))).toThrow(/isSystemTx: not a boolean/);
    expect(() => decodeDepositTx(deposit([...fields.slice(0, 3), Uint8Array.of(0, 1), ...fields.slice(4)]))).toThrow(/mint: leading zero/);
    expect(() => decodeDepositTx(Uint8Array.of(0x7e, 0xff))).toThrow(/bad RLP/);
  });
});
