// The console on a real network (#27): case9241pegase in Chromium (playwright-core, Debian's chromium), both
// modes. Its drawing comes from the server's stored layout (data-layout), shows its zones when zoomed out and
// every bus once zoomed in (level of detail), a power flow colours it with flow
// widths and arrows whose directions are the result's (data-flows-against = branches flowing to -> from),
// and a network with coordinates is drawn north up. Screenshots go to test-artifacts/console/. Timing is
// bench/console.ts's job, not this test's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { spawnGridops, type GridopsProcess } from './helpers/process.js';

// The page and the test's own calls all come from 127.0.0.1: at production limits (600 a minute, burst 50 per
// address) a fast run tripped the address's bucket and the page drew nothing (its layout read answered 429).
// These tests are about the console; the limits have their own tests (test/security-limits.test.ts).
const CONSOLE_SERVER_ENV = { NODE_ENV: 'production', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', WORKERS: '1', RATE_LIMIT_SCALE: '1000' };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');
const PASSWORD = 'console-large-password';
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// the page's globals, in the functions page.evaluate runs in the browser
declare const document: any, sessionStorage: any, requestAnimationFrame: any;

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`console on case9241pegase in Chromium (${mode})`, { timeout: 600_000 }, () => {
    let server: GridopsProcess;
    let browser: Browser;
    let page: Page;
    let base: string;
    let dir: string;
    let auth: Record<string, string>;
    // a fresh document (a hash change alone keeps the page, signed out as it was loaded)
    const open = async (hash: string) => { await page.goto('about:blank'); await page.goto(`${base}/console/${hash}`); };

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      dir = mkdtempSync(join(tmpdir(), 'gridops-console-large-'));
      const env: Record<string, string> = { ...CONSOLE_SERVER_ENV, ADMIN_PASSWORD: PASSWORD, DATA_DIR: dir };
      if (mode === 'distributed') Object.assign(env, { DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: `console_large_${randomBytes(4).toString('hex')}`, GRIDOPS_REDIS_PREFIX: `gridops-console-large-${randomBytes(4).toString('hex')}` });
      server = await spawnGridops(env);
      base = server.url!;
      try {
        browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
      } catch (e) {
        throw new Error(`Chromium could not start from ${CHROMIUM} (install the Debian package chromium, or set CHROMIUM_PATH): ${(e as Error).message}`);
      }
      page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      page.on('pageerror', (e) => { console.error(`page error: ${e.message}`); });
      page.on('requestfailed', (r) => { console.error(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`); });
      page.on('response', (r) => { if (r.status() >= 500) console.error(`answer ${r.status()}: ${r.request().method()} ${r.url()}`); });
      const r = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
      const token = ((await r.json()) as { data: { token: string } }).data.token;
      auth = { authorization: `Bearer ${token}` };
      await page.goto(`${base}/console/`);
      await page.evaluate((t) => sessionStorage.setItem('gridops.console.token', t), token);
    });
    after(async () => {
      await browser?.close();
      await server?.stop(5000);
      rmSync(dir, { recursive: true, force: true });
    });

    it('draws case9241pegase from the stored layout, then a power flow with flow widths and directions', async () => {
      const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, 'case9241pegase.m'), 'utf8') });
      assert.equal(imp.status, 201);
      const net = ((await imp.json()) as { data: { id: string; bus_count: number; branch_count: number } }).data;
      // Issue 35: one operator opening a large network must not spend the per-address burst by itself. Every request
      // of the page load (the console's files and its API reads) takes a token of the address's bucket at production
      // limits (src/security/settings.ts: authenticated, burst 50); a cold load is counted here, the drawing done.
      const sent: string[] = [];
      const count = (r: { url(): string }) => { if (r.url().startsWith(base)) sent.push(r.url()); };
      page.on('request', count);
      await open(`#/network/${net.id}`);
      await page.waitForSelector(`#drawing[data-nodes="${net.bus_count}"]`, { timeout: 300_000 });
      page.off('request', count);
      const api = sent.filter((u) => u.includes('/api/'));
      console.log(`# ${mode}: opening the network sent ${sent.length} requests, ${api.length} of them API reads`);
      assert.ok(sent.length <= 40, `opening a 9,241-bus network sent ${sent.length} requests (burst 50): ${sent.join(' ')}`);
      assert.ok(api.length <= 10, `opening a 9,241-bus network made ${api.length} API reads: ${api.join(' ')}`);
      assert.equal(await page.getAttribute('#drawing', 'data-layout'), 'computed');
      assert.equal(await page.getAttribute('#drawing', 'data-edges'), String(net.branch_count));
      // zoomed out it is drawn as its 24 zones (one area), every bus once zoomed in (a Find flies in)
      assert.equal(await page.getAttribute('#drawing', 'data-overview'), 'true');
      assert.equal(await page.getAttribute('#drawing', 'data-grouped-by'), 'zone');
      assert.equal(await page.getAttribute('#drawing', 'data-groups'), '24');
      await page.screenshot({ path: join(ARTIFACTS, `${mode}-case9241pegase-zones.png`) });
      // a view set in one step from the zones to a deep zoom draws the buses there (the zones are framed by the buses'
      // extent from the start, so the first cull is around the view)
      const seen = await page.evaluate(async () => {
        const d = document.getElementById('drawing').gridopsDrawing;
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        d.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 0.05, angle: 0 });
        await frame(); await frame();
        // the view's centre is the buses' extent's centre: the buses handed to sigma are around it
        const { x: [x0, x1], y: [y0, y1] } = d.bbox, cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, r = d.built;
        d.sigma.render();
        const gl = d.sigma.webGLContexts.nodes;
        const px = new Uint8Array(4 * gl.drawingBufferWidth * gl.drawingBufferHeight);
        gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px);
        let painted = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
        return { around: r.x0 <= cx && cx <= r.x1 && r.y0 <= cy && cy <= r.y1, region: r, centre: [cx, cy], painted, overview: d.overview };
      });
      assert.equal(seen.overview, false);
      assert.ok(seen.around, `culled region ${JSON.stringify(seen.region)} around the view's centre ${seen.centre}`);
      assert.ok(seen.painted > 100, `${seen.painted} pixels of buses painted`);
      await page.evaluate(() => document.getElementById('drawing').gridopsDrawing.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 }));
      await page.waitForSelector('#drawing[data-overview="true"]');
      await page.fill('#find input', 'bus 1');
      await page.click('#find button');
      await page.waitForSelector('#drawing[data-focused="bus:1"][data-overview="false"]');
      // branches are left out of frames while the camera moves: the picture once it has stopped
      await page.waitForFunction(() => !document.getElementById('drawing').gridopsDrawing.sigma.getCamera().isAnimated());
      // zoomed in, sigma draws the buses in and around the view, not all of them
      const drawnBuses = Number(await page.getAttribute('#drawing', 'data-drawn-buses'));
      assert.ok(drawnBuses > 0 && drawnBuses < net.bus_count, `${drawnBuses} buses drawn around bus 1`);
      await page.screenshot({ path: join(ARTIFACTS, `${mode}-case9241pegase.png`) });
      // the layout is the one stored with the version: the page drew exactly the server's positions
      const layout = ((await (await fetch(`${base}/api/v1/networks/${net.id}/layout`, { headers: auth })).json()) as { data: { bus_ids: number[]; positions: number[] } }).data;
      const drawn = await page.evaluate((ids) => {
        const g = document.getElementById('drawing').gridopsDrawing.graph;
        return ids.flatMap((id: number) => { const a = g.getNodeAttributes(String(id)); return [a.x, a.y]; });
      }, layout.bus_ids.slice(0, 50));
      assert.deepEqual(drawn, layout.positions.slice(0, 100));

      await page.click('#run-powerflow');
      await page.waitForSelector('#drawing[data-colored="true"]', { timeout: 300_000 });
      await page.screenshot({ path: join(ARTIFACTS, `${mode}-case9241pegase-powerflow.png`) });
      const pf = ((await (await fetch(`${base}/api/v1/networks/${net.id}/powerflow`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })).json()) as { data: { branches: { p_from: number }[] } }).data;
      const against = pf.branches.filter((b) => b.p_from < 0).length;
      assert.ok(against > 0, 'some branches carry power from their to end');
      assert.equal(await page.getAttribute('#drawing', 'data-flows-against'), String(against), 'one arrow turned round per branch flowing to -> from');
      assert.equal(await page.getAttribute('#drawing', 'data-flow-arrows'), String(pf.branches.length));
      assert.match(await page.textContent('#legend') ?? '', /arrow: its direction/);
      // what sigma draws zoomed in carries the result: every drawn bus and branch as coloured in the network's graph
      const mismatched = await page.evaluate(() => {
        const d = document.getElementById('drawing').gridopsDrawing, shown = d.sigma.getGraph();
        let bad = 0;
        shown.forEachNode((k: string, a: { color: string }) => { if (d.graph.getNodeAttribute(k, 'color') !== a.color) bad++; });
        shown.forEachEdge((k: string, a: { color: string; size: number }, s: string) => { if (d.graph.getEdgeAttribute(k, 'color') !== a.color || d.graph.source(k) !== s) bad++; });
        return [bad, shown.order];
      });
      assert.equal(mismatched[0], 0, `${mismatched[0]} of the drawn elements differ from the network's graph`);
      assert.ok(mismatched[1] < net.bus_count, 'a culled graph is drawn');
      // an arrow points from the sending end: check one reversed branch in the page's graph
      const k = pf.branches.findIndex((b) => b.p_from < 0);
      const model = ((await (await fetch(`${base}/api/v1/networks/${net.id}`, { headers: auth })).json()) as { data: { branches: { from: number; to: number }[] } }).data;
      const ends = await page.evaluate((key) => { const g = document.getElementById('drawing').gridopsDrawing.graph; return [g.source(key), g.target(key), g.getEdgeAttribute(key, 'type')]; }, `b${k}`);
      assert.deepEqual(ends, [String(model.branches[k]!.to), String(model.branches[k]!.from), 'arrow']);
    });

    it('draws a network with coordinates as given, north up and east right', async () => {
      const body = { name: 'geo', buses: [{ id: 1, type: 'slack', lat: 60, lon: 10 }, { id: 2, type: 'pq', lat: 58, lon: 10 }, { id: 3, type: 'pq', lat: 60, lon: 13 }],
        branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }, { from: 1, to: 3, r: 0.01, x: 0.1 }], loads: [{ bus: 2, mw: 10 }] };
      const made = await fetch(`${base}/api/v1/networks`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const id = ((await made.json()) as { data: { id: string } }).data.id;
      await open(`#/network/${id}`);
      // 60 s: once in a CI run (distributed, loaded machine) the drawing had not appeared after 30 s; what the page
      // showed then is printed, so a next failure says where it stood
      await page.waitForSelector('#drawing[data-nodes="3"][data-layout="coordinates"]', { timeout: 60_000 }).catch(async (e: Error) => {
        const seen = await page.evaluate(() => {
          const d = document.getElementById('drawing');
          return JSON.stringify({ drawing: d ? { ...d.dataset } : null, text: (document.body.textContent ?? '').slice(0, 800) });
        });
        throw new Error(`${e.message}\nthe page: ${seen}`);
      });
      const at = await page.evaluate(() => {
        const d = document.getElementById('drawing').gridopsDrawing;
        return ['1', '2', '3'].map((n) => d.sigma.graphToViewport(d.graph.getNodeAttributes(n)));
      });
      assert.ok(at[0].y < at[1].y, `bus 1 (60°N) above bus 2 (58°N) on screen: ${at[0].y} < ${at[1].y}`);
      assert.ok(at[2].x > at[0].x, 'bus 3 (13°E) right of bus 1 (10°E)');
    });
  });
}
