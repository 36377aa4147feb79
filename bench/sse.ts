// SSE fan-out benchmark: N connected SSE clients (default 1,000) each receiving
// every event; delivery latency = client receive time - publication time (the
// moment the stored event is handed to the event bus). Target: p99 < 100 ms on a
// 2-core machine.
//
//   npm run build && node dist/bench/sse.js                  # embedded and distributed, table on stdout
//   node dist/bench/sse.js --mode embedded --clients 1000 --events 30 --json
//
// The server runs in this process (gridops with its real security: 100 users x 2
// tokens x 5 streams, the tenant's sse_connections quota raised by the admin
// endpoint, connection-establishment rate limits off as for every benchmark); the
// clients run in a forked child process (raw node:http readers), so server and
// clients each get a core. Clocks: performance.timeOrigin + performance.now() in both.
import { fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Running } from '../src/runtime.js';
// The server side (pg, Redis, the whole service) is imported in the driver only, so the
// client process starts in milliseconds.
const server = () => Promise.all([import('pg'), import('ioredis'), import('pino'), import('../src/config.js'), import('../src/runtime.js'), import('../src/domain/eventLog.js')]);

const now = () => performance.timeOrigin + performance.now();
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);

// ------------------------------------------------------------------ client process

interface ClientJob { url: string; tokens: string[]; perToken: number }
type FromClient =
  | { kind: 'hello' }
  | { kind: 'ready'; connected: number; failed: number; connectMs: number }
  | { kind: 'result'; received: Record<string, number[]> };

