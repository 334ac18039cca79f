// Owns the Solidity compilation of both chain generators: solc-js (the `solc` devDependency, run
// offline) on .sol files of one folder, with the imports among them resolved, and a cache of the
// compiler's output in the OS temp dir keyed by the compiler version and the whole input.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';

/** One compiled contract. */
export interface Artifact {
  abi: Abi;
  /** Creation code. */
  bytecode: Hex;
  /** Runtime code. */
  deployedBytecode: Hex;
}

/** The compiler settings a generator chooses; the output selection is always abi + both bytecodes. */
export interface SolcSettings {
  evmVersion: string;
  optimizer: { enabled: boolean; runs: number };
  metadata: { bytecodeHash: 'none'; appendCBOR?: boolean };
}

/** What compileSolidity returns: the compiler's long version and the contracts by `File.sol:Name`. */
export interface CompiledSources {
  solcVersion: string;
  artifacts: Record<string, Artifact>;
}

/** The parts of solc's standard-JSON output read here (https://docs.soliditylang.org/en/latest/using-the-compiler.html#output-description). */
interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

interface CacheEntry {
  solcVersion: string;
  output: SolcOutput;
}

const OUTPUT_SELECTION = { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } };

/** The files of `dir` to compile: `files` and, transitively, the files they import as "./Name.sol". */
function readSources(dir: string, files: string[]): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {};
  const queue = [...files];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (sources[file]) continue;
    const content = readFileSync(join(dir, file), 'utf8');
    sources[file] = { content };
    for (const m of content.matchAll(/import\s+[^"']*["']\.\/([^"']+)["']/g)) if (!sources[m[1]]) queue.push(m[1]);
  }
  return Object.fromEntries(Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function readCache(file: string): CacheEntry | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CacheEntry;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, entry: CacheEntry): void {
  try {
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, file);
  } catch {
    // no cache: the next run compiles again
  }
}

/**
 * Compiles `files` of `dir` (and what they import) with solc-js and `settings`. The cache key holds
 * the solc package version, so a cache hit does not even load the compiler.
 */
export async function compileSolidity(dir: string, files: string[], settings: SolcSettings): Promise<CompiledSources> {
  const input = JSON.stringify({ language: 'Solidity', sources: readSources(dir, files), settings: { ...settings, outputSelection: OUTPUT_SELECTION } });
  const solcPackage = JSON.parse(readFileSync(join(import.meta.dirname, '../../node_modules/solc/package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256').update(solcPackage.version).update(input).digest('hex').slice(0, 24);
  const cacheFile = join(tmpdir(), `tracenode-solc-${key}.json`);
  let entry = readCache(cacheFile);
  if (!entry) {
    const { default: solc } = await import('solc');
    const text: string = solc.compile(input);
    const output = JSON.parse(text) as SolcOutput;
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) throw new Error(`solc (${settings.evmVersion}):\n${errors.map((e) => e.formattedMessage).join('\n')}`);
    const solcVersion: string = solc.version();
    entry = { solcVersion, output };
    writeCache(cacheFile, entry);
  }
  const artifacts: Record<string, Artifact> = {};
  for (const [file, contracts] of Object.entries(entry.output.contracts)) {
    for (const [name, c] of Object.entries(contracts)) {
      artifacts[`${file}:${name}`] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
    }
  }
  return { solcVersion: entry.solcVersion, artifacts };
}
