import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LeafMPTNode, type MPTNode } from '@ethereumjs/mpt';
import { bytesToHex, createAccountFromRLP, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/open.js';
import { StateReader } from '../../src/state/stateReader.js';
import { FIXTURES, importFixtureChain, tempDir } from '../helpers/chains.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { testConfig } from '../helpers/testConfig.js';

const tmp = tempDir();

/** One account of a state, with its code and every storage slot, read by walking the real trie nodes. */
interface Leaf {
  account: string;
  code: string;
  storage: Record<string, string>;
}

/** Every account of the state at `root`, keyed by hashed address; throws if any trie node is missing. */
async function stateLeaves(state: StateReader, root: Uint8Array): Promise<Map<string, Leaf>> {
  const out = new Map<string, Leaf>();
  const accounts: Array<[string, Uint8Array]> = [];
  await state.reads.trieAt(root).walkAllValueNodes(async (node, key) => {
    accounts.push([bytesToHex(nibblesToBytes(fullPath(node, key))), node.value() as Uint8Array]);
  });
  for (const [hashedAddress, raw] of accounts) {
    const account = createAccountFromRLP(raw);
    const storage: Record<string, string> = {};
    if (bytesToHex(account.storageRoot) !== EMPTY_TRIE) {
      await state.reads.trieAt(account.storageRoot).walkAllValueNodes(async (node, key) => {
        storage[bytesToHex(nibblesToBytes(fullPath(node, key)))] = bytesToHex(node.value() as Uint8Array);
      });
    }
    out.set(hashedAddress, { account: bytesToHex(raw), code: bytesToHex(await state.reads.code(account.codeHash)), storage });
  }
  return out;
}

const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/** The whole key of a leaf: the path walked to it, then the rest of the key the leaf holds. */
function fullPath(node: MPTNode, path: number[]): number[] {
  if (!(node instanceof LeafMPTNode)) throw new Error('a value outside a leaf: a secure trie has none');
  const nibbles = [...path, ...node.key()];
  if (nibbles.length !== 64) throw new Error(`a leaf key of ${nibbles.length} nibbles`);
  return nibbles;
}

/** A full key path (64 nibbles) as bytes. */
function nibblesToBytes(nibbles: number[]): Uint8Array {
  const out = new Uint8Array(nibbles.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1];
  return out;
}
afterAll(() => tmp.cleanup());

const dir = join(FIXTURES, 'execution-apis');
const summary = readFileSync(join(dir, 'chain-summary.ndjson'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { number: number; hash: string });

describe('import: crash safety', () => {
  it('SIGKILL mid-import leaves a complete head; a second import finishes it', async () => {
    const datadir = join(tmp.dir, 'crash');
    const init = await runCli(['init', '--datadir', datadir, '--genesis', join(dir, 'genesis.json')]);
    expect(init.code).toBe(0);

    // Kill the import as soon as it reports progress: some blocks are written, not all.
    const child = spawnCli(['import', '--datadir', datadir, '--import.progress-interval-ms', '200', join(dir, 'chain.rlp')]);
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        if (/import: block (\d+)/.exec(d.toString())) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('close', () => reject(new Error('import finished before it could be killed')));
    });
    await new Promise((r) => child.on('close', r));

    const chain = await openChain(datadir, testConfig().caches);
    try {
      const head = (await chain.store.head())!;
      expect(head.number).toBeGreaterThan(0n);
      expect(head.number).toBeLessThan(54n);
      expect(bytesToHex(head.hash)).toBe(summary[Number(head.number) - 1].hash);
      // The head's state is complete: every node of its account trie and of every storage trie
      // is in the database (a walk of the real nodes), and every account equals the one a clean
      // import of the same chain holds at that block (whose stateRoots import verified).
      const header = (await chain.store.headerByHash(head.hash))!;
      const crashed = await stateLeaves(new StateReader(chain.level, testConfig().caches), header.stateRoot);
      const clean = await importFixtureChain(dir, join(tmp.dir, 'clean'));
      try {
        const cleanRoot = (await clean.store.headerByNumber(head.number))!.stateRoot;
        expect(bytesToHex(cleanRoot)).toBe(bytesToHex(header.stateRoot));
        const reference = await stateLeaves(new StateReader(clean.level, testConfig().caches), cleanRoot);
        expect(crashed.size).toBe(reference.size);
        expect(crashed).toEqual(reference);
      } finally {
        await clean.close();
      }
      // The genesis alloc's accounts are all there, with the alloc's code.
      const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8')) as { alloc: Record<string, { code?: string }> };
      for (const [address, alloc] of Object.entries(genesis.alloc)) {
        const key = bytesToHex(keccak256(hexToBytes(address.startsWith('0x') ? (address as `0x${string}`) : `0x${address}`)));
        expect(crashed.has(key), address).toBe(true);
        if (alloc.code) expect(crashed.get(key)!.code, address).toBe(alloc.code.toLowerCase());
      }
    } finally {
      await chain.close();
    }

    const again = await runCli(['import', '--datadir', datadir, join(dir, 'chain.rlp')]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`import: head is block 54 ${summary[53].hash}`);
    expect(again.stderr).toMatch(/import: done, \d+ blocks imported, \d+ already present/);
  });
});
