// Owns one run of the anvil generator: compile the scenario's contracts, compute the genesis, start
// anvil on it, run the scenario, check receipts and contracts, export the chain and write
// genesis.json, chain.rlp, expected.json and README.md (docs/peers.md explains each step).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import type { Hash } from 'viem';
import { writeChainFiles } from '../lib/genesis.js';
import { compileSolidity } from '../lib/solc.js';
import { type AnvilClient, createAnvilClient } from './anvilClient.js';
import { genesisBlocks, makeAlloc, makeGenesis } from './anvilGenesis.js';
import { startAnvil } from './anvilProcess.js';
import { ChainDriver } from './chainDriver.js';
import { accountFor, CHAIN_ID, GAS_LIMIT, KEY_DERIVATION } from './chainParams.js';
import { checkReceipts, exportBlocks } from './exportBlocks.js';
import { type Expected, renderReadme } from './renderReadme.js';
import type { Scenario, ScenarioAccounts, ScenarioInfo } from './scenario.js';
import { BENCH_SCENARIO } from './scenarios/bench.js';
import { STATE_SCENARIO } from './scenarios/state.js';
import { TRACES_SCENARIO } from './scenarios/traces.js';

export type ScenarioName = 'state' | 'traces' | 'bench';

export const SCENARIOS: Record<ScenarioName, Scenario> = { state: STATE_SCENARIO, traces: TRACES_SCENARIO, bench: BENCH_SCENARIO };

/** The anvil release the chains are mined on (package.json's optional dependency). */
const ANVIL_VERSION = '1.7.1';

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  // No metadata hash: a comment edit in a .sol file does not change the bytecode (or the fixtures).
  metadata: { bytecodeHash: 'none', appendCBOR: false },
} as const;

export interface BuildOptions {
  outDir: string;
  scenario?: ScenarioName;
  /** Chain height; state and traces repeat a round of transactions to reach it. */
  blocks?: number;
  /** Leave anvil serving the chain (result.anvil). */
  keepRunning?: boolean;
  log?: (msg: string) => void;
}

export interface BuiltChain {
  genesisPath: string;
  rlpPath: string;
  expectedPath: string;
  chainId: number;
  blocks: { number: number; hash: Hash; stateRoot: Hash }[];
  info: ScenarioInfo;
  stats: {
    compileSeconds: number;
    mineSeconds: number;
    exportSeconds: number;
    totalSeconds: number;
    blocksPerSecond: number;
    txCount: number;
    mineCpuSeconds: { node: number; anvil?: number };
  };
  /** With keepRunning: the anvil that mined the chain, still serving it. */
  anvil?: { url: string; client: AnvilClient; stop(): Promise<void>; cpuSeconds(): number | undefined };
}

