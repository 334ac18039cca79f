// Owns the demo chain generator's command line: builds the tracenode demo chain (scripts/demo/) and
// writes fixtures/demo/{genesis.json,chain.rlp,README.md}.
//
//   npx tsx scripts/genDemo.ts [outDir]        (default: fixtures/demo)
//
// Deterministic: fixed keys (keccak256 of fixed strings), fixed timestamps, fixed extraData, no
// randomness, no wall clock. Rerunning reproduces the three files byte for byte.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex } from 'viem';
import { buildDemoChain } from './demo/buildDemoChain.js';
import { renderDemoReadme } from './demo/renderDemoReadme.js';
import { writeChainFiles } from './lib/genesis.js';

export { buildDemoChain } from './demo/buildDemoChain.js';
export { renderDemoReadme } from './demo/renderDemoReadme.js';

/** Builds the demo chain and writes genesis.json, chain.rlp and README.md into `outDir`. */
export async function generateDemo(outDir: string): Promise<void> {
  const chain = await buildDemoChain();
  writeChainFiles(
    outDir,
    chain.genesis,
    chain.blocks.slice(1).map((b) => b.serialize()),
  );
  writeFileSync(join(outDir, 'README.md'), renderDemoReadme(chain));
  const head = chain.blocks[chain.blocks.length - 1];
  console.log(
    `genDemo: ${chain.blocks.length - 1} blocks, ${chain.txInfo.length} txs, head ${head.header.number} ${bytesToHex(head.hash())}, genesis ${bytesToHex(chain.blocks[0].hash())} → ${outDir}`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'fixtures', 'demo'));
  generateDemo(outDir).catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
}
