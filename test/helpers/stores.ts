// Private Redis and PostgreSQL servers for the drills that stop and restart them
// (bench/drills/, test/drills.test.ts). They run on their own ports, in temporary
// folders, never touching the shared servers on 6379 and 5432. Each can be stopped
// (kill -9, as a crash would) and started again on the same port and data.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ready` every 50 ms until it is true; throws after timeoutMs. */
async function until(what: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > end) throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
    await sleep(50);
  }
}

export interface PrivateStore {
  readonly url: string;
  readonly port: number;
  /** Stops the server abruptly (SIGKILL for Redis, immediate shutdown for PostgreSQL). */
  crash(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it answers. */
  start(): Promise<void>;
  /** Stops it and removes its folder (safe to call twice, and after a failed start). */
  destroy(): Promise<void>;
}

/**
 * A Redis on `port` with the durability docs/deployment.md asks of production (AOF, fsync
 * always, noeviction), so a restart keeps the queue as a production Redis would.
 */
export async function startPrivateRedis(port: number): Promise<PrivateStore> {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-drill-redis-'));
  let proc: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const ping = async () => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    r.on('error', () => {});
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } finally {
      r.disconnect();
    }
  };
  const store: PrivateStore = {
    url,
    port,
    async start() {
      if (await ping().catch(() => false)) throw new Error(`port ${port} already has a Redis: refusing to use a server this drill did not start`);
      proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes',
        '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--logfile', join(dir, 'redis.log')], { stdio: 'ignore' });
      killOnExit(proc);
      const failed = new Promise<never>((_, reject) => proc!.once('exit', (code) => reject(new Error(`redis-server on ${port} exited (${code}); see ${dir}/redis.log`))));
      failed.catch(() => {});
      await Promise.race([until(`Redis on ${port}`, ping, 20_000), failed]);
    },
    async crash() {
      const p = proc;
      proc = undefined;
      if (!p || p.exitCode !== null) return;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await gone;
    },
    async destroy() {
      process.off('exit', onExit);
      await store.crash();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const onExit = () => rmSync(dir, { recursive: true, force: true }); // the server itself is a child: killed on exit
  process.once('exit', onExit);
  try {
    await store.start();
  } catch (e) {
    await store.destroy();
    throw e;
  }
  return store;
}

/** The newest installed PostgreSQL's bin folder (Debian layout). */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error(`no PostgreSQL server binaries under ${base}/*/bin (apt-get install postgresql)`);
  return join(base, versions[0], 'bin');
}

/**
 * A PostgreSQL cluster on `port` in a temporary folder, run as the `postgres` user
 * (PostgreSQL refuses to run as root), trust authentication on 127.0.0.1 only.
 */
export async function startPrivatePostgres(port: number): Promise<PrivateStore> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'gridops-drill-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] as const : [join(bin, cmd), args] as const;
    const r = spawnSync(full[0], [...full[1]], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r;
  };
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const ping = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('SELECT 1');
      return true;
    } finally {
      await c.end().catch(() => {});
    }
  };
  let running = false;
  const store: PrivateStore = {
    url,
    port,
    async start() {
      if (await ping().catch(() => false)) throw new Error(`port ${port} already has a PostgreSQL: refusing to use a server this drill did not start`);
      // fsync off: the drill restarts the server, it does not pull the power.
      run('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
      running = true;
      await until(`PostgreSQL on ${port}`, ping, 30_000);
    },
    async crash() {
      if (!running) return;
      running = false;
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
    },
    async destroy() {
      try {
        await store.crash();
      } catch { /* already down */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await store.start();
  } catch (e) {
    await store.destroy();
    throw e;
  }
  // Stopped synchronously if this process exits first (pg_ctl through spawnSync).
  const onExit = () => {
    if (running) {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } catch { /* best effort */ }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const destroy = store.destroy;
  store.destroy = async () => {
    process.off('exit', onExit);
    await destroy();
  };
  return store;
}

function postgresUser(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) throw new Error('no "postgres" user to run a private PostgreSQL as (PostgreSQL refuses to run as root)');
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

// A drill that dies still stops what it started: Redis is a child (SIGKILL on exit),
// PostgreSQL is a daemon (stopped synchronously on exit, above).
const liveChildren = new Set<ChildProcess>();
let hooked = false;
function killOnExit(p: ChildProcess): void {
  liveChildren.add(p);
  p.once('exit', () => liveChildren.delete(p));
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const c of liveChildren) c.kill('SIGKILL');
  });
}