async function clientMain(): Promise<void> {
  // Listen first, then say so: a message sent before a listener exists would be lost.
  const jobP = new Promise<ClientJob>((r) => process.once('message', (m) => r(m as ClientJob)));
  process.send!({ kind: 'hello' } satisfies FromClient);
  const job = await jobP;
  // Raw TCP clients (a hand-written GET, then a scan of the chunked body for "id: evt_…"):
  // the least client-side work per delivery, so the numbers are mostly the server's.
  const { hostname, port, pathname } = new URL(job.url + '/api/v1/events/stream');
  const received: Record<string, number[]> = {};
  const sockets: net.Socket[] = [];
  let connected = 0;
  let failed = 0;
  const t0 = now();
  const total = job.tokens.length * job.perToken;
  const marker = Buffer.from('\nid: evt_');
  await new Promise<void>((done) => {
    const settle = () => {
      if (connected + failed === total) done();
    };
    const giveUp = setTimeout(done, 120_000);
    giveUp.unref();
    for (const token of job.tokens) {
      for (let k = 0; k < job.perToken; k++) {
        const sock = net.connect({ host: hostname, port: Number(port) });
        sockets.push(sock);
        let state: 'head' | 'open' | 'live' = 'head';
        sock.on('connect', () => {
          sock.setNoDelay(true);
          sock.write(`GET ${pathname}?topics=system HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
        });
        sock.on('data', (buf: Buffer) => {
          const t = now();
          if (state !== 'live') {
            if (state === 'head') {
              if (!buf.subarray(0, 12).toString().startsWith('HTTP/1.1 200')) {
                failed++;
                settle();
                sock.destroy();
                return;
              }
              state = 'open';
            }
            if (buf.includes('system.connected')) {
              state = 'live';
              connected++;
              settle();
            }
            return;
          }
          let at = buf.indexOf(marker);
          while (at >= 0) {
            const id = buf.toString('latin1', at + 5, at + 25);
            (received[id] ??= []).push(t);
            at = buf.indexOf(marker, at + 25);
          }
        });
        sock.on('error', () => {
          if (state === 'head') {
            failed++;
            settle();
          }
        });
      }
    }
  });
  process.send!({ kind: 'ready', connected, failed, connectMs: now() - t0 } satisfies FromClient);
  await new Promise<void>((r) => process.once('message', () => r()));
  process.send!({ kind: 'result', received } satisfies FromClient);
  for (const s of sockets) s.destroy();
  // The driver kills this process once it has the result (exiting here could overtake the
  // delivery of the large result message).
}

// ------------------------------------------------------------------ server / driver

async function api(url: string, method: string, path: string, body: unknown, token?: string): Promise<any> {
  const r = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text).data;
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

interface Row {
  mode: string;
  bus: string;
  clients: number;
  events: number;
  deliveries: number;
  missing: number;
  connect_s: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
}

async function runMode(mode: 'embedded' | 'distributed', clients: number, events: number, spacingMs: number): Promise<Row> {
  const [{ default: pg }, { Redis }, { default: pino }, { loadConfig }, { startGridops }, { eventWire, insertEvent }] = await server();
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const prefix = `bsse_${randomBytes(4).toString('hex')}`;
  const env = { NODE_ENV: 'development', LOG_LEVEL: 'warn', RATE_LIMITS: 'off', WORKERS: '1', ADMIN_PASSWORD: 'admin' };
  const base = loadConfig(env);
  const config = mode === 'embedded'
    ? { ...base, port: 0, dataDir: ':memory:' }
    : { ...base, port: 0, databaseUrl: PG_URL, redisUrl: REDIS_URL, dbSchema: schema, redisPrefix: prefix };
  const gridops: Running = await startGridops(config, { listen: true, log: pino({ level: 'warn' }) });
  const url = gridops.url!;
  let child: ChildProcess | undefined;
  try {
    const admin = (await api(url, 'POST', '/api/v1/auth/token', { username: 'admin', password: 'admin' })).token as string;
    await api(url, 'PUT', '/api/v1/admin/tenants/default/quota', { sse_connections: clients + 100, reason: 'SSE fan-out benchmark' }, admin);
    // SPEC limits: 5 streams per token, 10 per user -> 2 tokens per user.
    const perToken = Math.min(5, clients);
    const tokenCount = Math.ceil(clients / perToken);
    const tokens: string[] = [];
    for (let u = 0; tokens.length < tokenCount; u++) {
      const username = `bench-${u}`;
      await api(url, 'POST', '/api/v1/admin/users', { username, password: 'bench-password-1', tenant_id: 'default', role: 'viewer' }, admin);
      for (let k = 0; k < 2 && tokens.length < tokenCount; k++) tokens.push((await api(url, 'POST', '/api/v1/auth/token', { username, password: 'bench-password-1' })).token);
    }
    console.error(`${mode}: ${tokens.length} tokens ready; connecting ${clients} streams ...`);
    const proc = fork(fileURLToPath(import.meta.url), ['--client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child = proc;
    let childExit: ((err: Error) => void) | undefined;
    proc.on('exit', (code) => childExit?.(new Error(`the client process exited (code ${code})`)));
    // A phase that does not finish in 2 minutes is reported instead of hanging the run.
    const fromChild = (kind: FromClient['kind']) => new Promise<FromClient>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${mode}: no "${kind}" from the client process within 120 s`)), 120_000);
      childExit = (err) => {
        clearTimeout(timer);
        reject(err);
      };
      const on = (m: FromClient) => {
        if (m.kind === kind) {
          clearTimeout(timer);
          proc.off('message', on);
          resolve(m);
        }
      };
      proc.on('message', on);
    });
    await fromChild('hello');
    const readyP = fromChild('ready');
    proc.send({ url, tokens, perToken } satisfies ClientJob);
    const ready = (await readyP) as Extract<FromClient, { kind: 'ready' }>;
    console.error(`${mode}: ${ready.connected} streams connected in ${(ready.connectMs / 1000).toFixed(1)} s${ready.failed ? `, ${ready.failed} refused` : ''}; publishing ...`);
    await new Promise((r) => setTimeout(r, 500));
    const published = new Map<string, number>();
    const s = gridops.services;
    const watchdog = setTimeout(() => console.error(`${mode}: publishing has taken more than 60 s (after ${published.size} events)`), 60_000);
    for (let n = 0; n < events; n++) {
      const ev = await insertEvent(s.db, { tenantId: 'default', topic: 'system', kind: 'bench.tick', payload: { n, note: 'SSE fan-out benchmark event' } });
      const t = now();
      await s.bus.publish('event', eventWire(ev));
      published.set(ev.id, t);
      await new Promise((r) => setTimeout(r, spacingMs));
    }
    clearTimeout(watchdog);
    await new Promise((r) => setTimeout(r, 1000));
    console.error(`${mode}: published ${published.size} events; collecting ...`);
    const resultP = fromChild('result');
    proc.send('done');
    const { received } = (await resultP) as Extract<FromClient, { kind: 'result' }>;
    const lat: number[] = [];
    let missing = 0;
    for (const [id, t0] of published) {
      const got = received[id] ?? [];
      missing += ready.connected - got.length;
      for (const t of got) lat.push(t - t0);
    }
    lat.sort((a, b) => a - b);
    const r2 = (x: number) => Math.round(x * 100) / 100;
    return {
      mode, bus: s.bus.kind, clients: ready.connected, events, deliveries: lat.length, missing, connect_s: r2(ready.connectMs / 1000),
      p50_ms: r2(pct(lat, 50)), p90_ms: r2(pct(lat, 90)), p99_ms: r2(pct(lat, 99)), max_ms: r2(lat[lat.length - 1]),
    };
  } finally {
    console.error(`${mode}: stopping the server ...`);
    const slow = setTimeout(() => console.error(`${mode}: the server has taken more than 60 s to stop`), 60_000);
    child?.kill();
    await gridops.close();
    clearTimeout(slow);
    if (mode === 'distributed') {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => c.end());
      const r = new Redis(REDIS_URL);
      let cursor = '0';
      do {
        const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await r.del(...keys);
      } while (cursor !== '0');
      r.disconnect();
    }
  }
}

async function main(): Promise<void> {
  const clients = Number(arg('clients', '1000'));
  const events = Number(arg('events', '30'));
  const spacing = Number(arg('spacing', '100'));
  const modes = (arg('mode', 'embedded,distributed')).split(',') as ('embedded' | 'distributed')[];
  const rows: Row[] = [];
  for (const m of modes) {
    console.error(`running ${m}: ${clients} clients, ${events} events every ${spacing} ms ...`);
    rows.push(await runMode(m, clients, events, spacing));
  }
  if (args.includes('--json')) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const cpu = cpus();
  console.log(`SSE fan-out: ${clients} clients, ${events} events, ${cpu.length} CPU(s), ${cpu[0]?.model.trim()}, Node ${process.version}`);
  console.log('');
  console.log('| mode | bus | clients | events | deliveries | missing | connect (s) | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.mode} | ${r.bus} | ${r.clients} | ${r.events} | ${r.deliveries} | ${r.missing} | ${r.connect_s} | ${r.p50_ms} | ${r.p90_ms} | ${r.p99_ms} | ${r.max_ms} |`);
  }
  const worst = Math.max(...rows.map((r) => r.p99_ms));
  console.log('');
  console.log(`target p99 < 100 ms: ${worst < 100 ? 'met' : 'NOT met'} (worst p99 ${worst} ms)`);
}

if (args.includes('--client')) void clientMain();
else main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
