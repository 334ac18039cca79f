import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURES } from '../../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../../helpers/ethServer.js';
import { verifyProof } from '../../helpers/proofVerifier.js';
import { forEachTransport, type RpcClient } from '../../helpers/rpcClient.js';
import { typed } from '../../helpers/typedClient.js';

/**
 * The state methods on the demo chain (fixtures/demo). Expected values are the storage history
 * the generator recorded in fixtures/demo/README.md; every proof is checked with the independent
 * verifier in test/helpers/proofVerifier.ts against the block's stateRoot.
 */
const STATEBOX = '0x000000000000000000000000000000000000beef';
const TOKEN = '0xeea13157ec6225f61188ad9fdeb0f44c0852f4f4';
const CHILD2 = '0xd671d1e3be21691feaee7160d64040a612693e34';
const ALICE = '0x0bffd7cc70e8543fae33a3695182b4ecab0386ea';
const NOBODY = '0x00000000000000000000000000000000000c0ffe';
const SLOT0 = '0x0000000000000000000000000000000000000000000000000000000000000000';
const SLOT1 = '0x0000000000000000000000000000000000000000000000000000000000000001';
const BALANCES_ALICE = '0xdbc43e2a2337fdc231cec929aa1a7e4adbda56fff81b55ac164b6dcfc9629b41';
const GRID_ALICE_7 = '0x6c53d09ec72a14af2d67be44dfe9e26616647f5874ba90fc549069c0bbbb71e8';
const TOKEN_BALANCE_ALICE = '0x1dd67e9058b88bf3c381de360c502e5244f94018d8b869752687f1d73fa4a39e';
const ZERO32 = `0x${'0'.repeat(64)}`;
const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/** Value histories from fixtures/demo/README.md: [from block, value]. */
const HISTORY: Array<{ address: string; slot: string; changes: Array<[number, bigint]> }> = [
  {
    address: STATEBOX,
    slot: SLOT0,
    changes: [
      [0, 1n],
      [1, 2n],
      [4, 3n],
      [6, 10n],
      [15, 11n],
      [20, 20n],
      [23, 21n],
      [29, 29n],
      [36, 30n],
      [38, 31n],
      [50, 50n],
      [64, 64n],
    ],
  },
  {
    address: STATEBOX,
    slot: BALANCES_ALICE,
    changes: [
      [0, 1000n],
      [17, 1001n],
    ],
  },
  {
    address: STATEBOX,
    slot: GRID_ALICE_7,
    changes: [
      [0, 42n],
      [3, 43n],
      [19, 44n],
      [42, 45n],
    ],
  },
  {
    address: TOKEN,
    slot: TOKEN_BALANCE_ALICE,
    changes: [
      [0, 0n],
      [8, 10n ** 24n],
      [9, 999n * 10n ** 21n],
      [10, 9989n * 10n ** 20n],
      [18, 998895n * 10n ** 18n],
      [42, 998495n * 10n ** 18n],
      [48, 998496n * 10n ** 18n],
      [56, 998454n * 10n ** 18n],
    ],
  },
  // created at 13, note=77 at 14, destroyed at 17 (absent), re-created at 19 with fresh storage, note=38 at 38
  {
    address: CHILD2,
    slot: SLOT1,
    changes: [
      [0, 0n],
      [14, 77n],
      [17, 0n],
      [38, 38n],
    ],
  },
];
const valueAt = (changes: Array<[number, bigint]>, block: number) => changes.filter(([b]) => b <= block).at(-1)![1];

let server: EthTestServer;
beforeAll(async () => {
  server = await startEthServer(join(FIXTURES, 'demo'));
});
afterAll(() => server.close());

const hex = (n: number) => `0x${n.toString(16)}`;
const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;

async function stateRoot(client: RpcClient, block: number): Promise<Uint8Array> {
  const res = await typed(client).request('eth_getBlockByNumber', [hex(block), false]);
  return hexToBytes(res!.stateRoot as `0x${string}`);
}

