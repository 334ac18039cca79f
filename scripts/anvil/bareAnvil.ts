import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { genesisBlocks, makeAlloc, makeGenesis } from './anvilGenesis.js';
import { startAnvil } from './anvilProcess.js';
import { accountFor, CHAIN_ID, GAS_LIMIT } from './chainParams.js';

/** An anvil on the computed genesis with nothing mined past block 1: for tests that make their own blocks. */
export interface BareAnvil {
  url: string;
  /** The geth genesis tracenode inits its datadir with. */
  genesisPath: string;
  /** One JSON-RPC call to anvil (throws on an error answer). */
  call(method: string, params?: unknown[]): Promise<unknown>;
  /** Signs and sends a transaction from alice (mined with the next block); resolves its hash. */
  send(tx: { to?: Hex; data: Hex; gas: bigint }): Promise<Hex>;
  /** Mines one block with the base fee EIP-1559 gives it (anvil keeps a stale fee state across evm_revert). */
  mine(): Promise<void>;
  stop(): Promise<void>;
}

/** One JSON-RPC call to `url`; throws on an error answer. */
async function rawResult(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: unknown; error?: unknown };
  if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** EIP-1559's base fee of the block after `parent` (elasticity 2, change denominator 8). */
function nextBaseFee(parent: { baseFeePerGas: string; gasUsed: string; gasLimit: string }): bigint {
  const base = BigInt(parent.baseFeePerGas);
  const used = BigInt(parent.gasUsed);
  const target = BigInt(parent.gasLimit) / 2n;
  if (used === target) return base;
  if (used > target) {
    const delta = (base * (used - target)) / target / 8n;
    return base + (delta > 1n ? delta : 1n);
  }
  return base - (base * (target - used)) / target / 8n;
}

/**
 * Mines one block on the anvil `call` talks to, with the base fee EIP-1559 gives it. anvil 1.7.1
 * keeps its fee state across evm_revert and anvil_reorg, so the blocks it mines after one carry
 * the base fee of the branch it left (seen: 7478637 where the parent gives 8545304), which
 * tracenode refuses as geth would.
 */
export async function mineWithEip1559BaseFee(call: (method: string, params?: unknown[]) => Promise<unknown>): Promise<void> {
  const parent = (await call('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string; gasUsed: string; gasLimit: string };
  await call('anvil_setNextBlockBaseFeePerGas', [`0x${nextBaseFee(parent).toString(16)}`]);
  await call('evm_mine');
}

/**
 * Starts anvil on the same computed genesis as the scenario chains (alice and bob funded), with
 * mining on demand and a 12 s block interval (so no block repeats its parent's timestamp); with
 * `automine`, as users run anvil instead: each transaction mined at once, blocks mined in one
 * second sharing its timestamp, no interval. Transactions are signed (an impersonated one has no
 * signature, and tracenode, which rebuilds each block from anvil's JSON, cannot check its hash).
 */
export async function startBareAnvil(dir: string, opts: { automine?: boolean } = {}): Promise<BareAnvil> {
  mkdirSync(dir, { recursive: true });
  const genesis = makeGenesis(makeAlloc([accountFor('alice'), accountFor('bob')]));
  const { state } = await genesisBlocks(genesis);
  const stateDir = mkdtempSync(join(tmpdir(), 'tracenode-anvil-state-'));
  const statePath = join(stateDir, 'state.json');
  writeFileSync(statePath, JSON.stringify(state));
  const genesisPath = join(dir, 'genesis.json');
  writeFileSync(genesisPath, JSON.stringify(genesis));
  const anvil = await startAnvil(
    [
      ...['--hardfork', 'cancun', '--chain-id', String(CHAIN_ID), '--accounts', '0'],
      ...(opts.automine ? [] : ['--no-mining', '--order', 'fifo']),
      ...['--gas-limit', String(GAS_LIMIT), '--load-state', statePath, '--cache-path', join(stateDir, 'cache'), '--quiet'],
    ],
    { removeOnStop: [stateDir] },
  );
  const call = (method: string, params: unknown[] = []) => rawResult(anvil.url, method, params);
  if (!opts.automine) await call('anvil_setBlockTimestampInterval', [12]);
  const wallet = createWalletClient({ account: privateKeyToAccount(accountFor('alice').privateKey), transport: http(anvil.url) });
  return {
    url: anvil.url,
    genesisPath,
    call,
    send: ({ to, data, gas }) => wallet.sendTransaction({ to, data, gas, chain: null }),
    mine: () => mineWithEip1559BaseFee(call),
    stop: anvil.stop,
  };
}