/** Starts anvil on a computed genesis, runs a scenario and exports the chain into `outDir`. */
export async function buildAnvilChain({ outDir, scenario = 'state', blocks, keepRunning = false, log = () => {} }: BuildOptions): Promise<BuiltChain> {
  const sc = SCENARIOS[scenario];
  if (!sc) throw new Error(`unknown scenario ${scenario} (state, traces, bench)`);
  const target = blocks ?? sc.defaultBlocks;
  const t0 = performance.now();
  const art = (await compileSolidity(import.meta.dirname, sc.files, SOLC_SETTINGS)).artifacts;
  const tCompiled = performance.now();

  const acct: ScenarioAccounts = {
    alice: accountFor('alice'),
    bob: accountFor('bob'),
    carol: accountFor('carol'),
    dave: accountFor('dave'),
    erin: accountFor('erin'),
    users: Array.from({ length: sc.users }, (_, i) => accountFor(`user${i}`)),
  };
  const named = [acct.alice, acct.bob, acct.carol, acct.dave, acct.erin];
  const genesis = makeGenesis(makeAlloc([...named, ...acct.users]));
  const { block0, block1, state, common } = await genesisBlocks(genesis);

  mkdirSync(outDir, { recursive: true });
  const stateDir = mkdtempSync(join(tmpdir(), 'tracenode-anvil-state-'));
  const statePath = join(stateDir, 'state.json');
  writeFileSync(statePath, JSON.stringify(state));
  // anvil keeps the states of the last 500 blocks in memory and writes older ones to disk, one
  // JSON file of the whole state per block (GBs for the bench, and never deleted): --cache-path
  // puts them in our temp dir, removed on stop.
  const anvil = await startAnvil(
    [
      ...['--hardfork', 'cancun', '--chain-id', String(CHAIN_ID), '--accounts', '0', '--no-mining', '--order', 'fifo'],
      ...['--gas-limit', String(GAS_LIMIT), '--load-state', statePath, '--cache-path', join(stateDir, 'cache')],
      ...sc.anvilArgs,
      '--quiet',
    ],
    { removeOnStop: [stateDir] },
  );
  try {
    const client = anvil.client;
    const [got0, got1] = await Promise.all((['0x0', '0x1'] as const).map((n) => client.request({ method: 'eth_getBlockByNumber', params: [n, false] })));
    if (got0?.hash !== bytesToHex(block0.hash()) || got1?.hash !== bytesToHex(block1.hash())) {
      throw new Error(
        `anvil's blocks 0/1 (${got0?.hash}, ${got1?.hash}) are not the computed ones (${bytesToHex(block0.hash())}, ${bytesToHex(block1.hash())})`,
      );
    }
    // anvil's clock starts at the wall clock; set it back to block 1 so that evm_mine accepts our timestamps
    await client.request({ method: 'evm_setTime', params: [Number(block1.header.timestamp)] });

    // the driver's requests go one at a time (no batch), in order
    const d = new ChainDriver({ client: createAnvilClient(anvil.url), chainId: Number(common.chainId()), firstTimestamp: Number(block1.header.timestamp) });
    const tStart = performance.now();
    const cpuStart = { anvil: anvil.cpuSeconds(), node: process.cpuUsage() };
    const info = await sc.run({ d, art, acct, blocks: target, log });
    await d.flush();
    const tMined = performance.now();
    const nodeCpu = process.cpuUsage(cpuStart.node);
    const anvilCpu = (anvil.cpuSeconds() ?? Number.NaN) - (cpuStart.anvil ?? Number.NaN);
    const head = Number(await client.request({ method: 'eth_blockNumber' }));
    if (head !== d.head) throw new Error(`anvil head ${head}, expected ${d.head}`);

    await checkReceipts(client, d.expect);
    // every contract the scenario names must have code (a wrong address would be an empty account)
    const contracts = Object.entries(info.contracts);
    const codes = await Promise.all(contracts.map(([, a]) => client.request({ method: 'eth_getCode', params: [a, 'latest'] })));
    contracts.forEach(([name, a], i) => {
      if (!codes[i] || codes[i] === '0x') throw new Error(`contract ${name} at ${a} has no code`);
    });
    const exported = await exportBlocks(client, { from: 0, to: head, knownRaw: d.raw, checkRaw: sc.checkRaw });
    const tExported = performance.now();
    for (const b of exported.blocks) {
      if (b.number < 2) continue;
      const planned = d.plan.get(b.number) ?? [];
      if (planned.length !== b.txHashes.length || planned.some((h, i) => h !== b.txHashes[i])) {
        throw new Error(`block ${b.number}: anvil included [${b.txHashes.join(', ')}], planned [${planned.join(', ')}]`);
      }
    }
    await sc.finish?.({ client, d, blocks: exported.blocks, info });

    const { genesisPath, rlpPath } = writeChainFiles(outDir, genesis, exported.rlp.slice(1));
    const expectedPath = join(outDir, 'expected.json');
    const expected: Expected = {
      scenario,
      generator: 'scripts/anvilChain.ts',
      anvil: ANVIL_VERSION,
      chainId: CHAIN_ID,
      genesisHash: exported.blocks[0].hash,
      head: { number: head, hash: exported.blocks[head].hash },
      txCount: d.txCount,
      ...info,
      keys: Object.fromEntries(named.map((a) => [a.name, a.privateKey])),
      keyDerivation: KEY_DERIVATION,
      blocks: exported.blocks.map(({ number, hash, stateRoot, txHashes }) => ({ number, hash, stateRoot, txHashes })),
    };
    writeFileSync(expectedPath, `${JSON.stringify(expected, null, 1)}\n`);
    const labels = scenario === 'bench' ? undefined : expected.blocks.map((b) => b.txHashes.map((h) => d.expect.get(h)?.label ?? '?'));
    writeFileSync(join(outDir, 'README.md'), renderReadme(expected, labels));
    const mineSeconds = (tMined - tStart) / 1000;
    const result: BuiltChain = {
      genesisPath,
      rlpPath,
      expectedPath,
      chainId: CHAIN_ID,
      blocks: exported.blocks.map(({ number, hash, stateRoot }) => ({ number, hash, stateRoot })),
      info,
      stats: {
        compileSeconds: (tCompiled - t0) / 1000,
        mineSeconds,
        exportSeconds: (tExported - tMined) / 1000,
        totalSeconds: (performance.now() - t0) / 1000,
        blocksPerSecond: (head - 1) / mineSeconds,
        txCount: d.txCount,
        mineCpuSeconds: { node: (nodeCpu.user + nodeCpu.system) / 1e6, anvil: Number.isNaN(anvilCpu) ? undefined : anvilCpu },
      },
    };
    if (keepRunning) result.anvil = { url: anvil.url, client, stop: anvil.stop, cpuSeconds: anvil.cpuSeconds };
    else await anvil.stop();
    return result;
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
