// Owns the demo chain's contracts: scripts/demo/*.sol compiled with solc-js (optimizer off), each
// for the fork it first runs under, and the addresses they get on the chain.
import type { Address } from 'viem';
import { type Artifact, compileSolidity, type SolcSettings } from '../lib/solc.js';

/** The demo's contracts by name (StateBox, DemoToken, Logic, Thrower, Caller, Child, Factory, Probe, BlobProbe). */
export type DemoContracts = Record<string, Artifact>;

/** Where the contracts are: StateBox and BeaconRoots from genesis, the others once the plan deploys them. */
export type DemoAddresses = Record<string, Address>;

function settings(evmVersion: string): SolcSettings {
  // Optimizer off: the optimizing compile takes ~9 s more in solc-js, which a run without the
  // compiler cache pays; the demo does not need optimized bytecode.
  return { evmVersion, optimizer: { enabled: false, runs: 200 }, metadata: { bytecodeHash: 'none' } };
}

/**
 * Compiles the demo contracts. StateBox runs from block 1 under Byzantium rules (no SHL/SHR/PUSH0),
 * so it is compiled for byzantium; the other contracts are deployed from the London block on
 * (london), BlobProbe after Cancun (cancun).
 */
export async function compileDemoContracts(): Promise<{ contracts: DemoContracts; solcVersion: string }> {
  const dir = import.meta.dirname;
  const groups = await Promise.all([
    compileSolidity(dir, ['StateBox.sol'], settings('byzantium')),
    compileSolidity(dir, ['DemoToken.sol', 'Calls.sol', 'Factory.sol', 'Probe.sol'], settings('london')),
    compileSolidity(dir, ['BlobProbe.sol'], settings('cancun')),
  ]);
  const contracts: DemoContracts = {};
  for (const g of groups) for (const [key, artifact] of Object.entries(g.artifacts)) contracts[key.slice(key.indexOf(':') + 1)] = artifact;
  return { contracts, solcVersion: groups[0].solcVersion };
}