forEachTransport(
  'eth_getStorageAt / eth_getProof on the demo chain',
  () => server,
  (client) => {
    it('eth_getStorageAt: every recorded slot at every block equals the generator history', async () => {
      for (const { address, slot, changes } of HISTORY) {
        for (let b = 0; b <= 64; b++) {
          const res = await typed(client()).request('eth_getStorageAt', [address, slot, hex(b)]);
          expect(res, `${address} ${slot} @${b}`).toBe(word(valueAt(changes, b)));
        }
      }
    });

    it('eth_getProof: account and storage proofs verify against the stateRoot at blocks 0, 13, 16, 17, 19, 42, 64', async () => {
      for (const b of [0, 13, 16, 17, 19, 42, 64]) {
        const root = await stateRoot(client(), b);
        for (const address of [STATEBOX, TOKEN, CHILD2, ALICE, NOBODY]) {
          const slots = HISTORY.filter((h) => h.address === address).map((h) => h.slot);
          const keys = [...slots, '0x99']; // plus a key that is never set
          const p = await typed(client()).request('eth_getProof', [address, keys, hex(b)]);
          const leaf = verifyProof(
            root,
            hexToBytes(address as `0x${string}`),
            p.accountProof.map((n) => hexToBytes(n as `0x${string}`)),
          );
          expect(p.balance).toBe(await typed(client()).request('eth_getBalance', [address, hex(b)]));
          expect(p.nonce).toBe(await typed(client()).request('eth_getTransactionCount', [address, hex(b)]));
          if (leaf === null) {
            // absent account: geth's zero hashes (docs/methods.md#eth_getproof), zero balance/nonce, empty storage proofs
            expect([p.balance, p.nonce, p.codeHash, p.storageHash]).toEqual(['0x0', '0x0', ZERO32, ZERO32]);
            for (const sp of p.storageProof) expect([sp.value, sp.proof]).toEqual(['0x0', []]);
            continue;
          }
          const [n, bal, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[];
          expect(BigInt(bytesToHex(n) === '0x' ? 0 : bytesToHex(n))).toBe(BigInt(p.nonce));
          expect(BigInt(bytesToHex(bal) === '0x' ? 0 : bytesToHex(bal))).toBe(BigInt(p.balance));
          expect(bytesToHex(storageRoot)).toBe(p.storageHash);
          expect(bytesToHex(codeHash)).toBe(p.codeHash);
          p.storageProof.forEach((sp, i) => {
            const want = i < slots.length ? valueAt(HISTORY.find((h) => h.address === address && h.slot === slots[i])!.changes, b) : 0n;
            expect(BigInt(sp.value), `${address} ${keys[i]} @${b}`).toBe(want);
            if (p.storageHash === EMPTY_TRIE) {
              expect(sp.proof).toEqual([]);
              return;
            }
            const got = verifyProof(
              hexToBytes(p.storageHash as `0x${string}`),
              hexToBytes(word(BigInt(keys[i])) as `0x${string}`),
              sp.proof.map((x) => hexToBytes(x as `0x${string}`)),
            );
            expect(got === null ? 0n : BigInt(bytesToHex(RLP.decode(got) as Uint8Array))).toBe(want);
          });
        }
      }
    });

    it('eth_getProof echoes keys as geth: 32-byte keys unchanged, shorter ones as quantities', async () => {
      const result = await typed(client()).request('eth_getProof', [STATEBOX, [SLOT0, '0x00', '0x0a', '0X0'], 'latest']);
      expect(result.storageProof.map((s) => s.key)).toEqual([SLOT0, '0x0', '0xa', '0x0']);
      expect(result.storageProof.map((s) => s.value)).toEqual(['0x40', '0x40', '0x0', '0x40']);
    });

    it('eth_getCode: StateBox has code at genesis; Child2 has none at 17 (destroyed), code again at 19', async () => {
      expect((await typed(client()).request('eth_getCode', [STATEBOX, '0x0'])).length).toBeGreaterThan(2);
      expect((await client().call('eth_getCode', [CHILD2, '0x11'])).result).toBe('0x');
      expect((await client().call('eth_getCode', [CHILD2, '0xc'])).result).toBe('0x');
      expect(await typed(client()).request('eth_getCode', [CHILD2, '0x13'])).toBe((await client().call('eth_getCode', [CHILD2, '0xd'])).result);
    });

    it('block parameter forms: tags, EIP-1898 objects, 32-byte hash', async () => {
      const head = (await typed(client()).request('eth_getBlockByNumber', ['0x40', false]))!.hash;
      const b15 = (await typed(client()).request('eth_getBlockByNumber', ['0xf', false]))!.hash;
      const at = async (block: unknown) => (await client().call('eth_getStorageAt', [STATEBOX, '0x0', block])).result;
      for (const tag of ['latest', 'pending', 'safe', 'finalized']) expect(await at(tag)).toBe(word(64n));
      expect(await at('earliest')).toBe(word(1n));
      expect(await at(b15)).toBe(word(11n));
      expect(await at({ blockHash: b15 })).toBe(word(11n));
      expect(await at({ blockHash: head, requireCanonical: true })).toBe(word(64n));
      expect(await at({ blockNumber: '0xf' })).toBe(word(11n));
      expect((await client().call('eth_getStorageAt', [STATEBOX, '0x0'])).result).toBe(word(64n));
    });

    it.each([
      [['0x1234', '0x0', 'latest'], -32602, 'invalid argument 0: hex string has length 4, want 40 for common.Address'],
      [[STATEBOX, '0xzz', 'latest'], -32602, 'invalid hex in storage key: "0xzz"'],
      [[STATEBOX, `0x${'1'.repeat(65)}`, 'latest'], -32602, `storage key too long (want at most 32 bytes): "0x${'1'.repeat(65)}"`],
      [[STATEBOX, '0x0', '0x41'], -32000, 'header not found'],
      [[STATEBOX, '0x0', `0x${'ab'.repeat(32)}`], -32000, 'header for hash not found'],
      [
        [STATEBOX, '0x0', { blockHash: `0x${'ab'.repeat(32)}`, blockNumber: '0x1' }],
        -32602,
        'invalid argument 2: cannot specify both BlockHash and BlockNumber, choose one or the other',
      ],
      [[STATEBOX, '0x0', 'soon'], -32602, 'invalid argument 2: hex string without 0x prefix'],
      [[STATEBOX], -32602, 'missing value for required argument 1'],
    ])('eth_getStorageAt error %j', async (params, code, message) => {
      expect((await client().call('eth_getStorageAt', params)).error).toEqual({ code, message });
    });

    it('eth_getProof: more than 1024 keys is refused', async () => {
      const keys = Array.from({ length: 1025 }, (_, i) => hex(i));
      expect((await client().call('eth_getProof', [STATEBOX, keys, 'latest'])).error).toEqual({
        code: -32602,
        message: 'too many storage keys requested (max 1024, got 1025)',
      });
    });
  },
);
