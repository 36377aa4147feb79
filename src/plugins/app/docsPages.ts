// Documents the service serves itself, so that what its answers point to exists:
//   /docs/errors        every error code with cause and fix (every REST error's doc_url)
//   /docs/load-testing  docs/load-testing.md (the 429 message points there)
//   /docs/clients       docs/clients.md (a client in a few lines)
// The markdown pages are served as text (readable in a browser and with curl).
import fp from 'fastify-plugin';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ERRORS_PAGE, errorsPageHtml } from '../../lib/errorCatalog.js';
import { ROOT } from '../../paths.js';

const PAGES: Record<string, string> = { '/docs/load-testing': 'load-testing.md', '/docs/clients': 'clients.md' };

export default fp(async (app: FastifyInstance) => {
  const html = errorsPageHtml();
  app.get(ERRORS_PAGE, { schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(html),
  );
  for (const [path, file] of Object.entries(PAGES)) {
    app.get(path, { schema: { hide: true } }, async (_req, reply) => {
      // Read on request: small, rare, and the file may be updated without a restart.
      const text = readFileSync(join(ROOT, 'docs', file), 'utf8');
      return reply.type('text/plain; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(text);
    });
  }
}, { name: 'docs-pages', dependencies: ['envelope'] });
