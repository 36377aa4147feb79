// The fuzz drill: malformed requests through every door of one gridops process
// (REST bodies, query strings and headers of every operation in the OpenAPI document,
// GraphQL documents and variables, /ws and graphql-ws frames, SSE parameters, MATPOWER
// imports), from a seeded generator so a finding can be replayed. Zero 5xx, zero exits,
// RSS bounded. "5xx" on the live doors: an INTERNAL_ERROR frame or a 1011 close.
// Audit: every HTTP request of the REST, query, SSE and import doors carries its own X-Request-Id
// (unless the fuzzer is fuzzing that header); the requests the audit rule covers (mutating ones, any
// status; 401 and 403 denials; paths refused for bad percent-encoding) must each have their row:
// the drill reads the audit log back and counts the missing ones (#21).
// The compute door (#35) sends structured bodies of the compute endpoints' own fields (studies' contingencies,
// scenarios, monitor and screening; OPF security and apply; sensitivities' rows, columns and outages), well
// formed enough to pass the schema, with hostile leaves (control characters, formula starts, negative, huge and
// duplicate indexes), and reads the tenant's storage quota; a path with an encoded control character is audited.
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { CASES_DIR } from '../../src/paths.js';
import { spawnGridops, type GridopsProcess } from '../../test/helpers/process.js';
import { ADMIN_PASSWORD, Deployment, log, type DrillResult } from './common.js';

/** mulberry32: small, fast, reproducible. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof rng>;

const NUMBERS = [0, -1, 1, 0.5, -0.0, 1e308, -1e308, 5e-324, 2 ** 53 + 1, -(2 ** 63), 4294967296, 1e21, 123456789.12345679];
const STRINGS = ['', ' ', 'a', 'x'.repeat(300), 'x'.repeat(70_000), '\u0000', '\uFFFF', '\uD800', '😀'.repeat(50), '%00', '../../etc/passwd', "' OR 1=1 --", '$' + '{jndi:x}', '<script>alert(1)</script>',
  '1e999', '-1e999', 'NaN', 'Infinity', 'null', 'true', '2026-13-45T99:99:99Z', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'net_' + 'f'.repeat(20), 'task_0000', '*', '.*+?^$()[]{}|\\', 'a'.repeat(40) + '!'];
const HUGE_NUMBER_TEXT = ['1e999', '-1e999', '1' + '0'.repeat(400), '0.' + '0'.repeat(400) + '1', '123456789012345678901234567890', '-0', '1E+308', '0x10', '1_000'];
const INVALID_UTF8 = [Buffer.from([0xff, 0xfe]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]), Buffer.from([0xe2, 0x82])];

function value(r: Rng, depth: number, keys: string[]): unknown {
  switch (depth > 4 ? r.int(4) : r.int(7)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick(NUMBERS);
    case 3: return r.pick(STRINGS);
    case 4: return Array.from({ length: r.int(6) }, () => value(r, depth + 1, keys));
    case 5: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(6); i > 0; i--) o[r.chance(0.7) && keys.length ? r.pick(keys) : r.pick(STRINGS).slice(0, 40)] = value(r, depth + 1, keys);
      return o;
    }
    default: return r.pick(keys.length ? keys : STRINGS);
  }
}

/** A body: JSON of random values, then perhaps broken (truncated, deep, huge numbers, invalid UTF-8). */
function body(r: Rng, keys: string[]): Buffer {
  let text = JSON.stringify(value(r, 0, keys)) ?? 'null';
  switch (r.int(8)) {
    case 0: text = text.slice(0, r.int(text.length + 1)); break;
    case 1: { const n = 1000 + r.int(20_000); text = '['.repeat(n) + ']'.repeat(r.chance(0.5) ? n : r.int(n)); break; }
    case 2: { const n = 1000 + r.int(5000); text = '{"a":'.repeat(n) + '1' + '}'.repeat(n); break; }
    case 3: text = text.replace(/-?\d+(\.\d+)?/g, () => r.pick(HUGE_NUMBER_TEXT)); break;
    case 4: return Buffer.concat([Buffer.from(text.slice(0, text.length >> 1)), r.pick(INVALID_UTF8), Buffer.from(text.slice(text.length >> 1))]);
    case 5: text = `{"${r.pick(keys.length ? keys : ['x'])}":1,"${r.pick(keys.length ? keys : ['x'])}":"dup","__proto__":{"admin":true},"constructor":{"prototype":{}}}`; break;
  }
  return Buffer.from(text);
}

