// Owns the anvil chain generator's command line and its public API for the tests and the bench:
// it builds a Cancun chain on Foundry's anvil (an independent EVM, revm) from a genesis computed
// here and exports it in geth's format, so that tracenode can import it and be compared with anvil
// method by method (docs/peers.md). The work is done in scripts/anvil/.
//
//   npx tsx scripts/anvilChain.ts <outDir> [--scenario state|traces|bench] [--blocks N] [--keep-running] [--verify]
//
// writes <outDir>/genesis.json, chain.rlp (blocks 1..head, concatenated RLP), expected.json and README.md.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAnvilChain, SCENARIOS, type ScenarioName } from './anvil/buildAnvilChain.js';
import type { Expected } from './anvil/renderReadme.js';
import { verifyWithEthereumjs } from './anvil/verifyWithEthereumjs.js';

export { type AnvilProcess, startAnvil } from './anvil/anvilProcess.js';
export { type BuiltChain, buildAnvilChain, type ScenarioName } from './anvil/buildAnvilChain.js';
export { accountFor, CHAIN_ID } from './anvil/chainParams.js';
export { verifyWithEthereumjs } from './anvil/verifyWithEthereumjs.js';
export { mappingSlot } from './lib/abi.js';
export { ANVIL_BIN } from './lib/foundry.js';

const USAGE = 'usage: npx tsx scripts/anvilChain.ts <outDir> [--scenario state|traces|bench] [--blocks N] [--keep-running] [--verify]';
const HELP = [
  USAGE,
  '  --scenario   state (default, 32 blocks; at least 19), traces (24 blocks; at least 14), bench (2000 blocks; at least 18)',
  '  --blocks     chain height; state/traces repeat a round of transactions to reach it',
  '  --keep-running  leave anvil serving the chain until Ctrl-C',
  '  --verify     import the result with plain ethereumjs and compare every hash and stateRoot',
].join('\n');

function isScenario(s: string | undefined): s is ScenarioName {
  return s !== undefined && Object.hasOwn(SCENARIOS, s);
}

async function main(args: string[]): Promise<void> {
  let scenario: ScenarioName = 'state';
  let blocks: number | undefined;
  let keepRunning = false;
  let verify = false;
  let outDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--scenario') {
      const s = args[++i];
      if (!isScenario(s)) throw new Error(`unknown scenario ${s} (state, traces, bench)`);
      scenario = s;
    } else if (a === '--blocks') blocks = Number(args[++i]);
    else if (a === '--keep-running') keepRunning = true;
    else if (a === '--verify') verify = true;
    else if (a === '-h' || a === '--help') {
      console.log(HELP);
      return;
    } else if (!outDir && !a.startsWith('--')) outDir = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!outDir) throw new Error(USAGE);
  if (blocks !== undefined && !(Number.isInteger(blocks) && blocks > 1)) throw new Error('--blocks must be an integer > 1');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));
  const r = await buildAnvilChain({ outDir: resolve(outDir), scenario, blocks, keepRunning, log: (m) => console.error(m) });
  const e = JSON.parse(readFileSync(r.expectedPath, 'utf8')) as Expected;
  const s = r.stats;
  console.log(`${scenario}: ${r.blocks.length - 1} blocks after genesis, ${s.txCount} txs, head ${e.head.number} ${e.head.hash}`);
  console.log(`genesis ${e.genesisHash}`);
  console.log(`wrote ${r.genesisPath}, ${r.rlpPath}, ${r.expectedPath}`);
  console.log(
    `compile ${s.compileSeconds.toFixed(1)} s, mine ${s.mineSeconds.toFixed(1)} s (${s.blocksPerSecond.toFixed(1)} blocks/s, ${(s.txCount / s.mineSeconds).toFixed(0)} txs/s), export ${s.exportSeconds.toFixed(1)} s, total ${s.totalSeconds.toFixed(1)} s`,
  );
  console.log(`CPU while mining: node ${s.mineCpuSeconds.node.toFixed(1)} s, anvil ${s.mineCpuSeconds.anvil?.toFixed(1)} s`);
  if (verify) {
    const v = await verifyWithEthereumjs(resolve(outDir));
    console.log(
      `verified with ethereumjs: ${v.blocks} blocks, hashes and stateRoots equal anvil's (${v.seconds.toFixed(1)} s, ${(v.blocks / v.seconds).toFixed(0)} blocks/s)`,
    );
  }
  if (r.anvil) {
    console.log(`anvil keeps running at ${r.anvil.url} (Ctrl-C stops it)`);
    await new Promise(() => {});
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
