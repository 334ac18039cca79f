/**
 * Real public blocks (fixtures/real-blocks/) executed by tracenode's importer parts
 * (test/helpers/realExecution.ts), as an archive from block N executes a followed block: from its
 * execution witness (one upstream call: the witness's bytes fetched, its nodes checked and stored),
 * and from proofs alone (one eth_getProof or eth_getCode a key read). Per network: blocks, Mgas,
 * CPU seconds of this process, Mgas per CPU second, upstream calls and bytes fetched per block; and
 * what following mainnet live leaves of this machine: a mainnet block's share of its 12-second slot.
 * Blocks a source cannot run (see test/follow/realBlocks.test.ts) are left out of that source's row.
 *
 *   npx tsx bench/realBlocks.ts
 */
import { loadRealBlocks, type RealBlock } from '../test/helpers/realBlocks.js';
import { executeRealBlock, mismatches, witnessAnswer } from '../test/helpers/realExecution.js';

export interface RealBlocksRow {
  network: string;
  source: 'witness' | 'proofs';
  blocks: number;
  mgas: number;
  cpuSeconds: number;
  wallSeconds: number;
  mgasPerCpuSecond: number;
  callsPerBlock: number;
  bytesPerBlock: number;
  /** Blocks the source could not run, with why (first words). */
  skipped: string[];
}

export interface RealBlocksReport {
  rows: RealBlocksRow[];
  /** Mainnet: mean gas of the real blocks, and the CPU one takes at the witness row's rate. */
  mainnet?: { meanMgas: number; cpuSecondsPerBlock: number; slotShare: number };
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** The bytes of an answer as JSON. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

async function measure(blocks: RealBlock[], network: string, source: 'witness' | 'proofs'): Promise<RealBlocksRow> {
  const row: RealBlocksRow = {
    network,
    source,
    blocks: 0,
    mgas: 0,
    cpuSeconds: 0,
    wallSeconds: 0,
    mgasPerCpuSecond: 0,
    callsPerBlock: 0,
    bytesPerBlock: 0,
    skipped: [],
  };
  let calls = 0;
  let bytes = 0;
  for (const rb of blocks) {
    const cpu0 = cpuSeconds();
    const t0 = performance.now();
    try {
      const { block, result, stats } = await executeRealBlock(rb, source === 'witness' ? 'witness-reth' : 'proofs');
      const wrong = mismatches(block, result);
      if (wrong.length > 0) throw new Error(`roots not reproduced: ${wrong.join('; ')}`);
      row.cpuSeconds += cpuSeconds() - cpu0;
      row.wallSeconds += (performance.now() - t0) / 1000;
      row.blocks++;
      row.mgas += Number(block.header.gasUsed) / 1e6;
      if (source === 'witness') {
        calls += 1;
        bytes += jsonBytes(witnessAnswer(rb, 'reth'));
      } else {
        calls += stats.proofs + stats.codes;
        bytes += stats.bytes;
      }
    } catch (err) {
      row.skipped.push(`${rb.json.number}: ${whyNot((err as Error).message)}`);
    }
  }
  row.mgasPerCpuSecond = row.cpuSeconds > 0 ? row.mgas / row.cpuSeconds : 0;
  row.callsPerBlock = row.blocks > 0 ? calls / row.blocks : 0;
  row.bytesPerBlock = row.blocks > 0 ? bytes / row.blocks : 0;
  return row;
}

/** A failure in a few words. */
function whyNot(message: string): string {
  const deep = /lies (\d+) nibbles deep, beyond the search/.exec(message);
  if (deep) return `a collapsed branch's sibling ${deep[1]} nibbles deep, beyond the key search`;
  if (message.includes('the sibling a deletion')) return "a collapsed branch's sibling the source does not hold";
  return message.slice(0, 80);
}

export async function benchRealBlocks(log: (line: string) => void = () => undefined): Promise<RealBlocksReport> {
  const all = await loadRealBlocks();
  const networks = [...new Set(all.map((b) => b.json.network))];
  const rows: RealBlocksRow[] = [];
  for (const source of ['witness', 'proofs'] as const) {
    for (const network of networks) {
      log(`real blocks: ${network} from ${source === 'witness' ? 'execution witnesses' : 'proofs alone'}…`);
      rows.push(
        await measure(
          all.filter((b) => b.json.network === network),
          network,
          source,
        ),
      );
    }
  }
  const mainnetBlocks = all.filter((b) => b.json.network === 'mainnet');
  const witness = rows.find((r) => r.network === 'mainnet' && r.source === 'witness');
  let mainnet: RealBlocksReport['mainnet'];
  if (witness && witness.mgasPerCpuSecond > 0 && mainnetBlocks.length > 0) {
    const meanMgas = mainnetBlocks.reduce((n, b) => n + Number(b.block.header.gasUsed), 0) / mainnetBlocks.length / 1e6;
    const cpuSecondsPerBlock = meanMgas / witness.mgasPerCpuSecond;
    mainnet = { meanMgas, cpuSecondsPerBlock, slotShare: cpuSecondsPerBlock / 12 };
  }
  return { rows, ...(mainnet ? { mainnet } : {}) };
}

/** The section BENCHMARKS.md gets. */
export function renderRealBlocks(rep: RealBlocksReport, mdTable: (head: string[], rows: string[][]) => string): string {
  const rows = rep.rows.map((r) => [
    r.network,
    r.source === 'witness' ? 'execution witness (reth shape)' : 'proofs alone',
    String(r.blocks),
    r.mgas.toFixed(1),
    r.cpuSeconds.toFixed(2),
    r.mgasPerCpuSecond.toFixed(2),
    r.callsPerBlock.toFixed(1),
    Math.round(r.bytesPerBlock).toLocaleString('en-US'),
    r.skipped.length === 0 ? '–' : r.skipped.join('; '),
  ]);
  const table = mdTable(
    ['network', 'state from', 'blocks', 'Mgas', 'CPU s', 'Mgas per CPU s', 'upstream calls a block', 'bytes fetched a block', 'not run (why)'],
    rows,
  );
  const m = rep.mainnet;
  const rate = m === undefined ? 0 : m.meanMgas / m.cpuSecondsPerBlock;
  const share = (mgas: number) => `${((mgas / rate / 12) * 100).toFixed(0)} %`;
  const headroom = m
    ? `\n\nFollowing mainnet live, at the mainnet witness row's ${rate.toFixed(2)} Mgas per CPU second: the real blocks here (${m.meanMgas.toFixed(1)} Mgas on average) take ${m.cpuSecondsPerBlock.toFixed(2)} CPU seconds each, ${(m.slotShare * 100).toFixed(0)} % of a 12-second slot on one core; a block of 30 Mgas ${share(30)}, of 45 Mgas ${share(45)}. Serving requests and the upstream's own work share the rest of the machine.`
    : '';
  return `### Real public blocks (bench/realBlocks.ts, fixtures/real-blocks)\n\n${table}${headroom}`;
}

// Run alone: `npx tsx bench/realBlocks.ts`.
if (process.argv[1]?.endsWith('realBlocks.ts')) {
  const rep = await benchRealBlocks((line) => process.stderr.write(`${line}\n`));
  const md = (head: string[], rows: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  process.stdout.write(`${renderRealBlocks(rep, md)}\n`);
  process.exit(0);
}
