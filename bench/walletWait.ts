/**
 * A wallet's send-and-wait through tracenode against the same straight to anvil (issue 42): ethers
 * v6 `wallet.sendTransaction(...)` then `tx.wait()`, and viem `sendTransaction` then
 * `waitForTransactionReceipt`, with their default polling, against a plain anvil (its ten dev
 * accounts) that automines, then one that mines a block a second (`--block-time 1`). tracenode
 * follows that anvil (`serve --follow ws://… --from latest`). Each send is timed from the call to
 * the receipt in hand; p50 and max per library, target and mode, and tracenode ÷ anvil.
 *
 *   npx tsx bench/walletWait.ts
 */
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from '../scripts/anvil/anvilProcess.js';
import { tempDir } from '../test/helpers/chains.js';
import { startServeCli } from '../test/helpers/cli.js';

/** anvil's first dev account (its well-known test mnemonic). */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const API_KEY = 'bench-wallet';

export interface WaitRow {
  mode: 'automine' | 'block time 1 s';
  library: 'ethers v6 wait()' | 'viem waitForTransactionReceipt';
  sends: number;
  anvil: { p50: number; max: number };
  tracenode: { p50: number; max: number };
  ratio: number;
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: Math.round(sorted[Math.floor(sorted.length / 2)]), max: Math.round(sorted[sorted.length - 1]) };
};

async function timeEthers(url: string, sends: number): Promise<number[]> {
  const provider = new JsonRpcProvider(url, undefined, { staticNetwork: true });
  const wallet = new Wallet(DEV_KEY, provider);
  // Nonces counted here: ethers keeps an answer for 250 ms, and sends this quick would reuse one.
  let nonce = await provider.getTransactionCount(wallet.address, 'pending');
  const out: number[] = [];
  for (let i = 0; i < sends; i++) {
    const t0 = performance.now();
    const tx = await wallet.sendTransaction({ to: TO, value: 1n, nonce: nonce++ });
    await tx.wait();
    out.push(performance.now() - t0);
  }
  provider.destroy();
  return out;
}

async function timeViem(url: string, sends: number): Promise<number[]> {
  const account = privateKeyToAccount(DEV_KEY);
  const transport = http(url);
  const wallet = createWalletClient({ account, transport });
  const client = createPublicClient({ transport });
  const out: number[] = [];
  for (let i = 0; i < sends; i++) {
    const t0 = performance.now();
    const hash = await wallet.sendTransaction({ to: TO, value: 1n, chain: null });
    await client.waitForTransactionReceipt({ hash });
    out.push(performance.now() - t0);
  }
  return out;
}

export async function benchWalletWait(
  opts: { automineSends: number; blockTimeSends: number },
  log: (line: string) => void = () => undefined,
): Promise<WaitRow[]> {
  const rows: WaitRow[] = [];
  for (const mode of ['automine', 'block time 1 s'] as const) {
    const sends = mode === 'automine' ? opts.automineSends : opts.blockTimeSends;
    const tmp = tempDir('tracenode-bench-wallet-');
    const anvil = await startAnvil(mode === 'automine' ? [] : ['--block-time', '1']);
    const serve = await startServeCli([
      ...['--datadir', join(tmp.dir, 'data'), '--port', '0', '--api-keys', API_KEY, '--log-level', 'warn'],
      ...['--follow', anvil.url.replace('http://', 'ws://'), '--from', 'latest'],
    ]);
    try {
      const ours = `${serve.base}/v3/${API_KEY}`;
      for (const library of ['ethers v6 wait()', 'viem waitForTransactionReceipt'] as const) {
        log(`wallet waits: ${library}, ${mode}, ${sends} sends to anvil, then through tracenode…`);
        const time = library === 'ethers v6 wait()' ? timeEthers : timeViem;
        const direct = stats(await time(anvil.url, sends));
        const through = stats(await time(ours, sends));
        rows.push({ mode, library, sends, anvil: direct, tracenode: through, ratio: Math.round((through.p50 / Math.max(direct.p50, 1)) * 100) / 100 });
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await anvil.stop();
      tmp.cleanup();
    }
  }
  return rows;
}

/** The section BENCHMARKS.md gets. */
export function renderWalletWait(rows: WaitRow[], mdTable: (head: string[], rows: string[][]) => string): string {
  const table = mdTable(
    ['anvil', 'library', 'sends', 'straight to anvil: p50 / max ms', 'through tracenode: p50 / max ms', 'tracenode ÷ anvil (p50)'],
    rows.map((r) => [r.mode, r.library, String(r.sends), `${r.anvil.p50} / ${r.anvil.max}`, `${r.tracenode.p50} / ${r.tracenode.max}`, `${r.ratio}×`]),
  );
  return `### A wallet's send and wait (bench/walletWait.ts; default polling, plain anvil followed by serve --follow)\n\n${table}`;
}

if (process.argv[1]?.endsWith('walletWait.ts')) {
  const rows = await benchWalletWait({ automineSends: 50, blockTimeSends: 20 }, (line) => process.stderr.write(`${line}\n`));
  const md = (head: string[], body: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  process.stdout.write(`${renderWalletWait(rows, md)}\n`);
  process.exit(0);
}
