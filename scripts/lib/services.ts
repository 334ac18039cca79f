import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * Redis and HAProxy from Debian's packages, started on 127.0.0.1 at ports chosen at run time, for
 * the tests and the bench of several replicas (test/scale, bench/replicas.ts).
 */

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Waits until `text()` satisfies `ok`, polling every 25 ms; throws with the output past `timeoutMs`. */
async function waitFor(what: string, text: () => string, ok: (t: string) => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!ok(text())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not ready after ${timeoutMs} ms: ${text().slice(-500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A Redis without persistence; `stop()` and `start()` again keep the port. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts redis-server; with `password`, clients must authenticate (the URL carries it). Its port
 * is one found free just before (redis-server takes no port 0): if another process took it in
 * between, Redis exits at once and another port is tried, three in all.
 */
export async function startRedis(password?: string): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOn(await freePort(), password);
    } catch (err) {
      if (attempt === 3 || !String(err).includes('Address already in use')) throw err;
    }
  }
}

async function startRedisOn(port: number, password: string | undefined): Promise<RedisProcess> {
  let child: ChildProcess | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    ...(password === undefined ? [] : ['--requirepass', password]),
  ];
  const redis: RedisProcess = {
    port,
    url: password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${password}@127.0.0.1:${port}`,
    async start() {
      const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      let out = '';
      c.stdout?.on('data', (d) => {
        out += d;
      });
      c.stderr?.on('data', (d) => {
        out += d;
      });
      // A missing program (ENOENT) is an error event: say so instead of crashing the process.
      c.on('error', (err) => {
        out += `cannot start redis-server: ${err.message}`;
      });
      let exited = false;
      c.once('exit', () => {
        exited = true;
      });
      // Ready, or gone (a port taken meanwhile: "Address already in use"), whichever comes first.
      await waitFor(
        'redis-server',
        () => out,
        (o) => o.includes('Ready to accept connections') || exited,
        10_000,
      );
      if (exited) throw new Error(`redis-server exited: ${out.slice(-500)}`);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null || c.pid === undefined) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

/** HAProxy running `config` with `env` (the variables the file reads). */
export interface HaproxyProcess {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function startHaproxy(haproxy: string, config: string, env: Record<string, string>): HaproxyProcess {
  const child = spawn(haproxy, ['-db', '-f', config], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  // A missing program (ENOENT) is an error event: kept in the output instead of crashing the process.
  child.on('error', (err) => (out += `cannot start ${haproxy}: ${err.message}`));
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * HAProxy running `config` with `env`, listening (its LISTEN variable) on a port found free just
 * before: HAProxy takes no port 0. If another process took the port in between, HAProxy exits at
 * once unable to bind, and another port is tried, three in all. Resolves once `ready(url)` says
 * the balancer answers (`url`: http://127.0.0.1:<port>), or throws with HAProxy's output past
 * `timeoutMs`.
 */
export async function startHaproxyListening(
  haproxy: string,
  config: string,
  env: Record<string, string>,
  ready: (url: string) => Promise<boolean>,
  timeoutMs = 15_000,
): Promise<{ haproxy: HaproxyProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = startHaproxy(haproxy, config, { ...env, LISTEN: `127.0.0.1:${port}` });
    const t0 = Date.now();
    for (;;) {
      if (await ready(url).catch(() => false)) return { haproxy: proc, url };
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) break;
      if (Date.now() - t0 > timeoutMs) {
        await proc.stop();
        throw new Error(`haproxy did not answer within ${timeoutMs} ms: ${proc.output().slice(-500)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (attempt === 3 || !/cannot bind|Address already in use/i.test(proc.output())) {
      throw new Error(`haproxy exited: ${proc.output().slice(-500)}`);
    }
  }
}
