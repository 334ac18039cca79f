import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** Spawns the CLI from source (through tsx, no build needed), as a user runs `tracenode …`. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'src/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  return { code, stdout, stderr };
}

/** A `tracenode serve` started by {@link startServeCli}, once it listens. */
export interface ServeCli {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` of the JSON-RPC listener. */
  base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with its exit code when it exits. */
  exited: Promise<number | null>;
}

/** Spawns `tracenode serve <args>` (add `--port 0`) and waits until it prints its JSON-RPC URL. */
export async function startServeCli(args: string[], timeoutMs = 60_000): Promise<ServeCli> {
  const child = spawnCli(['serve', ...args]);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  const t0 = Date.now();
  for (;;) {
    const m = /JSON-RPC\s+(http:\/\/\S+)\/v3\//.exec(out);
    if (m) return { child, base: m[1], output: () => out, exited };
    if (child.exitCode !== null || Date.now() - t0 > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start: ${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs `tracenode <args>` and SIGKILLs it `afterMs` after its output first contains `marker` (or
 * when it exits without saying it, or after 30 s); resolves once it is gone.
 */
export async function killAfter(args: string[], marker: string, afterMs: number): Promise<void> {
  const child = spawnCli(args);
  const closed = new Promise((r) => child.once('close', r));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const t0 = Date.now();
  while (!out.includes(marker) && child.exitCode === null && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, afterMs));
  child.kill('SIGKILL');
  await closed;
}
