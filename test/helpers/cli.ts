import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { paced, within } from './until.js';

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
  /** Resolves as soon as its output contains `text` (checked as each chunk arrives); rejects if it exits first. */
  saying(text: string): Promise<void>;
  /** Resolves with its exit code when it exits. */
  exited: Promise<number | null>;
}

/** Spawns `tracenode serve <args>` (add `--port 0`) and waits until it prints its JSON-RPC URL. */
export async function startServeCli(args: string[], timeoutMs = 60_000): Promise<ServeCli> {
  const child = spawnCli(['serve', ...args]);
  let out = '';
  const watchers = new Set<{ text: string; done: () => void }>();
  const take = (d: Buffer) => {
    out += d;
    for (const w of watchers) if (out.includes(w.text)) w.done();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  const saying = (text: string) =>
    out.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const w = {
            text,
            done: () => {
              watchers.delete(w);
              resolve();
            },
          };
          watchers.add(w);
          void exited.then(() =>
            watchers.delete(w) ? reject(new Error(`serve exited without saying ${JSON.stringify(text)}: ${out.slice(-800)}`)) : undefined,
          );
        });
  try {
    // The end of the JSON-RPC line (the WebSocket line, after it, reads `/ws/v3/<API_KEY>`).
    await within('serve listening', saying('/v3/<API_KEY>'), timeoutMs);
  } catch {
    child.kill('SIGKILL');
    throw new Error(`serve did not start: ${out.slice(-2000)}`);
  }
  const m = /JSON-RPC\s+(http:\/\/\S+)\/v3\//.exec(out);
  if (!m) {
    child.kill('SIGKILL');
    throw new Error(`serve did not say its URL: ${out.slice(-2000)}`);
  }
  return { child, base: m[1], output: () => out, saying, exited };
}

/**
 * Runs `tracenode <args>` and SIGKILLs it `afterMs` after its output first contains `marker` (or
 * when it exits without saying it, or after 30 s); resolves once it is gone.
 */
export async function killAfter(args: string[], marker: string, afterMs: number): Promise<void> {
  const child = spawnCli(args);
  const closed = new Promise((r) => child.once('close', r));
  let out = '';
  let said!: () => void;
  const saidIt = new Promise<void>((resolve) => (said = resolve));
  const take = (d: Buffer) => {
    out += d;
    if (out.includes(marker)) said();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  await within(`tracenode saying ${JSON.stringify(marker)}`, Promise.race([saidIt, closed]), 30_000).catch(() => undefined);
  await paced(afterMs); // when the crash lands
  child.kill('SIGKILL');
  await closed;
}