/** Percent-encodes every byte (encodeURIComponent throws on a lone surrogate). */
const pct = (s: string) => [...Buffer.from(s)].map((b) => '%' + b.toString(16).padStart(2, '0')).join('');

function queryString(r: Rng, names: string[]): string {
  const parts: string[] = [];
  for (let i = r.int(5); i > 0; i--) {
    const k = r.chance(0.8) && names.length ? r.pick(names) : r.pick(['x', 'page[]', 'a.b', '__proto__', '']);
    const v = r.pick([...STRINGS.map((s) => pct(s.slice(0, 2000))), ...HUGE_NUMBER_TEXT, '%ZZ', '%C0%AF', '%FF%FE', '%', '-1', '0', '1e99', encodeURIComponent('{"o":1e300}'), Buffer.from('{"o":1e300}').toString('base64url')]);
    parts.push(`${pct(k)}=${v}`);
  }
  return parts.length ? '?' + parts.join('&') : '';
}

function headers(r: Rng, token: string): Record<string, string> {
  const h: Record<string, string> = {};
  switch (r.int(6)) {
    case 0: break; // none
    case 1: h.authorization = `Bearer ${token}`; break;
    case 2: h.authorization = `Bearer ${token.slice(0, -3)}abc`; break;
    case 3: h.authorization = r.pick(['Bearer', 'Basic Zm9vOmJhcg==', 'Bearer ' + 'a'.repeat(5000), 'Bearer a.b.c', 'bearer ' + token]); break;
    default: h.authorization = `Bearer ${token}`;
  }
  if (r.chance(0.3)) h['x-api-key'] = r.pick(['', 'gk_' + 'x'.repeat(40), 'x'.repeat(3000)]);
  if (r.chance(0.3)) h['x-request-id'] = r.pick(['x'.repeat(300), 'a b', 'ok-1', '\u00ff\u00fe']);
  if (r.chance(0.2)) h['x-trace-id'] = r.pick(['x'.repeat(300), '0'.repeat(32)]);
  if (r.chance(0.2)) h['accept-version'] = r.pick(['v0', 'v9', '', 'x'.repeat(200)]);
  if (r.chance(0.2)) h['last-event-id'] = r.pick(['-1', '1e99', 'abc', '9'.repeat(40)]);
  if (r.chance(0.2)) h.accept = r.pick(['text/csv', '*/*', 'application/xml', 'x'.repeat(100)]);
  return h;
}

// Text for ids and names behind the schema: control characters (400 INVALID_FIELD), formula starts (CSV), sizes.
const HOSTILE_TEXT = [
  'a\u0000b', '\u0001', 'tab\there', 'line\nbreak', '\u007f', ' =cmd|x', '  +1', '@SUM(1)', '-2+3',
  'x'.repeat(300), '😀', '\uD800', '', 'ok',
];

/** Branch positions: mostly real ones of case9 (0-8), with duplicates, negatives, one past the end and absurd values. */
function indexList(r: Rng, max: number): number[] {
  return Array.from({ length: r.int(max + 1) }, () => (r.chance(0.85) ? r.int(10) : r.pick([-1, -3, 9, 100_000, 2 ** 31, 1e21, 0.5])));
}

/** One request of the compute endpoints' own fields (#35): mostly well formed, hostile at the leaves. Without a
 *  solver in the API process (distributed: ROLE=api) matrices are asked asynchronously: a synchronous one is a
 *  documented 503 there (docs/sensitivities.md). */
