import { type Hex, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll } from 'vitest';
import { type BuiltChain, buildAnvilChain } from '../../scripts/anvilChain.js';
import { tempDir } from './chains.js';
import { type EthTestServer, startEthServer } from './ethServer.js';
import { until } from './until.js';

/** A JSON-RPC answer as both peers send it. */
export interface RawAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: string };
}

/** One plain JSON-RPC request over HTTP to any node (tracenode or anvil); `params` by position or by name. */
export async function rawCall(url: string, method: string, params: unknown): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RawAnswer;
}

/** The result of a request, throwing on an error answer. */
export async function rawResult(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = await rawCall(url, method, params);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/**
 * Waits until the node at `oursUrl` serves as its latest block the block anvil (at `anvilUrl`)
 * has as latest now; `detail` goes into the error past the deadline.
 */
export async function untilCaughtUp(anvilUrl: string, oursUrl: string, detail?: () => string): Promise<void> {
  const theirs = ((await rawResult(anvilUrl, 'eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash;
  await until(
    'caught up',
    async () => ((await rawCall(oursUrl, 'eth_getBlockByNumber', ['latest', false])).result as { hash: string } | null)?.hash,
    (h) => h === theirs,
    20_000,
    detail,
  );
}

/** A peer pair for differential tests: a chain mined on anvil (still serving it) and tracenode serving its export. */
export interface PeerPair {
  built: BuiltChain;
  server: EthTestServer;
  /** tracenode's JSON-RPC URL. */
  ours: string;
  /** anvil's JSON-RPC URL. */
  theirs: string;
}

/**
 * Registers beforeAll/afterAll that mine `scenario` on anvil (scripts/anvilChain.ts), import the
 * exported chain into tracenode and serve it; returns a getter for the pair.
 */
export function usePeerPair(scenario: 'state' | 'traces'): () => PeerPair {
  const tmp = tempDir();
  let pair: PeerPair | undefined;
  beforeAll(async () => {
    const dir = `${tmp.dir}/${scenario}`;
    const built = await buildAnvilChain({ outDir: dir, scenario, keepRunning: true });
    const server = await startEthServer(dir);
    pair = { built, server, ours: `${server.url}/v3/${server.key}`, theirs: built.anvil!.url };
  }, 180_000);
  afterAll(async () => {
    await pair?.built.anvil?.stop();
    await pair?.server.close();
    tmp.cleanup();
  });
  return () => {
    if (!pair) throw new Error('peer pair used before beforeAll built it');
    return pair;
  };
}

/** A JSON-RPC call: its result. */
export type RpcCall = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * Signs `tx` with `key` as an EIP-1559 transaction of chain 31337 (anvil's), at the sender's
 * pending nonce and fees above any development node's base fee, and sends it raw through `via`
 * (`node` itself by default, or a node that relays it); its hash.
 */
export async function sendSigned(node: RpcCall, key: Hex, tx: { to?: Hex; value?: bigint; data?: Hex; gas: bigint }, via: RpcCall = node): Promise<Hex> {
  const account = privateKeyToAccount(key);
  const nonce = Number(BigInt((await node('eth_getTransactionCount', [account.address, 'pending'])) as string));
  const raw = await account.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    nonce,
    maxFeePerGas: parseGwei('100'),
    maxPriorityFeePerGas: parseGwei('1'),
    ...tx,
  });
  return (await via('eth_sendRawTransaction', [raw])) as Hex;
}
