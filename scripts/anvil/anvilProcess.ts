// Owns anvil processes (scripts/lib/serviceProcess.ts: 127.0.0.1 and a free port, ready once they
// answer eth_chainId, SIGTERM then SIGKILL, killed when this process exits) and the directories
// they leave behind, removed when each stops and when this process exits.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { ANVIL_BIN } from '../lib/foundry.js';
import { type ServiceProcess, startService } from '../lib/serviceProcess.js';
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

const leftovers = new Set<string>();
let exitHookInstalled = false;

/** Directories of stopped or crashed anvils are removed when this process exits. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
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
  let service: ServiceProcess;
  try {
    service = await startService(
      'anvil',
      (port) => spawn(bin, ['--host', '127.0.0.1', '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env }),
      (url) => createAnvilClient(url, { timeoutMs: 1000 }).request({ method: 'eth_chainId' }),
      timeoutMs,
    );
  } catch (err) {
    cleanup();
    throw err;
  }
  return {
    url: service.url,
    port: service.port,
    client: createAnvilClient(service.url, { batch: true }),
    output: service.output,
    cpuSeconds: () => cpuSeconds(service.proc.pid),
    stop: async () => {
      await service.stop();
      cleanup();
    },
  };
}
