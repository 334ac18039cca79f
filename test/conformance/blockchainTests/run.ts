import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak.js';
import { type EthereumChain, openChain } from '../../../src/chain/open.js';
import { createEthereumNetwork } from '../../../src/cli/ethereumNetwork.js';
import type { Config } from '../../../src/config/settings.js';
import { importBlocks } from '../../../src/import/importChain.js';
import { initDatadir } from '../../../src/import/init.js';
import { InvalidBlockError } from '../../../src/import/validate.js';
import { verifyProof } from '../../helpers/proofVerifier.js';
import { startServer, TEST_API_KEY } from '../../helpers/rpcClient.js';
import { testConfig } from '../../helpers/testConfig.js';
import { expectsRefusal, genesisText } from './convert.js';
import type { TestAccount, TestCase } from './fixtures.js';

/**
 * One blockchain test through the path a user takes: `init` with the test's genesis file,
 * `import` of its blocks one by one (each block the test expects refused must be, and nothing of
 * it kept; each other one must verify), the head the test names, and then the post-state read
 * back through the served JSON-RPC methods: every account's balance, nonce and code, every
 * storage slot the test lists, and a proof of each account and slot checked against the head's
 * state root by a verifier of our own; the accounts the blocks removed must be gone; a refused
 * block is unknown to eth_getBlockByHash.
 */

export type CaseStatus = 'pass' | 'fail' | 'skip';

export interface CaseResult {
  status: CaseStatus;
  /** Why it failed or was skipped. */
  reason?: string;
}

/** What the runner does not do, and why, before it runs anything: a reason to skip, or undefined. */
export function unsupported(c: TestCase): string | undefined {
  const refused = c.test.blocks.some((b) => expectsRefusal(b, c.test.network) !== undefined);
  if (c.test.sealEngine === 'Ethash' && refused) return 'proof-of-work seals are not verified (sealEngine Ethash with blocks to refuse)';
  return undefined;
}

/** The settings a test node runs with: one EVM worker, no wait for quiet when its server closes, the defaults otherwise. */
function conformanceConfig(): Config {
  return testConfig({ execution: { evmWorkers: 1 }, transport: { shutdownQuietMs: 1, shutdownNoticeMs: 0 } });
}

