// Types for scripts/anvilChain.mjs (a plain ESM script), for TypeScript tests that use it.

export interface JsonRpc {
  url: string;
  call(method: string, params?: unknown[]): Promise<any>;
  batch(calls: [string, unknown[]][]): Promise<any[]>;
}

export interface AnvilProcess {
  url: string;
  port: number;
  rpc: JsonRpc;
  proc: import('node:child_process').ChildProcess;
  output(): string;
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

export interface BuiltChain {
  genesisPath: string;
  rlpPath: string;
  expectedPath: string;
  chainId: number;
  blocks: { number: number; hash: string; stateRoot: string }[];
  info: Record<string, any>;
  stats: {
    compileSeconds: number;
    mineSeconds: number;
    exportSeconds: number;
    totalSeconds: number;
    blocksPerSecond: number;
    txCount: number;
    mineCpuSeconds: { node: number; anvil?: number };
  };
  /** Present with keepRunning: the anvil that mined the chain, still serving it. */
  anvil?: { url: string; rpc: JsonRpc; stop(): Promise<void> };
}

export const ANVIL_BIN: string;
export const CAST_BIN: string;
export const CHAIN_ID: number;
export const GENESIS_TIMESTAMP: number;
export const BLOCK_TIME: number;

/** Starts anvil on a computed genesis, runs a scenario, exports the chain. */
export function buildAnvilChain(opts: {
  outDir: string;
  scenario?: 'state' | 'traces' | 'bench';
  blocks?: number;
  keepRunning?: boolean;
  log?: (msg: string) => void;
}): Promise<BuiltChain>;

/** Spawns anvil on 127.0.0.1:<free port> with extra CLI args; resolves once it answers. */
export function startAnvil(
  args?: string[],
  opts?: { bin?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; removeOnStop?: string[] },
): Promise<AnvilProcess>;

/** Imports <dir>/genesis.json + chain.rlp with plain ethereumjs and checks hashes/stateRoots against expected.json. */
export function verifyWithEthereumjs(dir: string): Promise<{ blocks: number; seconds: number }>;

export function rpcClient(url: string): JsonRpc;
export function accountFor(name: string): { name: string; pk: Uint8Array; address: string };
export function keyFor(name: string): Uint8Array;
export function calldata(signature: string, ...args: (bigint | number | boolean | string)[]): string;
export function slotHex(n: bigint | number): string;
export function mappingSlot(key: bigint | number | string, slot: bigint | number | string): string;
