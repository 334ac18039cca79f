import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './chains.js';
import { verifyProof } from './proofVerifier.js';

// A proof geth produced (execution-apis get-account-proof-with-storage.io) for block 54, whose
// stateRoot is in eth_getBlockByNumber/get-latest.io: data from an independent client.
const dir = join(FIXTURES, 'execution-apis');
const io = readFileSync(join(dir, 'eth_getProof/get-account-proof-with-storage.io'), 'utf8');
const proof = JSON.parse(
  io
    .split('\n')
    .find((l) => l.startsWith('<< '))!
    .slice(3),
).result;
const latest = readFileSync(join(dir, 'eth_getBlockByNumber/get-latest.io'), 'utf8');
const stateRoot = hexToBytes(/"stateRoot":"(0x[0-9a-f]{64})"/.exec(latest)![1] as `0x${string}`);
const bytes = (list: string[]) => list.map((x) => hexToBytes(x as `0x${string}`));

describe('proof verifier (test helper) on a geth proof', () => {
  it('accepts the account proof and decodes the account fields geth returned', () => {
    const leaf = verifyProof(stateRoot, hexToBytes(proof.address), bytes(proof.accountProof));
    const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf!) as Uint8Array[];
    expect([bytesToHex(nonce), bytesToHex(balance), bytesToHex(storageRoot), bytesToHex(codeHash)]).toEqual([
      '0x',
      proof.balance,
      proof.storageHash,
      proof.codeHash,
    ]);
  });

  it('accepts the storage proof of slot 0 (value 0x38)', () => {
    const slot = new Uint8Array(32);
    const leaf = verifyProof(hexToBytes(proof.storageHash), slot, bytes(proof.storageProof[0].proof));
    expect(bytesToHex(RLP.decode(leaf!) as Uint8Array)).toBe('0x38');
  });

  it('proves absence of a key on the same path walk, and rejects tampered or foreign proofs', () => {
    const other = hexToBytes('0x00000000000000000000000000000000000c0ffe');
    // geth's proof for another address does not prove anything about this one: it ends early or diverges
    expect(() => verifyProof(stateRoot, other, bytes(proof.accountProof))).toThrow();
    const tampered = bytes(proof.accountProof);
    tampered[1] = Uint8Array.from(tampered[1]);
    tampered[1][40] ^= 1;
    expect(() => verifyProof(stateRoot, hexToBytes(proof.address), tampered)).toThrow(/does not hash to its reference/);
    expect(() => verifyProof(new Uint8Array(32), hexToBytes(proof.address), bytes(proof.accountProof))).toThrow(/does not hash/);
    expect(() => verifyProof(stateRoot, hexToBytes(proof.address), bytes(proof.accountProof).slice(0, -1))).toThrow(/proof ends/);
  });
});
