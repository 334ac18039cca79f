// Owns anvil processes: spawned on 127.0.0.1 and a free port, ready once they answer eth_chainId,
// stopped with SIGTERM (SIGKILL after 3 s), and killed with the directories they leave behind when
// this process exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { ANVIL_BIN } from '../lib/foundry.js';
import { type AnvilClient, createAnvilClient } from './anvilClient.js';

/** A running anvil. */
export interface AnvilProcess {
  url: string;
  port: number;
  /** A client of it; requests made in one tick go as one JSON-RPC batch. */
  client: AnvilClient;
  /** The last ~10 kB of its stdout and stderr. */
  output(): string;
  /** CPU seconds (user + system) it has used so far, from /proc (Linux); undefined elsewhere. */
  cpuSeconds(): number | undefined;
  /** Stops it and removes its `removeOnStop` directories. */
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  bin?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Directories deleted once it is stopped: anvil never deletes the states it persists to disk, not even on SIGINT/SIGTERM. */
  removeOnStop?: string[];
}

const running = new Set<ChildProcess>();
const leftovers = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of running) {
      try {
        p.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      srv.close(() => resolvePort(address.port));
    });
  });
}

/** CPU seconds (user + system) of a process, from /proc/<pid>/stat (proc(5): utime and stime, in USER_HZ = 100 ticks). */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Spawns anvil on 127.0.0.1 and a free port with extra CLI `args` and waits until it answers
 * eth_chainId; tries three ports before giving up. stop() kills it; so does the exit of this process.
 */
export async function startAnvil(
  args: string[] = [],
  { bin = ANVIL_BIN, timeoutMs = 20_000, env, removeOnStop = [] }: StartAnvilOptions = {},
): Promise<AnvilProcess> {
  installExitHook();
  for (const dir of removeOnStop) leftovers.add(dir);
  const cleanup = () => {
    for (const dir of removeOnStop) {
      rmSync(dir, { recursive: true, force: true });
      leftovers.delete(dir);
    }
  };
  let lastErr: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = spawn(bin, ['--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    running.add(proc);
    let log = '';
    const keep = (d: Buffer) => {
      log += d;
      if (log.length > 20_000) log = log.slice(-10_000);
    };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    let exited = false;
    const exitedPromise = new Promise<void>((r) =>
      proc.once('exit', () => {
        exited = true;
        running.delete(proc);
        r();
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    const client = createAnvilClient(url, { batch: true });
    const probe = createAnvilClient(url, { timeoutMs: 1000 });
    const stop = async () => {
      if (!exited) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
        await exitedPromise;
        clearTimeout(t);
      }
      cleanup();
    };
    const deadline = Date.now() + timeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        await probe.request({ method: 'eth_chainId' });
        return { url, port, client, output: () => log, cpuSeconds: () => cpuSeconds(proc.pid), stop };
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!exited) {
      proc.kill('SIGKILL');
      await exitedPromise;
    }
    lastErr = new Error(`anvil did not start (port ${port}): ${log.slice(-2000)}`);
  }
  cleanup();
  throw lastErr;
}