function computeRequest(r: Rng, net: string, solverInApi: boolean): { method: string; path: string; body?: unknown } {
  const many = (n: number) => (r.chance(0.05) ? n * 250 : n);
  switch (r.int(4)) {
    case 0: {
      const body: Record<string, unknown> = { kind: r.pick(['contingency', 'contingency', 'scenarios', 'x']) };
      if (r.chance(0.8)) {
        body.contingencies = r.chance(0.3) ? r.pick(['n-1-branches', 'n-1-generators', 'n-1', 'x'])
          : Array.from({ length: r.int(many(8)) }, () => ({
            ...(r.chance(0.8) ? { id: r.pick(HOSTILE_TEXT) } : {}),
            branches: indexList(r, 3),
            ...(r.chance(0.3) ? { generators: indexList(r, 2) } : {}),
          }));
      }
      if (r.chance(0.4)) {
        const loadScale = Array.from({ length: r.int(60) }, () => r.pick([1, 0.9, 1.1, 0, -1, 1e308]));
        body.scenarios = { count: r.pick([0, 1, 3, 50, 1e9, -1, 2.5]), ...(r.chance(0.5) ? { load_scale: loadScale } : {}) };
      }
      if (r.chance(0.3)) {
        body.monitor = { branches: r.chance(0.3) ? 'all' : indexList(r, 20), buses: r.chance(0.3) ? 'all' : indexList(r, 20) };
      }
      if (r.chance(0.2)) body.screening = { method: 'dc', threshold_percent: r.pick([0, 50, 1e4, -1, 1e5]) };
      if (r.chance(0.2)) body.islanding = r.pick(['isolate', 'new_reference', 'skip', 'x']);
      if (r.chance(0.2)) body.warm_start = r.pick(['previous', 'default', 'x']);
      if (r.chance(0.2)) body.method = r.pick(['dc', 'newton_raphson', 'fast_decoupled', 'x']);
      return { method: 'POST', path: `/api/v1/networks/${net}/studies`, body };
    }
    case 1: {
      // a synchronous OPF stopped by its own timeout_ms answers 504 as specified: short timeouts go asynchronous
      const body: Record<string, unknown> = { method: r.pick(['dc', 'dc', 'ac', 'x']), timeout_ms: r.pick([5000, 20_000]) };
      if (r.chance(0.6)) {
        body.security = {
          contingencies: r.chance(0.3) ? r.pick(['n-1-branches', 'x'])
            : Array.from({ length: r.int(many(6)) }, () => ({
              ...(r.chance(0.7) ? { id: r.pick(HOSTILE_TEXT) } : {}), branches: indexList(r, 3),
            })),
          ...(r.chance(0.5) ? { limit: r.pick(['rate_a', 'rate_b', 'rate_c', 'x']) } : {}),
        };
      }
      if (r.chance(0.3)) body.apply = r.chance(0.8);
      if (r.chance(0.3)) body.async = r.chance(0.5);
      if (body.async === true && r.chance(0.5)) body.timeout_ms = r.pick([1, 100]);
      if (r.chance(0.2)) body.start = r.pick(['default', 'case', 'powerflow', 'x']);
      if (r.chance(0.2)) body.islanding = r.pick(['refuse', 'isolate', 'x']);
      return { method: 'POST', path: `/api/v1/networks/${net}/opf`, body };
    }
    case 2: {
      const body: Record<string, unknown> = { kind: r.pick(['ptdf', 'lodf', 'x']) };
      if (r.chance(0.5)) body.branches = indexList(r, many(12));
      if (r.chance(0.3)) body.buses = Array.from({ length: r.int(12) }, () => r.pick([1, 2, 3, 9, 0, -1, 1e21]));
      if (r.chance(0.3)) body.outages = indexList(r, 12);
      if (r.chance(0.4)) body.async = r.chance(0.7);
      if (!solverInApi) body.async = true;
      return { method: 'POST', path: `/api/v1/networks/${net}/sensitivities${r.chance(0.3) ? '?format=csv' : ''}`, body };
    }
    default:
      if (r.chance(0.5)) return { method: 'GET', path: '/api/v1/tenant/quota' };
      return { method: 'GET', path: `/api/v1/tasks?kind=${r.pick(['study', 'sensitivities', 'opf'])}&page_size=5` };
  }
}

interface Op { method: string; path: string; params: string[]; keys: string[] }

function operations(doc: { paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>> }): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const props = Object.values(op.requestBody?.content ?? {})[0]?.schema?.properties ?? {};
      ops.push({ method: method.toUpperCase(), path, params: (op.parameters ?? []).map((p) => p.name), keys: Object.keys(props) });
    }
  }
  return ops;
}