/** Runs one test; `serve` reads the post-state back through a served node (else through the store only). */
export async function runCase(c: TestCase, opts: { serve: boolean } = { serve: true }): Promise<CaseResult> {
  const skip = unsupported(c);
  if (skip !== undefined) return { status: 'skip', reason: skip };
  const dir = mkdtempSync(join(tmpdir(), 'tracenode-bt-'));
  const config = conformanceConfig();
  let chain: EthereumChain | undefined;
  try {
    const init = await initDatadir(join(dir, 'data'), genesisText(c.test), config).catch((err: unknown) => err as Error);
    if (init instanceof Error) return fail(`init refused the genesis: ${init.message}`);
    if (c.test.genesisBlockHeader.hash !== undefined && init.hash !== c.test.genesisBlockHeader.hash) {
      return fail(`genesis hash ${init.hash} != the test's ${c.test.genesisBlockHeader.hash}`);
    }
    chain = await openChain(join(dir, 'data'), config.caches);
    const refusedHashes: string[] = [];
    const acceptedHashes: string[] = [];
    for (const [i, block] of c.test.blocks.entries()) {
      const expected = expectsRefusal(block, c.test.network);
      const outcome = await importOne(chain, block.rlp, config);
      if (outcome instanceof Error) return fail(`block ${i + 1}: import failed unexpectedly: ${outcome.message}`);
      if (expected !== undefined && outcome === 'accepted') return fail(`block ${i + 1} was accepted; the test expects it refused (${expected})`);
      if (expected === undefined && outcome !== 'accepted') return fail(`block ${i + 1} was refused: ${outcome.refused}`);
      const hash = headerHash(block.rlp);
      if (hash !== undefined) (expected === undefined ? acceptedHashes : refusedHashes).push(hash);
    }
    // A block refused for its body has the header, and so the hash, of a valid one the test may give too.
    const neverAccepted = refusedHashes.filter((h) => !acceptedHashes.includes(h));
    const head = await chain.store.head();
    if (head === undefined) return fail('no head');
    if (bytesToHex(head.hash) !== c.test.lastblockhash)
      return fail(`head ${bytesToHex(head.hash)} (block ${head.number}) != the test's last block ${c.test.lastblockhash}`);
    if (c.test.postStateHash !== undefined) {
      const header = (await chain.store.headerByHash(head.hash))!;
      if (bytesToHex(header.stateRoot) !== c.test.postStateHash)
        return fail(`head state root ${bytesToHex(header.stateRoot)} != postStateHash ${c.test.postStateHash}`);
    }
    if (opts.serve) {
      const why = await checkServed(chain, c, neverAccepted, config);
      if (why !== undefined) return fail(why);
    }
    return { status: 'pass' };
  } finally {
    await chain?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function fail(reason: string): CaseResult {
  return { status: 'fail', reason };
}

/** Imports one block as `tracenode import` does: accepted, refused (with why), or an Error that is no refusal. */
async function importOne(chain: EthereumChain, rlp: string, config: Config): Promise<'accepted' | { refused: string } | Error> {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(rlp as `0x${string}`);
  } catch (err) {
    return { refused: `not hex: ${(err as Error).message}` };
  }
  try {
    await importBlocks(chain, [bytes], config.import);
    return 'accepted';
  } catch (err) {
    if (err instanceof InvalidBlockError) return { refused: err.message };
    return err as Error;
  }
}

/** The hash of a block's header, when its RLP decodes that far. */
function headerHash(rlp: string): string | undefined {
  try {
    const decoded = RLP.decode(hexToBytes(rlp as `0x${string}`)) as unknown[];
    return bytesToHex(keccak256(RLP.encode(decoded[0] as Uint8Array[])));
  } catch {
    return undefined;
  }
}

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** The post-state and the refused blocks, through a node serving the datadir over HTTP. */
async function checkServed(chain: EthereumChain, c: TestCase, refused: readonly string[], config: Config): Promise<string | undefined> {
  const network = await createEthereumNetwork(chain, { name: 'mainnet', clientVersion: 'tracenode/conformance', config });
  const server = await startServer({ networks: [network.handle], apiKeys: [TEST_API_KEY], logger: false, config });
  try {
    const calls: Array<{ method: string; params: unknown[]; check: (result: unknown) => string | undefined }> = [];
    const head = (await chain.store.headerByHash((await chain.store.head())!.hash))!;
    const post = c.test.postState ?? {};
    for (const [address, account] of Object.entries(post)) addAccountChecks(calls, address, account, head.stateRoot);
    // Accounts of `pre` that the blocks removed.
    for (const address of Object.keys(c.test.pre)) {
      if (c.test.postState === undefined || address in post) continue;
      calls.push({
        method: 'eth_getProof',
        params: [address, [], 'latest'],
        check: (r) => (proofValue(head.stateRoot, address, r) === null ? undefined : `${address} is in the state; the test removed it`),
      });
    }
    for (const hash of refused) {
      calls.push({ method: 'eth_getBlockByHash', params: [hash, false], check: (r) => (r === null ? undefined : `refused block ${hash} is served`) });
    }
    const answers = await batch(
      server.url,
      calls.map((call, id) => ({ jsonrpc: '2.0', id, method: call.method, params: call.params })),
    );
    for (const answer of answers) {
      const call = calls[answer.id];
      if (answer.error) return `${call.method}(${JSON.stringify(call.params)}): error ${answer.error.code} ${answer.error.message}`;
      const why = call.check(answer.result);
      if (why !== undefined) return `${call.method}(${JSON.stringify(call.params).slice(0, 120)}): ${why}`;
    }
    return undefined;
  } finally {
    await server.close();
    await network.close();
  }
}

/** A quantity as the node renders it. */
function quantity(hex: string): string {
  return `0x${BigInt(hex).toString(16)}`;
}

function addAccountChecks(
  calls: Array<{ method: string; params: unknown[]; check: (result: unknown) => string | undefined }>,
  address: string,
  account: TestAccount,
  stateRoot: Uint8Array,
): void {
  const equals = (want: string) => (got: unknown) => (got === want ? undefined : `got ${String(got)}, want ${want}`);
  calls.push({ method: 'eth_getBalance', params: [address, 'latest'], check: equals(quantity(account.balance)) });
  calls.push({ method: 'eth_getTransactionCount', params: [address, 'latest'], check: equals(quantity(account.nonce)) });
  calls.push({ method: 'eth_getCode', params: [address, 'latest'], check: equals(account.code.toLowerCase()) });
  const slots = Object.keys(account.storage ?? {});
  for (const slot of slots) {
    const want = `0x${BigInt(account.storage[slot]).toString(16).padStart(64, '0')}`;
    calls.push({ method: 'eth_getStorageAt', params: [address, `0x${BigInt(slot).toString(16).padStart(64, '0')}`, 'latest'], check: equals(want) });
  }
  const keys = slots.map((s) => `0x${BigInt(s).toString(16).padStart(64, '0')}`);
  // eth_getProof takes up to 1,024 keys (execution.maxProofKeys): larger storages in several calls.
  for (let i = 0; i === 0 || i < keys.length; i += 500) {
    const part = keys.slice(i, i + 500);
    const partSlots = slots.slice(i, i + 500);
    calls.push({
      method: 'eth_getProof',
      params: [address, part, 'latest'],
      check: (r) => checkProof(stateRoot, address, account, part, partSlots, r),
    });
  }
}

interface ProofAnswer {
  accountProof: string[];
  balance: string;
  nonce: string;
  storageHash: string;
  storageProof: Array<{ key: string; value: string; proof: string[] }>;
}

/** The account leaf the proof in `answer` shows under `stateRoot` (null: absent); throws on a bad proof. */
function proofValue(stateRoot: Uint8Array, address: string, answer: unknown): Uint8Array | null {
  const proof = (answer as ProofAnswer).accountProof.map((n) => hexToBytes(n as `0x${string}`));
  return verifyProof(stateRoot, hexToBytes(address as `0x${string}`), proof);
}

function checkProof(stateRoot: Uint8Array, address: string, account: TestAccount, keys: string[], slots: string[], answer: unknown): string | undefined {
  const p = answer as ProofAnswer;
  let leaf: Uint8Array | null;
  try {
    leaf = proofValue(stateRoot, address, answer);
  } catch (err) {
    return `account proof does not verify: ${(err as Error).message}`;
  }
  if (leaf === null) return 'the account proof shows the account absent';
  const [nonce, balance, storageRoot] = RLP.decode(leaf) as Uint8Array[];
  if (bytesToBigInt(nonce) !== BigInt(account.nonce)) return 'the proven nonce differs';
  if (bytesToBigInt(balance) !== BigInt(account.balance)) return 'the proven balance differs';
  if (bytesToHex(storageRoot) !== p.storageHash) return `storageHash ${p.storageHash} is not the proven account's ${bytesToHex(storageRoot)}`;
  for (const [i, key] of keys.entries()) {
    const entry = p.storageProof[i];
    let value: Uint8Array | null;
    try {
      value = verifyProof(
        storageRoot,
        hexToBytes(key as `0x${string}`),
        entry.proof.map((n) => hexToBytes(n as `0x${string}`)),
      );
    } catch (err) {
      return `storage proof of ${key} does not verify: ${(err as Error).message}`;
    }
    const proven = value === null ? 0n : bytesToBigInt(RLP.decode(value) as Uint8Array);
    if (proven !== BigInt(account.storage[slots[i]])) return `the proven value of slot ${key} is ${proven}`;
  }
  return undefined;
}

async function batch(url: string, body: unknown[]): Promise<RpcAnswer[]> {
  const out: RpcAnswer[] = [];
  // Batches of moderate size, each on its own connection (no keep-alive to wait out at close).
  for (let i = 0; i < body.length; i += 200) {
    const text = await post(`${url}/v3/${TEST_API_KEY}`, JSON.stringify(body.slice(i, i + 200)));
    const answers = JSON.parse(text) as RpcAnswer[];
    if (!Array.isArray(answers)) throw new Error(`the node answered a batch with ${text.slice(0, 200)}`);
    out.push(...answers);
  }
  return out;
}

function post(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
