/**
 * The benchmark's floor: a bare Fastify app that does what any JSON-RPC server over HTTP and
 * WebSocket must do — accept the connection, read the body, parse the JSON-RPC envelope (single
 * request or batch), and answer — but answers every request with a constant result.
 *
 * Same framework as tracenode: Fastify 5, `POST /v3/<key>` and WebSocket `/ws/v3/<key>`
 * (@fastify/websocket), one process, one thread. tracenode answers well-formed HTTP requests
 * before Fastify's router (src/rpc/fastPath.ts), so over HTTP it can go below this floor; `--node`
 * is the floor of that path.
 *
 *   npx tsx bench/floor.ts [--port 0] [--key bench] [--node]   # prints "floor: listening on http://127.0.0.1:<port>"
 *
 * `--node` serves the same answers from a bare node:http server (HTTP only): see buildNodeFloor.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';

/** The constant every request gets. */
export const FLOOR_RESULT = '0x1';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function answerOne(req: Json): Json {
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } };
  }
  const id = req.id === undefined ? null : req.id;
  if (req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } };
  }
  return { jsonrpc: '2.0', id, result: FLOOR_RESULT };
}

/** Parses a JSON-RPC envelope (request or batch) and answers it with constants. */
export function floorAnswer(body: string): string {
  let parsed: Json;
  try {
    parsed = JSON.parse(body) as Json;
  } catch {
    return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    return JSON.stringify(parsed.map(answerOne));
  }
  return JSON.stringify(answerOne(parsed));
}

/** Builds the floor app (not listening yet). Requests need `/v3/<key>` with one of `keys`. */
export async function buildFloor(opts: { keys?: string[] } = {}): Promise<FastifyInstance> {
  const keys = new Set(opts.keys ?? ['bench']);
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024, forceCloseConnections: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  await app.register(fastifyWebsocket, { options: { maxPayload: 5 * 1024 * 1024, perMessageDeflate: false } });
  app.post('/v3/:key', async (req, reply) => {
    if (!keys.has((req.params as { key: string }).key))
      return reply.code(401).send({ jsonrpc: '2.0', id: null, error: { code: -32002, message: 'invalid project id' } });
    return reply.type('application/json').send(floorAnswer(typeof req.body === 'string' ? req.body : ''));
  });
  app.get('/ws/v3/:key', { websocket: true }, (socket, req) => {
    if (!keys.has((req.params as { key: string }).key)) {
      socket.close(1008, 'invalid project id');
      return;
    }
    socket.on('message', (data) => {
      socket.send(floorAnswer(data.toString()));
    });
  });
  return app;
}

/**
 * The stricter floor: the same answers from Node's HTTP server with no framework at all (HTTP
 * only). tracenode answers well-formed POSTs before Fastify's router (src/rpc/fastPath.ts), so
 * this is the transport its hot path actually pays; the bench reports both floors.
 */
export function buildNodeFloor(opts: { keys?: string[] } = {}): Server {
  const keys = new Set(opts.keys ?? ['bench']);
  return createServer((req, res) => {
    const key = /^\/v3\/([^/?]+)/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || key === undefined || !keys.has(key)) {
      res.writeHead(key === undefined ? 404 : 401, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"invalid project id"}}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const out = floorAnswer(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      key: { type: 'string', default: 'bench' },
      node: { type: 'boolean', default: false },
    },
  });
  const keys = [values.key as string];
  let port: number;
  let close: () => Promise<unknown>;
  if (values.node) {
    const server = buildNodeFloor({ keys });
    await new Promise<void>((resolve) => server.listen(Number(values.port), values.host as string, resolve));
    port = (server.address() as AddressInfo).port;
    close = () => new Promise((resolve) => server.close(resolve));
  } else {
    const app = await buildFloor({ keys });
    await app.listen({ host: values.host as string, port: Number(values.port) });
    port = (app.server.address() as AddressInfo).port;
    close = () => app.close();
  }
  process.stdout.write(`floor${values.node ? ' (node:http)' : ''}: listening on http://${values.host}:${port}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`floor: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