interface Outcome { status: number; internal: boolean }

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Whether the audit rule covers an answered request (docs/security.md "Audit trail"); 429s are counted in aggregate, not here. */
function audited(method: string, path: string, status: number): boolean {
  if (status <= 0 || status === 429) return false;
  if (status === 401 || status === 403) return true;
  // An SSE heartbeat (a keep-alive POST) is audited when refused only.
  if (MUTATING.has(method)) return !(path.startsWith('/api/v1/events/stream/heartbeat') && status < 400);
  // An encoded control character in the path (net_%00abc) is a probe: audited whatever the answer (#35).
  if (/%(?:[01][0-9a-f]|7f)/i.test(path.split('?')[0]!)) return true;
  if (status !== 400) return false;
  try {
    decodeURIComponent(path.split('?')[0]!);
    return false;
  } catch {
    return true; // refused before routing for its percent-encoding: audited too
  }
}

/**
 * One HTTP request. A connection reset before any answer is retried once on a fresh
 * connection: a kept-alive socket that the server closed after its previous answer (as it
 * does after refusing a body) is the client's race, not the server's failure. A request
 * still unanswered after timeoutMs is a hang (status 0).
 */
async function request(base: string, method: string, path: string, h: Record<string, string>, payload?: Buffer, timeoutMs = 20_000, firstChunkOnly = false): Promise<Outcome> {
  const first = await requestOnce(base, method, path, h, payload, timeoutMs, firstChunkOnly, keepAlive);
  if (first.status !== -2) return first;
  const again = await requestOnce(base, method, path, h, payload, timeoutMs, firstChunkOnly, false);
  return again.status === -2 ? { status: 0, internal: false } : again;
}

function requestOnce(base: string, method: string, path: string, h: Record<string, string>, payload: Buffer | undefined, timeoutMs: number, firstChunkOnly: boolean, agent: http.Agent | false): Promise<Outcome> {
  return new Promise((resolve) => {
    let req: http.ClientRequest;
    try {
      req = http.request(base + path, { method, headers: { ...h, ...(payload ? { 'content-length': String(payload.length) } : {}) }, agent });
    } catch {
      return resolve({ status: -1, internal: false }); // the client refused to send it (not the server's doing)
    }
    const timer = setTimeout(() => { req.destroy(); resolve({ status: 0, internal: false }); }, timeoutMs);
    req.on('error', () => { clearTimeout(timer); resolve({ status: -2, internal: false }); });
    req.on('response', (res) => {
      // An event stream that opened is an answer (the SSE door reached through its REST path).
      if (firstChunkOnly || String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        clearTimeout(timer);
        req.destroy();
        return resolve({ status: res.statusCode ?? 0, internal: false });
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, internal: /"code":"INTERNAL_ERROR"/.test(text) && !/QUERY_TIMEOUT/.test(text) });
      });
      res.on('error', () => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0, internal: false }); });
    });
    req.end(payload);
  });
}
let keepAlive = new http.Agent({ keepAlive: true, maxSockets: 16 });

const GQL_FIELDS = ['health { status }', 'networks { items { id name } total }', 'network(id: $id) { id buses { id } }', 'tasks { items { id } }', 'agents { items { id } }', 'alarms { items { id } }',
  'events { items { seq } }', 'timeseries(metric: $m, from: $f, to: $t, interval: $i) { points { value } }', 'audit { total }', 'me { id }', '__schema { types { name fields { name } } }'];
const GQL_MUTATIONS = ['runPowerFlow(id: $id, async: true) { taskId }', 'importNetwork(format: $fmt, content: $c) { id }', 'cancelTask(id: $id) { id }', 'writeTimeseries(points: $p) { written }'];

function gqlDocument(r: Rng): string {
  switch (r.int(8)) {
    case 0: return `{ ${'a { '.repeat(200 + r.int(3000))}`;
    case 1: return `{ ${Array.from({ length: 50 + r.int(2000) }, (_, i) => `a${i}: health { status }`).join(' ')} }`;
    case 2: return `query($id: ID!, $m: String, $f: DateTime, $t: DateTime, $i: String) { ${r.pick(GQL_FIELDS)} ${r.pick(GQL_FIELDS)} }`;
    case 3: return `mutation($id: ID!, $fmt: String, $c: String, $p: [JSON]) { ${r.pick(GQL_MUTATIONS)} }`;
    case 4: return `fragment A on Query { ...B } fragment B on Query { ...A } { ...A }`;
    case 5: return r.pick(STRINGS);
    case 6: return `{ networks(pageSize: ${r.pick(HUGE_NUMBER_TEXT)}, cursor: "${r.pick(STRINGS).slice(0, 100)}") { items { id } } }`;
    default: return `subscription { ${r.pick(['powerFlowProgress(taskId: "x") { iteration }', 'events { seq }', 'nothing'])} }`;
  }
}

