// The operator console at /console/ (docs/console.md): static files of console/ and the few
// browser builds it loads (Preact + htm in one ES module, sigma.js and graphology for the network
// drawing, uPlot for time series), served by this process. Public files: the console signs in and
// calls the public API like any client; it holds no privilege of its own.
import fp from 'fastify-plugin';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ROOT } from '../../paths.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
};

/** Browser builds, by the name the console asks for (a fixed list: nothing else of node_modules is reachable). */
const VENDOR: Record<string, string> = {
  'preact-htm.js': 'htm/preact/standalone.module.js',
  'sigma.js': 'sigma/dist/sigma.min.js',
  'graphology.js': 'graphology/dist/graphology.umd.min.js',
  'uplot.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};

const FILE = /^[a-z][a-z0-9-]*\.(js|css|html)$/;
/** The console's module folders (console/views: one per route, console/components: their parts). */
const FOLDERS = new Set(['views', 'components']);

export default fp(async (app: FastifyInstance) => {
  const cache = new Map<string, Buffer>();
  const load = (path: string): Buffer => {
    let b = cache.get(path);
    if (!b) { b = readFileSync(path); cache.set(path, b); }
    return b;
  };
  const type = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
  const hide = { schema: { hide: true } };
  app.get('/console', hide, async (_req, reply) => reply.redirect('/console/'));
  app.get('/console/', hide, async (_req, reply) =>
    reply
      .type(TYPES['.html']!)
      .header('Cache-Control', 'no-cache')
      .send(load(join(ROOT, 'console', 'index.html'))),
  );
  // Names are checked against FILE (and folders against FOLDERS) before any path is built: nothing outside
  // console/ can be named.
  const sendFile = async (reply: FastifyReply, file: string, ...folder: string[]) => {
    if (!FILE.test(file)) return reply.code(404).type('text/plain').send('not found');
    try {
      return reply.type(type(file)).header('Cache-Control', 'no-cache').send(load(join(ROOT, 'console', ...folder, file)));
    } catch {
      return reply.code(404).type('text/plain').send('not found');
    }
  };
  app.get<{ Params: { file: string } }>('/console/:file', hide, async (req, reply) => sendFile(reply, req.params.file));
  app.get<{ Params: { folder: string; file: string } }>('/console/:folder/:file', hide, async (req, reply) => {
    if (!FOLDERS.has(req.params.folder)) return reply.code(404).type('text/plain').send('not found');
    return sendFile(reply, req.params.file, req.params.folder);
  });
  app.get<{ Params: { name: string } }>('/console/vendor/:name', hide, async (req, reply) => {
    const rel = VENDOR[req.params.name];
    if (!rel) return reply.code(404).type('text/plain').send('not found');
    return reply.type(type(req.params.name)).header('Cache-Control', 'public, max-age=86400').send(load(join(ROOT, 'node_modules', rel)));
  });
}, { name: 'console', dependencies: ['envelope'] });
