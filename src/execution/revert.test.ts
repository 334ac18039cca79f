import { describe, expect, it } from 'vitest';
import { dataToBytes } from '../codec/hex.js';
import { decodeRevertReason, decodeUtf8LikeGo, revertMessage } from './revert.js';

const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');
const errorString = (text: string) => {
  const hex = Buffer.from(text, 'utf8').toString('hex');
  const padded = hex.padEnd(Math.ceil(hex.length / 64) * 64 || 0, '0');
  return dataToBytes(`0x08c379a0${word(32)}${word(hex.length / 2)}${padded}`);
};
const panic = (code: bigint | number) => dataToBytes(`0x4e487b71${word(code)}`);

describe('revert data', () => {
  it('Error(string): the execution-apis call-revert-abi-error case', () => {
    const data = dataToBytes(
      '0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72',
    );
    expect(decodeRevertReason(data)).toBe('user error');
    expect(revertMessage(data)).toBe('execution reverted: user error');
  });

  it('Error(string) with an empty string keeps the colon (geth formats "%w: %v")', () => {
    expect(revertMessage(errorString(''))).toBe('execution reverted: ');
  });

  it('Error(string) whose tail is not padded to a whole word is still decoded', () => {
    expect(revertMessage(dataToBytes(`0x08c379a0${word(32)}${word(1)}41`))).toBe('execution reverted: A');
  });

  it('Error(string) longer than one word', () => {
    const text = 'ERC20: transfer amount exceeds balance';
    expect(revertMessage(errorString(text))).toBe(`execution reverted: ${text}`);
  });

  it.each([
    [0x00, 'generic panic'],
    [0x01, 'assert(false)'],
    [0x11, 'arithmetic underflow or overflow'],
    [0x12, 'division or modulo by zero'],
    [0x21, 'enum overflow'],
    [0x22, 'invalid encoded storage byte array accessed'],
    [0x31, 'out-of-bounds array access; popping on an empty array'],
    [0x32, 'out-of-bounds access of an array or bytesN'],
    [0x41, 'out of memory'],
    [0x51, 'uninitialized function'],
  ])('Panic(0x%s) → %s', (code, text) => {
    expect(revertMessage(panic(code))).toBe(`execution reverted: ${text}`);
  });

  it('Panic with a code outside the table', () => {
    expect(revertMessage(panic(0x99))).toBe('execution reverted: unknown panic code: 0x99');
    expect(revertMessage(panic(1n << 70n))).toBe('execution reverted: unknown panic code: 0x400000000000000000');
  });

  it('custom errors and raw data are not decoded', () => {
    // error InsufficientBalance(uint256) with one argument
    expect(revertMessage(dataToBytes(`0xcf479181${word(5)}`))).toBe('execution reverted');
    // estimate-failed-call.io: raw bytes "wrong-calldatasize"
    expect(revertMessage(dataToBytes('0x77726f6e672d63616c6c6461746173697a65'))).toBe('execution reverted');
  });

  it('empty or short data', () => {
    expect(revertMessage(new Uint8Array())).toBe('execution reverted');
    expect(revertMessage(dataToBytes('0x08c379'))).toBe('execution reverted');
    expect(revertMessage(dataToBytes('0x08c379a0'))).toBe('execution reverted');
    expect(revertMessage(dataToBytes('0x4e487b71'))).toBe('execution reverted');
  });

  it('malformed Error(string) encodings fall back to plain "execution reverted"', () => {
    // head word incomplete
    expect(revertMessage(dataToBytes(`0x08c379a0${word(32).slice(0, 62)}`))).toBe('execution reverted');
    // offset points past the end
    expect(revertMessage(dataToBytes(`0x08c379a0${word(64)}${word(1)}`))).toBe('execution reverted');
    // length runs past the end
    expect(revertMessage(dataToBytes(`0x08c379a0${word(32)}${word(33)}${word(0)}`))).toBe('execution reverted');
    // huge offset (does not fit int64)
    expect(revertMessage(dataToBytes(`0x08c379a0${'f'.repeat(64)}${word(0)}`))).toBe('execution reverted');
  });

  it('invalid UTF-8 in the reason becomes U+FFFD per bad byte, as Go JSON renders it', () => {
    expect(decodeUtf8LikeGo(Uint8Array.of(0x61, 0xff, 0x62))).toBe('a\ufffdb');
    expect(decodeUtf8LikeGo(Uint8Array.of(0xe2, 0x82))).toBe('\ufffd\ufffd');
    expect(decodeUtf8LikeGo(Uint8Array.of(0xed, 0xa0, 0x80))).toBe('\ufffd\ufffd\ufffd');
    expect(decodeUtf8LikeGo(Buffer.from('héllo €𝄞', 'utf8'))).toBe('héllo €𝄞');
  });
});