/** One WebSocket session of random frames; resolves with the frames that were internal errors and whether it closed with 1011. */
function wsSession(url: string, protocol: string | undefined, frames: (string | Buffer)[], timeoutMs = 10_000): Promise<{ internal: number; opened: boolean }> {
  return new Promise((resolve) => {
    let internal = 0;
    let opened = false;
    const ws = protocol ? new WebSocket(url, protocol) : new WebSocket(url);
    const done = () => { clearTimeout(timer); resolve({ internal, opened }); };
    const timer = setTimeout(() => { ws.terminate(); done(); }, timeoutMs);
    ws.on('open', () => {
      opened = true;
      for (const f of frames) ws.send(f);
      // A last ping that the server answers after the frames above: then close.
      ws.send(protocol ? JSON.stringify({ type: 'ping' }) : JSON.stringify({ type: 'ping', id: 'last' }));
    });
    ws.on('message', (d) => {
      const t = d.toString();
      if (/"INTERNAL_ERROR"/.test(t)) internal++;
      if (/"type":"pong"/.test(t)) ws.close(1000);
    });
    ws.on('unexpected-response', (_req, res) => { if ((res.statusCode ?? 0) >= 500) internal++; ws.terminate(); done(); });
    ws.on('close', (code) => { if (code === 1011) internal++; done(); });
    ws.on('error', () => done());
  });
}

function matpowerVariant(r: Rng, source: string): Buffer {
  let t = source;
  switch (r.int(9)) {
    case 0: t = t.slice(0, r.int(t.length)); break;
    case 1: t = t.replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi, (m) => (r.chance(0.1) ? r.pick(HUGE_NUMBER_TEXT.concat(['NaN', 'Inf', '-Inf', '[', ';'])) : m)); break;
    case 2: t = t.split('\n').filter(() => r.chance(0.9)).join('\n'); break;
    case 3: t = t.replace('mpc.bus = [', 'mpc.bus = ' + '['.repeat(1000 + r.int(5000))); break;
    case 4: return Buffer.concat([Buffer.from(t.slice(0, t.length >> 1)), r.pick(INVALID_UTF8), Buffer.from(t.slice(t.length >> 1))]);
    case 5: t = t.replace(/\t/g, () => '\t'.repeat(1 + r.int(3))).replace(/;\n/g, () => (r.chance(0.2) ? ' 1 2 3 4;\n' : ';\n')); break;
    case 6: t = `function mpc = ${'x'.repeat(r.int(20_000))}\n` + t; break;
    case 7: t = 'mpc.version = \'2\';\nmpc.baseMVA = 1e999;\nmpc.bus = [];\nmpc.gen = [];\nmpc.branch = [];'; break;
    default: t = Buffer.from(Array.from({ length: r.int(4000) }, () => r.int(256))).toString('latin1');
  }
  return Buffer.from(t);
}

