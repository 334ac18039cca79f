import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { NodeMetrics } from '../pipeline/metrics.js';

/** GET /metrics (Prometheus text) and GET /metrics/usage (today's calls per key id, JSON). */
export function registerMetricsRoutes(app: FastifyInstance, metrics: NodeMetrics): void {
  app.get('/metrics', { config: { route: 'metrics' } }, async (_req, reply) => reply.type(metrics.contentType).send(await metrics.render()));
  app.get('/metrics/usage', { config: { route: 'metrics' } }, async (_req, reply) => reply.send(metrics.usageToday()));
}

/**
 * A listener of its own for GET /metrics and /metrics/usage (`server.metricsPort`), so operators
 * can keep metrics off the public port; nothing else is served on it.
 */
export async function startMetricsServer(metrics: NodeMetrics, host: string, port: number): Promise<{ address: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/usage')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics or /metrics/usage\n');
      return;
    }
    const body = path === '/metrics' ? metrics.render() : Promise.resolve(JSON.stringify(metrics.usageToday()));
    body.then(
      (text) => res.writeHead(200, { 'content-type': path === '/metrics' ? metrics.contentType : 'application/json; charset=utf-8' }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const a = server.address() as AddressInfo;
  return {
    address: `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
