import type { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, equalsBytes } from '@ethereumjs/util';
import { ANCESTOR_HASHES } from '../chain/archiveStart.js';
import { RemoteStateError } from '../state/stateSource.js';
import { headerFromRpc } from './blockFromRpc.js';
import type { Call, Upstream } from './upstream.js';

/** Headers asked for in one JSON-RPC batch. */
const BATCH = 64;

/**
 * The hashes of the blocks below an archive's first block `first` that BLOCKHASH can name (the
 * 256 before it, fewer near the genesis), lowest first: each header is asked for without its
 * body (`eth_getBlockByNumber(n, false)`), rebuilt, and must hash to the parentHash of the one
 * above it, from `first`'s own — so no hash is taken on trust. A gap or a mismatch throws.
 */
export async function fetchAncestorHashes(upstream: Upstream, common: Common, first: BlockHeader): Promise<Uint8Array[]> {
  const count = first.number < ANCESTOR_HASHES ? first.number : ANCESTOR_HASHES;
  const from = first.number - count;
  const jsons: unknown[] = [];
  for (let n = from; n < first.number; n += BigInt(BATCH)) {
    const calls: Call[] = [];
    for (let m = n; m < n + BigInt(BATCH) && m < first.number; m++) calls.push({ method: 'eth_getBlockByNumber', params: [`0x${m.toString(16)}`, false] });
    jsons.push(...(await upstream.batch(calls)));
  }
  const hashes: Uint8Array[] = new Array(Number(count));
  let expected = first.parentHash;
  for (let i = jsons.length - 1; i >= 0; i--) {
    const number = from + BigInt(i);
    const header = headerFromRpc(jsons[i], common);
    const hash = header.hash();
    if (header.number !== number || !equalsBytes(hash, expected)) {
      throw new RemoteStateError(
        'invalid',
        `the upstream's block ${header.number} (${bytesToHex(hash)}) is not the ancestor ${number} (${bytesToHex(expected)}) of this archive's first block`,
      );
    }
    hashes[i] = hash;
    expected = header.parentHash;
  }
  return hashes;
}