/** Embedded by default (one process on PGlite); with `stores`, an API process and a worker on that PostgreSQL and Redis. */
export async function fuzzDrill(opts: { requests: number; seed: number; concurrency?: number; stores?: { databaseUrl: string; redisUrl: string } }): Promise<DrillResult> {
  const r = rng(opts.seed);
  keepAlive = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const dir = mkdtempSync(join(tmpdir(), 'gridops-drill-fuzz-'));
  let server: GridopsProcess | undefined;
  let deployment: Deployment | undefined;
  const statuses = new Map<number, number>();
  const byDoor = new Map<string, number>();
  const findings: string[] = [];
  let internal = 0, noAnswer = 0, refused = 0, rssStart = 0, rssMax = 0;
  const expectAudit: { id: string; what: string }[] = [];
  try {
    if (opts.stores) {
      deployment = new Deployment(opts.stores, { LOG_LEVEL: process.env.DRILL_LOG_LEVEL ?? 'error' });
      await deployment.start(1);
      server = deployment.api;
    } else {
      server = await spawnGridops({ DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', ROLE: 'all', WORKERS: '1', PORT: '0', NODE_ENV: 'production', ADMIN_PASSWORD, LOG_LEVEL: process.env.DRILL_LOG_LEVEL ?? 'error', RATE_LIMIT_SCALE: '1000000', MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' /* as npm start and the image */ }, { echo: !!process.env.DRILL_ECHO, nodeArgs: ['--expose-gc', ...(process.env.DRILL_HEAP_SNAPSHOTS ? ['--heapsnapshot-signal=SIGUSR2'] : [])] });
    }
    const base = server.url!;
    const wsBase = base.replace(/^http/, 'ws');
    const login = JSON.parse((await (await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) })).text()));
    let token: string = login.data.token;
    const auth = () => ({ authorization: `Bearer ${token}` });
    const case9 = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
    const imported = await request(base, 'POST', '/api/v1/networks/import?format=matpower', { ...auth(), 'content-type': 'text/plain' }, Buffer.from(case9));
    if (imported.status !== 201) throw new Error(`fuzz: could not import case9 (${imported.status})`);
    const nets = JSON.parse(await (await fetch(`${base}/api/v1/networks`, { headers: auth() })).text()).data as { id: string }[];
    const ids = [nets[0]!.id, 'net_' + 'f'.repeat(20), 'x', '..', '%2e%2e', 'a'.repeat(500), '%00', '%FF', '😀'];
    const ops = operations(JSON.parse(await (await fetch(`${base}/api/v1/openapi.json`)).text()));
    const rss = () => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server!.pid}/status`, 'utf8'))![1]) / 1024;
      } catch {
        return 0;
      }
    };
    // The process's own view of its memory (prom-client's default metrics on /metrics, admins only).
    const memory = async (): Promise<Record<string, number>> => {
      const text = await fetch(`${base}/metrics`, { headers: auth() }).then((x) => x.text()).catch(() => '');
      const read = (name: string) => Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 1048576);
      return { heap_used_mb: read('nodejs_heap_size_used_bytes'), external_mb: read('nodejs_external_memory_bytes') };
    };
    // DRILL_HEAP_SNAPSHOTS=1: a heap snapshot of the server (in its working directory) at the start and after the pause.
    const snapshot = async () => { if (process.env.DRILL_HEAP_SNAPSHOTS) { server!.proc.kill('SIGUSR2'); await new Promise((res) => setTimeout(res, 15_000)); } };
    await snapshot();
    const memStart = await memory();
    rssStart = rssMax = rss();
    const rssTimer = setInterval(() => { rssMax = Math.max(rssMax, rss()); }, 500);
    log(`fuzz: ${ops.length} REST operations, seed ${opts.seed}, ${opts.requests} requests`);

    let sent = 0;
    const one = async (i: number) => {
      const door = r.pick([
        'rest', 'rest', 'rest', 'rest', 'query', 'graphql', 'graphql', 'ws', 'graphql-ws', 'sse',
        'matpower', 'matpower', 'compute', 'compute',
      ]);
      byDoor.set(door, (byDoor.get(door) ?? 0) + 1);
      const note = (o: Outcome, what: string) => {
        if (o.status === -1) { refused++; return; }
        statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
        if (o.status === 0) noAnswer++;
        if (o.status >= 500 || o.internal || o.status === 0) {
          if (o.status >= 500 || o.internal) internal++;
          if (findings.length < 20) findings.push(`#${i} ${door} ${what} → ${o.status}${o.internal ? ' INTERNAL_ERROR' : ''}`);
        }
      };
      // An id of this request for the audit check, unless the fuzzer is fuzzing the header itself.
      const rid = `fz${opts.seed}-${i}`;
      const tracked = (h: Record<string, string>) => (h['x-request-id'] === undefined ? { ...h, 'x-request-id': rid } : h);
      const expect = (o: Outcome, method: string, path: string, h: Record<string, string>) => {
        if (h['x-request-id'] === rid && audited(method, path, o.status)) expectAudit.push({ id: rid, what: `${method} ${path.slice(0, 100)} → ${o.status}` });
      };
      if (door === 'rest' || door === 'query') {
        const op = r.pick(ops);
        const path = op.path.replace(/\{[^}]+\}/g, () => r.pick(ids)) + queryString(r, op.params);
        const h = tracked({ ...headers(r, token), ...(op.method !== 'GET' && op.method !== 'DELETE' || r.chance(0.2) ? { 'content-type': r.pick(['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data; boundary=x']) } : {}) });
        const payload = op.method === 'GET' ? undefined : body(r, op.keys);
        const o = await request(base, op.method, path, h, payload);
        note(o, `${op.method} ${path.slice(0, 120)}`);
        expect(o, op.method, path, h);
      } else if (door === 'compute') {
        const c = computeRequest(r, r.chance(0.9) ? nets[0]!.id : r.pick(ids), !opts.stores);
        const json: Record<string, string> = c.body === undefined ? {} : { 'content-type': 'application/json' };
        const h = tracked({ ...(r.chance(0.9) ? auth() : headers(r, token)), ...json });
        const o = await request(base, c.method, c.path, h, c.body === undefined ? undefined : Buffer.from(JSON.stringify(c.body)), 60_000);
        note(o, `${c.method} ${c.path.slice(0, 100)} ${JSON.stringify(c.body)?.slice(0, 120) ?? ''}`);
        expect(o, c.method, c.path, h);
      } else if (door === 'graphql') {
        const vars = value(r, 1, ['id', 'm', 'f', 't', 'i', 'fmt', 'c', 'p']);
        const doc = gqlDocument(r);
        if (r.chance(0.2)) note(await request(base, 'GET', `/graphql?query=${pct(doc.slice(0, 4000))}&variables=${r.pick(['%7B', pct(JSON.stringify(vars) ?? ''), '%ZZ'])}`, headers(r, token)), `GET ${doc.slice(0, 80)}`);
        else note(await request(base, 'POST', '/graphql', { ...headers(r, token), 'content-type': 'application/json' }, r.chance(0.85) ? Buffer.from(JSON.stringify({ query: doc, variables: vars, operationName: r.chance(0.2) ? 'x' : undefined })) : body(r, ['query', 'variables', 'extensions'])), doc.slice(0, 80));
      } else if (door === 'ws' || door === 'graphql-ws') {
        const frames = Array.from({ length: 1 + r.int(8) }, (): string | Buffer => {
          switch (r.int(6)) {
            case 0: return r.pick(INVALID_UTF8);
            case 1: return body(r, ['type', 'id', 'topics', 'command', 'payload', 'params']).toString('latin1');
            case 2: return JSON.stringify({ type: r.pick(['subscribe', 'unsubscribe', 'command', 'auth', 'ping', 'connection_init', 'subscribe', 'complete', 'x']), id: value(r, 3, []), payload: value(r, 1, ['query', 'variables', 'topics', 'token']), topics: value(r, 2, []) });
            case 3: return JSON.stringify({ type: 'subscribe', id: String(r.int(100)), payload: { query: gqlDocument(r) } });
            case 4: return 'x'.repeat(r.chance(0.1) ? 1_100_000 : r.int(1000));
            default: return JSON.stringify({ type: 'command', id: 'c1', command: r.pick(['switch_branch', 'x', '']), params: value(r, 1, ['branch_id', 'state']) });
          }
        });
        const url = door === 'ws' ? `${wsBase}/ws${r.chance(0.7) ? `?token=${token}` : queryString(r, ['token', 'topics'])}` : `${wsBase}/graphql`;
        const first = door === 'graphql-ws' ? [JSON.stringify({ type: 'connection_init', payload: r.chance(0.7) ? { authorization: `Bearer ${token}` } : value(r, 2, []) })] : [];
        const s = await wsSession(url, door === 'graphql-ws' ? 'graphql-transport-ws' : undefined, [...first, ...frames]);
        note({ status: s.opened ? 101 : 400, internal: s.internal > 0 }, `${door} frames`);
      } else if (door === 'sse') {
        const q = queryString(r, ['topics', 'network_id', 'agent_id', 'severity', 'format', 'token', 'until', 'since']);
        const h = tracked(headers(r, token));
        const o = await request(base, 'GET', `/api/v1/events/stream${q}`, h, undefined, 10_000, true);
        note(o, `SSE ${q.slice(0, 120)}`);
        expect(o, 'GET', `/api/v1/events/stream${q}`, h);
      } else {
        const source = r.chance(0.8) ? case9 : readFileSync(join(CASES_DIR, 'case30.m'), 'utf8');
        const path = `/api/v1/networks/import${r.pick(['?format=matpower', '?format=matpower', '', '?format=x'])}`;
        const h = tracked({ ...auth(), 'content-type': r.pick(['text/plain', 'text/plain', 'application/octet-stream', 'application/json']) });
        const o = await request(base, 'POST', path, h, matpowerVariant(r, source), 60_000);
        note(o, 'import');
        expect(o, 'POST', path, h);
      }
      sent++;
      if (sent % 1000 === 0) {
        log(`fuzz: ${sent}/${opts.requests}, 5xx ${internal}, RSS ${rss().toFixed(0)} MB`);
        // A fuzzed request may have revoked the admin's session: sign in again.
        const again = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) }).then((x) => x.json()).catch(() => undefined) as { data?: { token?: string } } | undefined;
        if (again?.data?.token) token = again.data.token;
      }
    };
    let next = 0;
    const concurrency = opts.concurrency ?? 6;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < opts.requests && server!.proc.exitCode === null && server!.proc.signalCode === null) await one(next++);
    }));
    clearInterval(rssTimer);
    rssMax = Math.max(rssMax, rss());
    const rssBeforePause = rss();
    // After a pause: RSS sampled until it has not fallen for 10 s (at most 45 s; the server collects
    // its garbage 2-4 s after the requests stop: src/lib/idleCollect.ts), then the heap's own figures.
    let rssAfterPause = rssBeforePause;
    for (let i = 0, still = 0; i < 45 && still < 25 && server.proc.exitCode === null; i++) {
      await new Promise((res) => setTimeout(res, 1000));
      const now = rss();
      still = now >= rssAfterPause - 1 ? still + 1 : 0;
      rssAfterPause = Math.min(rssAfterPause, now);
    }
    const memEnd = await memory();
    await snapshot();
    const health = await request(base, 'GET', '/api/v1/health', {});
    const exited = server.proc.exitCode !== null || server.proc.signalCode !== null;
    // The audit log read back (tenant default: the admin's, and where denials before authentication go).
    const auditMissing: string[] = [];
    if (!exited) {
      const fresh = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) }).then((x) => x.json()) as { data: { token: string } };
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const res = await fetch(`${base}/api/v1/audit?page_size=100&page=${page}&sort=-timestamp`, { headers: { authorization: `Bearer ${fresh.data.token}` } });
        const j = await res.json() as { data?: { request_id: string | null }[]; meta?: { total_pages?: number } };
        for (const e of j.data ?? []) if (e.request_id) seen.add(e.request_id);
        if (!j.data?.length || page >= (j.meta?.total_pages ?? page)) break;
      }
      for (const e of expectAudit) if (!seen.has(e.id)) auditMissing.push(`${e.id} ${e.what}`);
    }
    return {
      drill: opts.stores ? 'fuzz (distributed)' : 'fuzz', submitted: sent, completed: sent - noAnswer, lost: 0, duplicated: 0, http_5xx: internal, recovered_s: null,
      details: { seed: opts.seed, process_exits: exited ? 1 : 0, no_answer: noAnswer, audit_expected: expectAudit.length, audit_missing: exited ? -1 : auditMissing.length, audit_missing_sample: auditMissing.slice(0, 10), refused_by_client: refused, rss_start_mb: Math.round(rssStart), rss_max_mb: Math.round(rssMax), rss_end_mb: Math.round(rssBeforePause), rss_after_pause_mb: Math.round(rssAfterPause),
        heap_start: memStart, heap_end: memEnd, health_after: health.status,
        by_door: Object.fromEntries(byDoor), statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])), findings, log_tail: exited ? server.log.slice(-20) : undefined },
    };
  } finally {
    if (deployment) await deployment.destroy();
    else await server?.stop(10_000).catch(() => {});
    keepAlive.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
