// The heavy drill (issue 35): for each compute kind, large requests within the bounds (docs/security.md "Bounds on
// work"), two at once, while a second tenant runs synchronous case9 power flows and a client polls /health; one
// embedded process (PGlite, in-process queue, two solver threads), as `npm start` runs. Reported per kind: the
// /health and the other tenant's p99, the process's RSS at the start, its peak and at the end (after a pause),
// and the answers with status 500 or more.
import { mkdtempSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR } from '../../src/paths.js';
import { spawnGridops, type GridopsProcess } from '../../test/helpers/process.js';
import { ADMIN_PASSWORD, Tally, call, log, percentile, sleep, type DrillResult } from './common.js';

interface Kind {
  key: HeavyKind;
  kind: string;
  request: string;
  run: () => Promise<number[]>;
}

/** The kinds the drill runs, in this order; `--kinds import,opf` (bench/drill.ts) runs some of them. */
export const HEAVY_KINDS = ['powerflow', 'study', 'opf', 'scopf', 'sensitivities', 'import'] as const;
export type HeavyKind = (typeof HEAVY_KINDS)[number];

export async function heavyDrill(opts: { pauseMs?: number; kinds?: readonly HeavyKind[] } = {}): Promise<DrillResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-drill-heavy-'));
  let server: GridopsProcess | undefined;
  try {
    server = await spawnGridops(
      {
        DATA_DIR: dir,
        DATABASE_URL: '',
        REDIS_URL: '',
        ROLE: 'all',
        WORKERS: '2',
        PORT: '0',
        NODE_ENV: 'production',
        ADMIN_PASSWORD,
        LOG_LEVEL: process.env.DRILL_LOG_LEVEL ?? 'error',
        RATE_LIMIT_SCALE: '1000000',
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
      },
      { echo: !!process.env.DRILL_ECHO, nodeArgs: ['--expose-gc'] },
    );
    const base = server.url!;
    const pid = server.pid;
    const rss = () => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
      } catch {
        return 0;
      }
    };
    // The RSS's breakdown (issue #35): the main thread's heap and off-heap parts, and, from /proc, the anonymous
    // mappings (worker heaps, wasm memories of the solver and of PGlite) against file-backed ones.
    const breakdown = async () => {
      const st = await server!.stats().catch(() => null);
      let anon = 0;
      try {
        anon = Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
      } catch {
        // the process has gone
      }
      // WebAssembly memories (the solver instances', PGlite's): V8 reserves each with guard regions of several GB and
      // makes the memory in use readable, which splits the reservation: a rw-p mapping followed by a ---p one of 4 GB
      // or more. Their resident size is the memories' share; the rest of RssAnon is JS heaps of all threads and malloc.
      let wasm = 0;
      const wasmEach: number[] = []; // each memory's resident MB, largest first (PGlite's is one of them)
      try {
        const maps: { start: number; end: number; perms: string; rss: number }[] = [];
        for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
          const h = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
          if (h) maps.push({ start: Number.parseInt(h[1], 16), end: Number.parseInt(h[2], 16), perms: h[3], rss: 0 });
          const r = /^Rss:\s+(\d+) kB/.exec(line);
          if (r && maps.length) maps[maps.length - 1].rss = Number(r[1]);
        }
        for (let i = 0; i + 1 < maps.length; i++) {
          const [a, b] = [maps[i], maps[i + 1]];
          if (a.perms === 'rw-p' && b.perms === '---p' && a.end === b.start && b.end - b.start >= 4 * 2 ** 30) {
            wasm += a.rss / 1024;
            wasmEach.push(Math.round(a.rss / 1024));
          }
        }
      } catch {
        // the process has gone
      }
      const mb = (x: number | undefined) => (x === undefined ? null : Math.round(x));
      return {
        rss_mb: Math.round(rss()), rss_anon_mb: Math.round(anon), wasm_mb: Math.round(wasm),
        wasm_each_mb: wasmEach.sort((x, y) => y - x),
        heap_used_mb: mb(st?.heap_used_mb), heap_total_mb: mb(st?.heap_total_mb),
        external_mb: mb(st?.external_mb), array_buffers_mb: mb(st?.array_buffers_mb),
      };
    };
    const t = new Tally();
    const jsonOf = (h: Record<string, string>) => ({ ...h, 'content-type': 'application/json' });
    const login = async (username: string, password: string) =>
      (await call(t, `${base}/api/v1/auth/token`, { method: 'POST', headers: jsonOf({}), body: JSON.stringify({ username, password }) }))
        .body.data.token as string;
    const admin = { authorization: `Bearer ${await login('admin', ADMIN_PASSWORD)}` };
    await call(t, `${base}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: jsonOf(admin),
      body: JSON.stringify({ tenant_id: 'other', plan: 'enterprise' }),
    });
    await call(t, `${base}/api/v1/admin/users`, {
      method: 'POST',
      headers: jsonOf(admin),
      body: JSON.stringify({ username: 'other-operator', password: 'other-operator-password', tenant_id: 'other', role: 'operator' }),
    });
    const other = { authorization: `Bearer ${await login('other-operator', 'other-operator-password')}` };
    const importCase = async (h: Record<string, string>, name: string) => {
      const r = await call(
        t,
        `${base}/api/v1/networks/import?format=matpower`,
        { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, `${name}.m`), 'utf8') },
        120_000,
      );
      if (r.status !== 201) throw new Error(`heavy: import ${name}: ${r.status}`);
      return r.body.data.id as string;
    };
    const net = {
      case9: await importCase(other, 'case9'),
      case118: await importCase(admin, 'case118'),
      case2383wp: await importCase(admin, 'case2383wp'),
      case9241pegase: await importCase(admin, 'case9241pegase'),
      case13659pegase: await importCase(admin, 'case13659pegase'),
    };
    const post = async (url: string, body: unknown, timeoutMs = 300_000) => {
      const r = await call(t, `${base}${url}`, { method: 'POST', headers: jsonOf(admin), body: JSON.stringify(body) }, timeoutMs);
      return r;
    };
    const waitTask = async (id: string) => {
      for (;;) {
        const r = await call(t, `${base}/api/v1/tasks/${id}`, { headers: admin });
        if (r.status >= 500 || ['completed', 'failed', 'cancelled'].includes(r.body?.data?.status)) return r.status >= 500 ? r.status : 200;
        await sleep(500);
      }
    };
    // 160 distinct 64-branch outages of case118 that keep it connected (test/scopf-api.test.ts): just under the work bound
    const case118 = JSON.parse(await (await fetch(`${base}/api/v1/networks/${net.case118}`, { headers: admin })).text()).data as {
      buses: { id: number }[];
      branches: { from: number; to: number }[];
    };
    const parent = new Map(case118.buses.map((b) => [b.id, b.id]));
    const find = (i: number): number => (parent.get(i) === i ? i : find(parent.get(i)!));
    const spare: number[] = [];
    case118.branches.forEach((b, l) => {
      const a = find(b.from),
        c = find(b.to);
      if (a !== c) parent.set(a, c);
      else spare.push(l);
    });
    const outages: { branches: number[] }[] = [];
    for (let a = 0; outages.length < 180 && a < 69; a++)
      for (let b = a + 1; outages.length < 180 && b < 69; b++) {
        outages.push({
          branches: spare
            .slice(0, 69)
            .filter((_, j) => j !== a && j !== b && j > 2)
            .slice(0, 64),
        });
      }
    const twice = (f: () => Promise<number>) => () => Promise.all([f(), f()]);
    const sensRows = Array.from({ length: 1082 }, (_, k) => k);
    const allKinds: Kind[] = [
      {
        key: 'powerflow',
        kind: 'power flow',
        request: 'case13659pegase, synchronous, Newton-Raphson',
        run: twice(async () => (await post(`/api/v1/networks/${net.case13659pegase}/powerflow`, {})).status),
      },
      {
        key: 'study',
        kind: 'study',
        request: 'case2383wp N-1 of every branch (2,896 cases), async',
        run: twice(async () => {
          const r = await post(`/api/v1/networks/${net.case2383wp}/studies`, { kind: 'contingency', contingencies: 'n-1-branches' });
          return r.status >= 300 ? r.status : waitTask(r.body.data.task_id ?? r.body.data.tasks?.[0]);
        }),
      },
      {
        key: 'opf',
        kind: 'OPF',
        request: 'case2383wp AC-OPF, synchronous',
        run: twice(async () => (await post(`/api/v1/networks/${net.case2383wp}/opf`, { method: 'ac' })).status),
      },
      {
        key: 'scopf',
        kind: 'SCOPF',
        request: 'case118, 180 distinct connected 64-branch outages (49 M of the 50 M work units), synchronous',
        run: twice(
          async () => (await post(`/api/v1/networks/${net.case118}/opf`, { method: 'dc', security: { contingencies: outages } })).status,
        ),
      },
      {
        key: 'sensitivities',
        kind: 'sensitivities',
        request: 'case9241pegase PTDF, 1,082 rows × 9,241 buses (10 M entries, the synchronous answer bound), synchronous',
        run: twice(async () => {
          const r = await fetch(`${base}/api/v1/networks/${net.case9241pegase}/sensitivities`, {
            method: 'POST',
            headers: jsonOf(admin),
            body: JSON.stringify({ kind: 'ptdf', branches: sensRows }),
          });
          await r.arrayBuffer();
          return r.status;
        }),
      },
      {
        key: 'import',
        kind: 'import',
        request: 'case13659pegase (the largest shared case file)',
        run: twice(async () => {
          try {
            await importCase(admin, 'case13659pegase');
            return 201;
          } catch {
            return 500;
          }
        }),
      },
    ];
    const kinds = opts.kinds ? allKinds.filter((k) => opts.kinds!.includes(k.key)) : allKinds;

    // the other tenant and the health probe, for the whole drill, on their own thread (./probeThread.ts)
    const probes = new Worker(new URL(`./probeThread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url), {
      workerData: { base, powerflowUrl: `${base}/api/v1/networks/${net.case9}/powerflow`, headers: other },
    });
    type Probed = { health: number[]; other: number[]; statuses: Record<string, number> };
    const probed = (m: 'next' | 'stop') =>
      new Promise<Probed>((resolve, reject) => {
        const failed = (e: Error) => reject(e);
        probes.once('error', failed);
        probes.once('message', (answer: Probed) => {
          probes.off('error', failed);
          resolve(answer);
        });
        probes.postMessage(m);
      });
    (globalThis as { gc?: () => void }).gc?.();
    await sleep(opts.pauseMs ?? 10_000);
    const rssStart = rss();
    const memStart = await breakdown();
    let memPeak = memStart;
    await probed('next'); // from here on
    const rows: Record<string, unknown>[] = [];
    let fivexx = 0;
    for (const k of kinds) {
      await probed('next'); // the latencies of this kind only
      let peak = rss();
      const timer = setInterval(() => {
        peak = Math.max(peak, rss());
      }, 250);
      const t0 = Date.now();
      const statuses = await k.run();
      clearInterval(timer);
      const m = await breakdown();
      if (m.rss_mb > memPeak.rss_mb) memPeak = m;
      const current = await probed('next');
      const bad = statuses.filter((s) => s >= 500 || s === 0).length;
      fivexx += bad;
      rows.push({
        kind: k.kind,
        request: k.request,
        statuses: statuses.join('/'),
        seconds: Math.round((Date.now() - t0) / 100) / 10,
        health_p99_ms: Math.round(percentile(current.health, 99)),
        other_p99_ms: Math.round(percentile(current.other, 99)),
        other_requests: current.other.length,
        rss_peak_mb: Math.round(peak),
      });
      log(`heavy: ${JSON.stringify(rows.at(-1))}`);
    }
    const last = await probed('stop');
    const probe5xx = Object.entries(last.statuses).reduce((n, [s, c]) => n + (Number(s) >= 500 || Number(s) === 0 ? c : 0), 0);
    await sleep(opts.pauseMs ?? 10_000); // the idle collection (src/lib/idleCollect.ts) and the recycled solver instances
    const rssEnd = rss();
    const memEnd = await breakdown();
    return {
      drill: 'heavy',
      submitted: kinds.length * 2,
      completed: rows.length * 2,
      lost: 0,
      duplicated: 0,
      http_5xx: fivexx + t.all5xx + probe5xx,
      recovered_s: null,
      details: {
        rss_start_mb: Math.round(rssStart),
        rss_peak_mb: Math.max(...rows.map((r) => r.rss_peak_mb as number)),
        rss_end_mb: Math.round(rssEnd),
        // memory_peak: after the kind whose end showed the highest RSS (the breakdown is not sampled every 250 ms)
        memory: { start: memStart, peak: memPeak, end: memEnd },
        alive: server.proc.exitCode === null,
        kinds: rows,
      },
    };
  } finally {
    await server?.stop(10_000).catch(() => {});
  }
}
