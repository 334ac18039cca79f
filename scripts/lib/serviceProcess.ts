// A local service a test or script starts (anvil, a Hardhat node): spawned on 127.0.0.1 and a free
// port, ready once it answers, its last output kept for the error that says why it did not start,
// stopped with SIGTERM (SIGKILL after 3 s), and killed when this process exits.
import type { ChildProcess } from 'node:child_process';
import { freePort } from './services.js';

/** A started service. */
export interface ServiceProcess {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  proc: ChildProcess;
  /** The last ~10 kB of its stdout and stderr. */
  output(): string;
  /** Stops it (SIGTERM, SIGKILL after 3 s); resolves once it has exited. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
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
  });
}

/**
 * Starts a service: `spawnAt(port)` spawns it on that port, `ready(url)` resolves once it answers
 * (polled every 50 ms until `timeoutMs`). Three free ports are tried before giving up with an error
 * that names `what` and ends with its last output.
 */
export async function startService(
  what: string,
  spawnAt: (port: number) => ChildProcess,
  ready: (url: string) => Promise<unknown>,
  timeoutMs: number,
): Promise<ServiceProcess> {
  installExitHook();
  let lastErr: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const proc = spawnAt(port);
    running.add(proc);
    let log = '';
    const keep = (d: Buffer) => {
      log += d;
      if (log.length > 20_000) log = log.slice(-10_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let exited = false;
    const exitedPromise = new Promise<void>((r) =>
      proc.once('exit', () => {
        exited = true;
        running.delete(proc);
        r();
      }),
    );
    const stop = async () => {
      if (exited) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exitedPromise;
      clearTimeout(t);
    };
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        await ready(url);
        return { port, url, proc, output: () => log, stop };
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await stop();
    lastErr = new Error(`${what} did not start (port ${port}): ${log.slice(-2000)}`);
  }
  throw lastErr;
}
