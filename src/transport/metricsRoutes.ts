import type { FastifyInstance } from 'fastify';
import type { NodeMetrics } from '../pipeline/metrics.js';

/** GET /metrics (Prometheus text) and GET /metrics/usage (today's calls per key id, JSON). */
export function registerMetricsRoutes(app: FastifyInstance, metrics: NodeMetrics): void {
  app.get('/metrics', { config: { route: 'metrics' } }, async (_req, reply) => reply.type(metrics.contentType).send(await metrics.render()));
  app.get('/metrics/usage', { config: { route: 'metrics' } }, async (_req, reply) => reply.send(metrics.usageToday()));
}
