// Starts one gridops process for a configuration: ROLE=all|api serves HTTP
// (and, with REDIS_URL and ROLE=all, also consumes the solver queue);
// ROLE=worker only consumes the queue. Used by src/server.ts and by the tests.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { createServices, closeServices } from './bootstrap.js';
import { buildApp } from './app.js';
import { startMetricsListener } from './metrics/listener.js';

export interface Running {
  services: Services;
  app?: FastifyInstance;
  /** http(s)://host:port when listening. */
  url?: string;
  /** The METRICS_PORT listener's scrape address, when configured. */
  metricsUrl?: string;
  close(): Promise<void>;
}

export async function startGridops(config: Config, opts: { listen?: boolean; log?: Logger } = {}): Promise<Running> {
  const services = await createServices(config, opts.log);
  let metricsListener: { url: string; close(): Promise<void> } | undefined;
  if (config.metricsPort !== undefined) {
    try {
      metricsListener = await startMetricsListener(services.metrics, config.metricsPort, config.metricsHost);
    } catch (err) {
      await closeServices(services).catch(() => {});
      throw err;
    }
  }
  let worker: { close(): Promise<void> } | undefined;
  if (config.redisUrl && config.role !== 'api') {
    const { startBullWorker } = await import('./queue/bullmq.js');
    worker = await startBullWorker(services);
  }
  if (config.role === 'worker') {
    return {
      services,
      metricsUrl: metricsListener?.url,
      async close() {
        await metricsListener?.close();
        await worker?.close();
        await closeServices(services);
      },
    };
  }
  const https =
    config.tlsCertFile && config.tlsKeyFile
      ? {
          key: readFileSync(config.tlsKeyFile),
          cert: readFileSync(config.tlsCertFile),
          ...(config.tlsCaFile ? { ca: readFileSync(config.tlsCaFile), requestCert: true, rejectUnauthorized: false } : {}),
        }
      : undefined;
  let app: FastifyInstance | undefined;
  let url: string | undefined;
  try {
    app = await buildApp(services, https ? ({ https } as object) : {});
    services.tasks.start();
    if (opts.listen !== false) url = await app.listen({ port: config.port, host: config.host });
    else await app.ready();
  } catch (err) {
    // A process that cannot serve must not linger on open pools and Redis connections.
    await app?.close().catch(() => {});
    await worker?.close().catch(() => {});
    await metricsListener?.close().catch(() => {});
    await closeServices(services).catch(() => {});
    throw err;
  }
  const started = app;
  return {
    services,
    app: started,
    url,
    metricsUrl: metricsListener?.url,
    async close() {
      await metricsListener?.close();
      await started.close();
      await worker?.close();
      await closeServices(services);
    },
  };
}
