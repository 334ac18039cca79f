/**
 * The benchmark's floor: a bare Fastify app that does what any JSON-RPC server over HTTP and
 * WebSocket must do — accept the connection, read the body, parse the JSON-RPC envelope (single
 * request or batch), and answer — but answers every request with a constant result. Whatever
 * tracenode spends above this is the cost of its methods; nothing can go below it on this machine.
 *
 * Same transport as tracenode: Fastify 5, `POST /v3/<key>` and WebSocket `/ws/v3/<key>`
 * (@fastify/websocket), one process, one thread.
 *
 *   npx tsx bench/floor.ts [--port 0] [--key bench]   # prints "floor: listening on http://127.0.0.1:<port>"
 */
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
    if (!keys.has((req.params as { key: string }).key)) return reply.code(401).send({ jsonrpc: '2.0', id: null, error: { code: -32002, message: 'invalid project id' } });
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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, key: { type: 'string', default: 'bench' } } });
  const app = await buildFloor({ keys: [values.key as string] });
  await app.listen({ host: values.host as string, port: Number(values.port) });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : Number(values.port);
  process.stdout.write(`floor: listening on http://${values.host}:${port}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await app.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`floor: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
