import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethereumMethods } from '../../src/methods/ethereum.js';
import { FIXTURES } from '../helpers/chains.js';
import { type EthTestServer, startEthServer } from '../helpers/ethServer.js';
import { httpClient, type RpcClient } from '../helpers/rpcClient.js';
import { testConfig } from '../helpers/testConfig.js';
import { readIoCases } from './ioFiles.js';

/**
 * The execution-apis (hive rpc-compat) request/response pairs, through the real server over HTTP,
 * against the chain each set belongs to. Every fixture folder whose method this node serves runs;
 * every answer compares as JSON (key order irrelevant) with geth's recorded one, whole: results,
 * error codes and error messages alike. Hive checks `speconly` cases for their schema only; here
 * they are compared whole too, since tracenode's answers on these chains equal geth's.
 */
const SETS = ['execution-apis', 'execution-apis-prague'] as const;

/** Cases excluded on purpose, with the reason. */
const OLD_GETH_KEY_ERROR =
  'recorded from an older geth that answered -32000 "unable to decode storage key"; current geth and the newer set answer -32602 (docs/methods.md#eth_getstorageat), which we follow';
const READ_ONLY =
  'recorded against a geth with a transaction pool; a node that follows none answers -32004 "… this node is read-only" rather than accept a transaction it can never mine (a following node relays it: test/clients/wallets.test.ts)';
const OLD_GETH_SIMULATE_CODES =
  'recorded from an older geth that answered a fee cap below the base fee with -32602 and a reverted simulated call with code -32000; current geth (the newer set, whose same cases pass) answers -38012 and code 3, which we follow';
const EXCLUDED: Record<string, string> = {
  ...Object.fromEntries(
    [
      'basefee-too-low-with-validation-38012',
      'check-invalid-nonce',
      'gas-fees-and-value-error-38014-with-validation',
      'simple-no-funds-with-validation-without-nonces',
      'simple-no-funds-with-validation',
      'simple-send-from-contract-with-validation',
      'eth-send-should-not-produce-logs-on-revert',
      'eth-send-should-produce-no-logs-on-forward-revert',
      'fee-recipient-receiving-funds',
    ].map((c) => [`execution-apis-prague:eth_simulateV1/ethSimulate-${c}.io`, OLD_GETH_SIMULATE_CODES]),
  ),
  'execution-apis-prague:eth_getStorageAt/get-storage-invalid-key.io': OLD_GETH_KEY_ERROR,
  'execution-apis-prague:eth_getStorageAt/get-storage-invalid-key-too-large.io': OLD_GETH_KEY_ERROR,
};

/**
 * One set's cases through a server. `plain`: the EVM methods only (those declared `evm`), on a
 * server whose call engine runs @ethereumjs/evm as published (`execution.evmFastPaths` off): the
 * upgrade check of our EVM patches (src/execution/evm/README.md) — the same answers both ways.
 */
function conformance(set: (typeof SETS)[number], plain: boolean): void {
  const title = plain ? `execution-apis conformance: ${set}, the EVM as published (execution.evmFastPaths off)` : `execution-apis conformance: ${set}`;
  describe(title, () => {
    let server: EthTestServer;
    let client: RpcClient;
    // The server's warnings: a domain error a method let through without declaring it says so there.
    const warnings: string[] = [];
    beforeAll(async () => {
      const config = testConfig();
      config.execution.evmFastPaths = !plain;
      const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
      server = await startEthServer(join(FIXTURES, set), config, logger);
      client = httpClient(server.url, server.key);
    });
    afterAll(async () => {
      await client?.close();
      await server?.close();
    });
    const root = join(FIXTURES, set);
    const methods = [...ethereumMethods.keys()].filter((m) => existsDir(join(root, m)) && (!plain || ethereumMethods.declaration(m).evm));
    if (plain) it('runs EVM methods', () => expect(methods).toEqual(expect.arrayContaining(['eth_call', 'eth_estimateGas', 'eth_simulateV1'])));
    for (const io of readIoCases(root, methods)) {
      const name = `${io.method}/${io.file}`;
      const reason = EXCLUDED[`${set}:${name}`] ?? (io.method === 'eth_sendRawTransaction' ? READ_ONLY : undefined);
      (reason ? it.skip : it)(
        `${name}: ${io.comment}${io.specOnly ? ' (speconly in hive; compared whole here)' : ''}${reason ? ` (excluded: ${reason})` : ''}`,
        async () => {
          for (const { request, response } of io.exchanges) {
            const got = (await client.send(JSON.parse(request))).body as Record<string, unknown>;
            const want = JSON.parse(response);
            expect(set === 'execution-apis-prague' ? withoutBlockTimestamp(got, want) : got).toEqual(want);
          }
        },
      );
    }
    it('no method let through a domain error it does not declare (raises)', () => {
      expect(warnings.filter((w) => w.includes('does not declare'))).toEqual([]);
    });
  });
}

for (const set of SETS) {
  conformance(set, false);
  conformance(set, true);
}

/**
 * The Prague set was recorded by a geth that did not yet put `blockTimestamp` on transaction
 * objects nor `maxUsedGas` on eth_simulateV1 call results; the newer set (current geth) does, and
 * so do we. For the older set only, drop those keys where the expected object lacks them, so every
 * other field is still compared.
 */
const NEWER_KEYS = new Set(['blockTimestamp', 'maxUsedGas']);
function withoutBlockTimestamp(got: unknown, want: unknown): unknown {
  if (Array.isArray(got) && Array.isArray(want)) return got.map((g, i) => withoutBlockTimestamp(g, want[i]));
  if (got && want && typeof got === 'object' && typeof want === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(got)) {
      if (NEWER_KEYS.has(k) && !(k in want)) continue;
      out[k] = withoutBlockTimestamp(v, (want as Record<string, unknown>)[k]);
    }
    return out;
  }
  return got;
}

function existsDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
