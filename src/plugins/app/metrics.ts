// Prometheus metrics on the API listener: every response is timed into
// http_request_duration_seconds (by method, the route's pattern and status: an
// unknown URL counts as route "unmatched", so scanning cannot grow the series), and
// GET /metrics answers the text format to callers with the admin permission. The
// separate METRICS_PORT listener (src/metrics/listener.ts) serves the same without
// credentials, for a scraper on a private network (docs/observability.md).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export default fp(async (app: FastifyInstance) => {
  const s = app.services;
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    s.metrics.httpDuration.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { config: { permission: 'admin', audit: false }, schema: { hide: true } }, async (_req, reply) => {
    const text = await s.metrics.registry.metrics();
    return reply.type(s.metrics.registry.contentType).send(text);
  });
}, { name: 'metrics', dependencies: ['services'] });
