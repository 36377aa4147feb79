// Makes the process's services reachable from every route and hook.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export default fp(async (app: FastifyInstance, opts: { services: Services }) => {
  app.decorate('services', opts.services);
}, { name: 'services' });
