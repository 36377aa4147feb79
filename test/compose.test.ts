// docker-compose.yml and the Dockerfile, checked statically: this machine has no container
// engine, so what `docker compose up --scale worker=4` relies on is checked in the files.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../src/paths.js';

type Service = {
  image?: string; build?: unknown; command?: string[]; container_name?: string; ports?: string[];
  environment?: Record<string, string>; healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }>;
};

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const { services } = compose;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, Redis, the API and a worker, each with a health check', () => {
    assert.deepEqual(Object.keys(services).sort(), ['api', 'postgres', 'redis', 'worker']);
    for (const [name, s] of Object.entries(services)) assert.ok(s.healthcheck?.test?.length, `${name} has a health check`);
  });

  it('lets the worker scale: no fixed name, no host port, the same database and queue as the API', () => {
    const w = services.worker!, api = services.api!;
    assert.equal(w.container_name, undefined);
    assert.equal(w.ports, undefined);
    assert.equal(w.environment?.ROLE, 'worker');
    assert.equal(api.environment?.ROLE, 'api');
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'GRIDOPS_REDIS_PREFIX']) {
      assert.ok(w.environment?.[k], `worker sets ${k}`);
      assert.equal(w.environment?.[k], api.environment?.[k], `${k} shared by API and workers`);
    }
    assert.ok(api.image);
    assert.equal(w.image, api.image, 'one image for every role');
  });

  it('starts the gridops services after healthy stores, workers after the API (it migrates)', () => {
    for (const name of ['api', 'worker']) {
      for (const dep of ['postgres', 'redis']) assert.equal(services[name]!.depends_on?.[dep]?.condition, 'service_healthy', `${name} waits for ${dep}`);
    }
    assert.equal(services.worker!.depends_on?.api?.condition, 'service_healthy');
  });

  it('keeps queued jobs: Redis never evicts keys and appends to its log', () => {
    const cmd = services.redis!.command!.join(' ');
    assert.match(cmd, /--maxmemory-policy noeviction/);
    assert.match(cmd, /--appendonly yes/);
  });

  it('requires an administrator password instead of starting with a default one', () => {
    assert.match(String(services.api!.environment?.ADMIN_PASSWORD), /^\$\{ADMIN_PASSWORD:\?/);
  });
});

describe('Dockerfile', () => {
  it('copies every directory the TypeScript build compiles', () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const dirs = new Set(tsconfig.include.map((g) => g.split('/')[0]!));
    for (const d of [...dirs, 'assembly']) assert.match(dockerfile, new RegExp(`^COPY ${d} \\./${d}$`, 'm'), `the build stage copies ${d}/`);
    assert.match(dockerfile, /^COPY tsconfig\.json asconfig\.json \.\/$/m);
  });

  it('runs node itself (SIGTERM reaches gridops) as an unprivileged user', () => {
    // node itself (not npm), with --expose-gc for the idle collection (src/lib/idleCollect.ts)
    assert.match(dockerfile, /^CMD \["node", "--expose-gc", "dist\/src\/server\.js"\]$/m);
    assert.match(dockerfile, /^USER node$/m);
    assert.match(dockerfile, /npm ci --omit=dev/);
  });
});
