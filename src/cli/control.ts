import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { Level } from '../db/database.js';
import { type SnapshotProgress, snapshotDatabase } from '../db/snapshot.js';

/**
 * The control socket of a served datadir: `<datadir>/control.sock`, a Unix socket (mode 0600,
 * so only the user that runs the node can use it) where `tracenode snapshot` asks the serving
 * process for a consistent copy of the database it holds open (LevelDB's lock keeps any other
 * process out). Answers are NDJSON lines: progress, then `{done, entries, bytes, seconds}` or
 * `{error}`. One snapshot at a time per datadir.
 */

export const CONTROL_SOCKET = 'control.sock';

/** Unix socket paths longer than this do not fit `sockaddr_un` on Linux. */
const MAX_SOCKET_PATH = 107;

export interface ControlLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export function controlSocketPath(datadir: string): string {
  return join(resolve(datadir), CONTROL_SOCKET);
}

/** Listens on the datadir's control socket; undefined when its path is too long for a socket. */
export async function listenControl(datadir: string, level: Level, log: ControlLog): Promise<{ close(): Promise<void> } | undefined> {
  const path = controlSocketPath(datadir);
  if (path.length > MAX_SOCKET_PATH) {
    log.warn({ path }, 'control socket path too long: `tracenode snapshot` cannot reach this datadir while it serves');
    return undefined;
  }
  // The datadir's LevelDB lock is ours: a socket file left there is a dead process's.
  if (existsSync(path)) unlinkSync(path);
  let running = false;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/snapshot') {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.on('data', (c) => {
      body += c;
      if (body.length > 64 * 1024) req.destroy();
    });
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const line = (o: object) => res.write(`${JSON.stringify(o)}\n`);
      if (running) {
        res.end(`${JSON.stringify({ error: 'a snapshot of this datadir is already running' })}\n`);
        return;
      }
      running = true;
      try {
        const out = (JSON.parse(body) as { out?: unknown }).out;
        if (typeof out !== 'string' || out === '') throw new Error('no output directory given');
        log.info({ out }, 'snapshot: started');
        const done = await snapshotDatabase(level, resolve(out), (p) => line(p));
        log.info({ out, entries: done.entries, bytes: done.bytes, seconds: round(done.seconds) }, 'snapshot: written');
        res.end(`${JSON.stringify({ done: true, ...done })}\n`);
      } catch (err) {
        log.warn({ reason: (err as Error).message }, 'snapshot: failed');
        res.end(`${JSON.stringify({ error: (err as Error).message })}\n`);
      } finally {
        running = false;
      }
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen({ path }, () => ok());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

/** Asks the process serving `datadir` for a snapshot into `out`; `onProgress` gets its progress lines. */
export function requestSnapshot(datadir: string, out: string, onProgress: (p: SnapshotProgress) => void): Promise<SnapshotProgress> {
  return new Promise((ok, fail) => {
    const req = request({ socketPath: controlSocketPath(datadir), method: 'POST', path: '/snapshot' }, (res) => {
      let buffered = '';
      let result: SnapshotProgress | undefined;
      let error: string | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          const msg = JSON.parse(buffered.slice(0, nl)) as SnapshotProgress & { done?: boolean; error?: string };
          buffered = buffered.slice(nl + 1);
          if (msg.error !== undefined) error = msg.error;
          else if (msg.done) result = { entries: msg.entries, bytes: msg.bytes, seconds: msg.seconds };
          else onProgress(msg);
          nl = buffered.indexOf('\n');
        }
      });
      res.on('end', () => (result ? ok(result) : fail(new Error(error ?? 'the serving process ended the snapshot without a result'))));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(JSON.stringify({ out: resolve(out) }));
  });
}

const round = (x: number) => Math.round(x * 10) / 10;
