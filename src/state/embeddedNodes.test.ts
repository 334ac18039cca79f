import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Account, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { hangingNodes, provenNodes } from './remoteState.js';

/**
 * Trie nodes shorter than 32 bytes live inside their parent. reth's `debug_executionWitness` (and
 * some proofs) list them on their own as well: such a node is part of a node let in, not a node
 * that hangs from nothing.
 */

/** A storage trie (raw keys) whose two slots share 63 nibbles: an extension holding a branch holding two leaves inline. */
async function deepStorage(): Promise<{ root: Uint8Array; ext: Uint8Array; branch: Uint8Array; leaves: Uint8Array[] }> {
  const trie = new MerklePatriciaTrie();
  const key = (last: number) => {
    const k = new Uint8Array(32);
    k[31] = last;
    return k;
  };
  await trie.put(key(1), RLP.encode(Uint8Array.of(7)));
  await trie.put(key(2), RLP.encode(Uint8Array.of(9)));
  const root = trie.root();
  const ext = (await trie.database().get(root)) as Uint8Array;
  const [, inline] = RLP.decode(ext) as [Uint8Array, Uint8Array[]];
  const branch = RLP.encode(inline);
  const leaves = (inline as unknown[])
    .slice(0, 16)
    .filter(Array.isArray)
    .map((leaf) => RLP.encode(leaf as Uint8Array[]));
  return { root, ext, branch, leaves };
}

/** An account trie of one account whose storage root is `storageRoot`: its root node. */
async function accountTrie(storageRoot: Uint8Array): Promise<{ root: Uint8Array; node: Uint8Array }> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  await trie.put(hexToBytes('0x00000000000000000000000000000000000000aa'), new Account(1n, 5n, storageRoot).serialize());
  return { root: trie.root(), node: (await trie.database().get(trie.root())) as Uint8Array };
}

describe('embedded trie nodes', () => {
  it('the fixture has what it says: a branch and two leaves under 32 bytes, inline in the extension', async () => {
    const { ext, branch, leaves } = await deepStorage();
    expect(ext.length).toBeGreaterThanOrEqual(32);
    expect(branch.length).toBeLessThan(32);
    expect(leaves).toHaveLength(2);
    for (const leaf of leaves) expect(leaf.length).toBeLessThan(32);
  });

  it("a witness listing them (reth's shape) is let in whole: the hashed nodes stored, the embedded ones neither stored nor counted", async () => {
    const storage = await deepStorage();
    const account = await accountTrie(storage.root);
    const { accepted, unreachable } = hangingNodes(account.root, [account.node, storage.ext, storage.branch, ...storage.leaves]);
    expect(unreachable).toBe(0);
    expect([...accepted.keys()].sort()).toEqual([bytesToUnprefixedHex(account.root), bytesToUnprefixedHex(storage.root)].sort());
  });

  it('a short node embedded in nothing let in still counts as unreachable', async () => {
    const storage = await deepStorage();
    const account = await accountTrie(storage.root);
    const stray = RLP.encode([Uint8Array.of(0x20), RLP.encode(Uint8Array.of(8))]);
    expect(stray.length).toBeLessThan(32);
    expect(hangingNodes(account.root, [account.node, storage.ext, stray]).unreachable).toBe(1);
    // The storage trie's leaves, without the extension that holds them: nothing let in holds them.
    expect(hangingNodes(account.root, [account.node, ...storage.leaves]).unreachable).toBe(2);
  });

  it('a proof listing an embedded node after its parent is let in', async () => {
    const storage = await deepStorage();
    const account = await accountTrie(storage.root);
    const nodes = provenNodes({
      root: account.root,
      accountProof: [account.node],
      storageProofs: [[storage.ext, storage.branch, storage.leaves[0]]],
    });
    expect([...nodes.keys()].sort()).toEqual([bytesToUnprefixedHex(account.root), bytesToUnprefixedHex(storage.root)].sort());
  });
});
