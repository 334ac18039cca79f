import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { describe } from 'vitest';
import { describeWithProgram, onPath } from './programs.js';
import { until } from './until.js';

/**
 * A real Redis (Debian's redis-server) on 127.0.0.1 at a port chosen at run time, without
 * persistence, for the tests of the shared limits. `stop()` and `start()` again keep the port, so
 * a test can take Redis away and bring it back.
 */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function describeWithRedis(who: string): typeof describe {
  return describeWithProgram(onPath('redis-server'), 'redis-server', who);
}

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

/** Starts Redis; with `password`, clients must authenticate (the URL carries it). */
export async function startRedis(password?: string): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: TestRedis = {
    port,
    url: password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${password}@127.0.0.1:${port}`,
    async start() {
      const c = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(password === undefined ? [] : ['--requirepass', password])],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = c;
      let out = '';
      c.stdout?.on('data', (d) => {
        out += d;
      });
      await until(
        'redis-server ready',
        async () => out,
        (o) => o.includes('Ready to accept connections'),
        10_000,
        () => out.slice(-500),
      );
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}
