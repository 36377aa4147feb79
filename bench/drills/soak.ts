// The soak drill: minutes of mixed load on a distributed deployment (an API process and a
// ROLE=worker process on private stores): list reads, async power flows, task polls,
// time-series writes, SSE and WebSocket clients listening throughout. Memory, event-loop
// delay (from the processes themselves, over IPC) and request p99 are recorded in windows;
// the first window (after a warm-up) and the last are compared.
import http from 'node:http';
import WebSocket from 'ws';
import { Deployment, Tally, call, log, percentile, settle, sleep, type DrillResult } from './common.js';
import type { Stores } from './queue.js';
import type { ProcessStats } from '../../test/helpers/process.js';

interface Window { at_s: number; api: ProcessStats; worker: ProcessStats; requests: number; p99_ms: number }

export async function soakDrill(stores: Stores, opts: { seconds: number; sse?: number; ws?: number; env?: Record<string, string> }): Promise<DrillResult> {
  const d = new Deployment({ databaseUrl: stores.postgres.url, redisUrl: stores.redis.url }, opts.env);
  const closers: (() => void)[] = [];
  let stopped = false;
  let liveErrors = 0;
  let sseEvents = 0;
  let wsEvents = 0;
  try {
    await d.start(1);
    const net = await d.importCase('case118');
    const token = d.headers.authorization!.slice('Bearer '.length);

    // Listeners that stay connected; an unexpected end is an error, and they reconnect.
    const sse = () => {
      if (stopped) return;
      const req = http.get(`${d.url}/api/v1/events/stream?topics=task,powerflow&token=${token}`, (res) => {
        if (res.statusCode !== 200) {
          liveErrors++;
          if (liveErrors === 1) log(`soak: SSE answered ${res.statusCode}`);
        }
        res.on('data', (c: Buffer) => { sseEvents += c.toString().match(/^id: /gm)?.length ?? 0; });
        res.on('end', () => { if (!stopped) { liveErrors++; setTimeout(sse, 1000); } });
        res.on('error', () => {});
      });
      req.on('error', () => { if (!stopped) { liveErrors++; setTimeout(sse, 1000); } });
      closers.push(() => req.destroy());
    };
    const ws = () => {
      if (stopped) return;
      const s = new WebSocket(`${d.url.replace(/^http/, 'ws')}/ws?token=${token}`);
      s.on('open', () => s.send(JSON.stringify({ type: 'subscribe', id: 'soak', topics: ['task', 'powerflow'] })));
      s.on('message', (m) => {
        const t = m.toString();
        if (t.includes('"type":"error"')) liveErrors++;
        else if (t.includes('"type":"event"')) wsEvents++;
      });
      s.on('close', () => { if (!stopped) { liveErrors++; setTimeout(ws, 1000); } });
      s.on('error', () => {});
      closers.push(() => s.terminate());
    };
    for (let i = 0; i < (opts.sse ?? 4); i++) sse();
    for (let i = 0; i < (opts.ws ?? 4); i++) ws();

    const tally = new Tally();
    let current = new Tally(); // this window's requests
    const accepted: string[] = [];
    const json = { ...d.headers, 'content-type': 'application/json' };
    let n = 0;
    const loop = async () => {
      while (!stopped) {
        const k = n++ % 20;
        const t = new Tally(); // this request, added to the run's and the window's
        let r;
        if (k < 8) r = await call(t, `${d.url}/api/v1/networks?page_size=20`, { headers: d.headers });
        else if (k < 12) {
          r = await call(t, `${d.url}/api/v1/networks/${net}/powerflow`, { method: 'POST', headers: json, body: '{"async":true}' });
          if (r.status === 202) accepted.push(r.body.data.task_id);
        } else if (k < 15 && accepted.length) r = await call(t, `${d.url}/api/v1/tasks/${accepted[accepted.length - 1]}`, { headers: d.headers });
        else {
          const now = Date.now();
          const points = Array.from({ length: 50 }, (_, i) => ({ metric: 'bus.voltage', value: 1 + Math.sin(now + i) / 100, timestamp: new Date(now - i * 1000).toISOString(), tags: { bus: String(i % 10) } }));
          r = await call(t, `${d.url}/api/v1/timeseries/batch`, { method: 'POST', headers: json, body: JSON.stringify({ points }) });
        }
        for (const into of [tally, current]) {
          if (r.status > 0) into.note(r.status, t.latencies[0]!);
          into.noAnswer += t.noAnswer;
        }
      }
    };
    const t0 = Date.now();
    const loops = Array.from({ length: 4 }, loop);
    // Windows: a sample every tenth of the run (at least every 5 s); the first one after a warm-up.
    const every = Math.max(5_000, (opts.seconds * 1000) / 10);
    const windows: Window[] = [];
    await Promise.all([d.api.stats(), d.workers[0]!.stats()]); // reset the delay histograms
    current = new Tally();
    while (Date.now() - t0 < opts.seconds * 1000) {
      await sleep(Math.min(every, opts.seconds * 1000 - (Date.now() - t0)));
      const [api, worker] = await Promise.all([d.api.stats(), d.workers[0]!.stats()]);
      windows.push({ at_s: Math.round((Date.now() - t0) / 1000), api, worker, requests: current.latencies.length, p99_ms: percentile(current.latencies, 99) });
      log(`soak ${windows.at(-1)!.at_s}s: api RSS ${api.rss_mb.toFixed(0)} MB, loop p99 ${api.loop_delay_p99_ms.toFixed(1)} ms, worker RSS ${worker.rss_mb.toFixed(0)} MB, ${current.latencies.length} requests p99 ${windows.at(-1)!.p99_ms.toFixed(0)} ms`);
      current = new Tally();
    }
    stopped = true;
    await Promise.all(loops);
    for (const c of closers) c();
    const l = await settle(d, accepted, 120_000);
    const first = windows[0]!, last = windows[windows.length - 1]!;
    const alive = d.alive();
    return {
      drill: 'soak', submitted: l.accepted, completed: l.completed, lost: l.lost, duplicated: l.finishedTwice + l.unacknowledged,
      http_5xx: tally.all5xx + tally.noAnswer, recovered_s: null,
      details: {
        seconds: opts.seconds, requests: tally.latencies.length, answers: tally.summary(), live_errors: liveErrors, sse_events: sseEvents, ws_events: wsEvents,
        rss_start_mb: Math.round(first.api.rss_mb), rss_end_mb: Math.round(last.api.rss_mb), worker_rss_start_mb: Math.round(first.worker.rss_mb), worker_rss_end_mb: Math.round(last.worker.rss_mb),
        loop_p99_start_ms: +first.api.loop_delay_p99_ms.toFixed(1), loop_p99_end_ms: +last.api.loop_delay_p99_ms.toFixed(1),
        p99_start_ms: Math.round(first.p99_ms), p99_end_ms: Math.round(last.p99_ms), api_alive: alive.api, workers_alive: alive.workers,
        windows: windows.map((w) => ({ at_s: w.at_s, rss_mb: Math.round(w.api.rss_mb), heap_mb: Math.round(w.api.heap_used_mb), loop_p99_ms: +w.api.loop_delay_p99_ms.toFixed(1), worker_rss_mb: Math.round(w.worker.rss_mb), requests: w.requests, p99_ms: Math.round(w.p99_ms) })),
      },
    };
  } finally {
    stopped = true;
    for (const c of closers) c();
    await d.destroy();
  }
}
