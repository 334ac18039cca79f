import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { httpClient, type RpcClient } from '../helpers/rpcClient.js';
import { readIoCases } from './ioFiles.js';

/**
 * The execution-apis (hive rpc-compat) request/response pairs, through the real server over HTTP,
 * against the chain each set belongs to. Every fixture folder whose method this node serves runs;
 * results compare as JSON (key order irrelevant); error responses compare the code, and the
 * message where geth's text is our contract.
 */
const SETS = ['execution-apis', 'execution-apis-prague'] as const;

/** Cases excluded on purpose, with the reason. */
const OLD_GETH_KEY_ERROR =
  'recorded from an older geth that answered -32000 "unable to decode storage key"; current geth and the newer set answer -32602 (docs/methods.md#eth_getstorageat), which we follow';
const READ_ONLY =
  'recorded against a geth with a transaction pool; a read-only archive answers -32004 "… this node is read-only" rather than accept a transaction it can never mine';
const EXCLUDED: Record<string, string> = {
  'execution-apis-prague:eth_getStorageAt/get-storage-invalid-key.io': OLD_GETH_KEY_ERROR,
  'execution-apis-prague:eth_getStorageAt/get-storage-invalid-key-too-large.io': OLD_GETH_KEY_ERROR,
};

for (const set of SETS) {
  describe(`execution-apis conformance: ${set}`, () => {
    let server: EthTestServer;
    let client: RpcClient;
    beforeAll(async () => {
      server = await startEthServer(join(FIXTURES, set));
      client = httpClient(server.url, server.key);
    });
    afterAll(async () => {
      await client?.close();
      await server?.close();
    });
    const root = join(FIXTURES, set);
    const methods = [...ethereumMethods.keys()].filter((m) => existsDir(join(root, m)));
    for (const io of readIoCases(root, methods)) {
      const name = `${io.method}/${io.file}`;
      const reason = EXCLUDED[`${set}:${name}`] ?? (io.method === 'eth_sendRawTransaction' ? READ_ONLY : undefined);
      (reason ? it.skip : it)(`${name}: ${io.comment}${reason ? ` (excluded: ${reason})` : ''}`, async () => {
        for (const { request, response } of io.exchanges) {
          const got = (await client.send(JSON.parse(request))).body as Record<string, unknown>;
          const want = JSON.parse(response);
          if (want.error) {
            expect(got.error).toBeDefined();
            expect((got.error as { code: number }).code).toBe(want.error.code);
            if (EXACT_ERROR_TEXT.has(io.method)) expect(got.error).toEqual(want.error);
          } else if (io.specOnly) {
            expect(got.error).toBeUndefined();
            expect(got).toHaveProperty('result');
          } else {
            expect(set === 'execution-apis-prague' ? withoutBlockTimestamp(got, want) : got).toEqual(want);
          }
        }
      });
    }
  });
}

/** Methods whose error messages are geth's exact texts (not only the code). */
const EXACT_ERROR_TEXT = new Set(['eth_getStorageAt', 'eth_getProof', 'eth_getLogs', 'eth_call']);

/**
 * The Prague set was recorded by a geth that did not yet put `blockTimestamp` on transaction
 * objects; the newer set (current geth) does, and so do we. For the older set only, drop that one
 * key where the expected object lacks it, so every other field is still compared.
 */
function withoutBlockTimestamp(got: unknown, want: unknown): unknown {
  if (Array.isArray(got) && Array.isArray(want)) return got.map((g, i) => withoutBlockTimestamp(g, want[i]));
  if (got && want && typeof got === 'object' && typeof want === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(got)) {
      if (k === 'blockTimestamp' && !('blockTimestamp' in want)) continue;
      out[k] = withoutBlockTimestamp(v, (want as Record<string, unknown>)[k]);
    }
    return out;
  }
  return got;
}

function existsDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
