// The console in a real browser on a large network (#27 item 5): Debian's Chromium (playwright-core) against a
// started embedded gridops, case9241pegase imported. Measured:
//   first drawing   navigation to the network view until it is drawn (a large network: its zones or areas), the
//                   server computing the layout (GET /networks/{id}/layout: first request of this version)
//   kept layout     a reload: the same, the layout read from the version it is stored with
//   case switch     drawing one N-1 case on it (graph.js drawCase) until the next frame is painted, zoomed out
//                   (the groups) and zoomed in on every bus
//   pan / zoom      frames per second while the camera pans zoomed out (the areas or zones), then zooms in and
//                   pans (every bus), 2 s per move
//
//   npm run bench:console                # table on stdout
//   npm run bench:console -- --json      # [{measure, value, unit}]
//   npm run bench:console -- --case case2383wp
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { CASES_DIR } from '../src/paths.js';
import { spawnGridops } from '../test/helpers/process.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const CASE = args.includes('--case') ? args[args.indexOf('--case') + 1]! : 'case9241pegase';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'bench-console-password';
const log = (s: string) => process.stderr.write(`${s}\n`);
// the page's globals, in the functions page.evaluate runs in the browser
declare const document: any, requestAnimationFrame: any, sessionStorage: any;

interface Row { measure: string; value: number; unit: string; goal: string }

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-bench-console-'));
  const server = await spawnGridops({ NODE_ENV: 'production', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD, DATA_DIR: dir, WORKERS: '1', RATE_LIMIT_SCALE: '1000000' }, { inheritEnv: true, keepLines: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
  const rows: Row[] = [];
  const load0 = loadavg()[0]!;
  try {
    const base = server.url!;
    const token = ((await (await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) })).json()) as { data: { token: string } }).data.token;
    const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, `${CASE}.m`), 'utf8') });
    const net = ((await imp.json()) as { data: { id: string; bus_count: number; branch_count: number } }).data;
    log(`${CASE}: ${net.bus_count} buses, ${net.branch_count} branches imported`);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${base}/console/`);
    await page.evaluate((t) => sessionStorage.setItem('gridops.console.token', t), token);

    const drawnIn = async (): Promise<number> => {
      await page.goto('about:blank'); // a fresh document each time (a hash change alone keeps the page)
      const t = performance.now();
      await page.goto(`${base}/console/#/network/${net.id}`);
      await page.waitForSelector(`#drawing[data-nodes="${net.bus_count}"]`, { timeout: 300_000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      return performance.now() - t;
    };
    const first = await drawnIn();
    const kept = await drawnIn();
    rows.push({ measure: 'first drawing (layout computed by the server)', value: first, unit: 'ms', goal: '' });
    rows.push({ measure: 'drawing with the layout stored (this version)', value: kept, unit: 'ms', goal: '< 2,000 ms (layout cached)' });

    // a case switch: one outage, its overloads and a de-energized bus, drawn until the next painted frame; zoomed out
    // (a large network shows its groups: the case is drawn on the buses, not painted) and zoomed in on every bus
    const caseSwitch = (ratio: number) => page.evaluate(async ({ nl, r }) => {
      const d = document.getElementById('drawing').gridopsDrawing as { drawCase(row: unknown): void; sigma: { getCamera(): { setState(s: Record<string, number>): void } } };
      d.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: r, angle: 0 });
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const times: number[] = [];
      for (let k = 0; k < 11; k++) {
        const row = { case_id: `branch:${k}`, contingency: { branches: [k * 97 % nl] }, violations: [{ type: 'branch_overload', element: (k * 31 + 5) % nl }], islanded: k % 2 ? { buses: [], load_mw: 0, generation_mw: 0 } : undefined };
        const t = performance.now();
        d.drawCase(row);
        await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
        times.push(performance.now() - t);
      }
      return times.slice(1).sort((a, b) => a - b);
    }, { nl: net.branch_count, r: ratio });
    const median = (v: number[]) => v[Math.floor(v.length / 2)]!;
    rows.push({ measure: 'case switch, zoomed out (median of 10)', value: median(await caseSwitch(1)), unit: 'ms', goal: '< 200 ms' });
    rows.push({ measure: 'case switch, zoomed in on every bus (median of 10)', value: median(await caseSwitch(0.25)), unit: 'ms', goal: '< 200 ms' });
    await page.evaluate(async () => {
      document.getElementById('drawing').gridopsDrawing.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    });

    // frames painted while the camera zooms in and pans (sigma animates on requestAnimationFrame)
    // zoomed out a large network is drawn as its areas or zones (graph.js level of detail), zoomed in bus by bus
    const fps = (steps: Record<string, number>[]) => page.evaluate(async (moves) => {
      const d = document.getElementById('drawing').gridopsDrawing as { sigma: { getCamera(): { animate(s: Record<string, number>, o: { duration: number }): Promise<void> } } };
      const camera = d.sigma.getCamera();
      let frames = 0, counting = true;
      const count = () => { frames++; if (counting) requestAnimationFrame(count); };
      const t = performance.now();
      requestAnimationFrame(count);
      for (const m of moves) await camera.animate(m, { duration: 2000 });
      counting = false;
      return frames / ((performance.now() - t) / 1000);
    }, steps);
    rows.push({ measure: 'pan, zoomed out (the areas or zones: frames per second, software WebGL)', value: await fps([{ x: 0.4, y: 0.6 }, { x: 0.5, y: 0.5 }]), unit: 'fps', goal: '≥ 30' });
    rows.push({ measure: 'zoom in and pan (every bus: frames per second, software WebGL)', value: await fps([{ ratio: 0.25 }, { x: 0.3, y: 0.7 }]), unit: 'fps', goal: '≥ 30' });

    // the server's part of a first drawing: the same case imported again (a network never laid out: a JSON PUT of
    // 9,241 buses is past the 1 MB body limit), laid out on a solver thread and stored by its first GET /layout
    const h = { authorization: `Bearer ${token}` };
    const again = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, `${CASE}.m`), 'utf8') });
    if (again.status !== 201) throw new Error(`second import: ${again.status}`);
    const second = ((await again.json()) as { data: { id: string } }).data.id;
    const t0 = performance.now();
    const laid = await fetch(`${base}/api/v1/networks/${second}/layout`, { headers: h });
    if (laid.status !== 200) throw new Error(`layout: ${laid.status}`);
    await laid.arrayBuffer();
    rows.push({ measure: 'layout of a network never laid out (its first GET /layout: computed on a solver thread and stored)', value: performance.now() - t0, unit: 'ms', goal: '' });
  } finally {
    await browser.close();
    await server.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  }
  if (asJson) { process.stdout.write(`${JSON.stringify(rows.map(({ measure, value, unit }) => ({ measure, value: Math.round(value * 10) / 10, unit })))}\n`); return; }
  const out = [`${CASE}, Chromium ${CHROMIUM} (headless, SwiftShader WebGL), 1440×900; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`, '',
    '| measure | value | goal (#27) |', '|---|---:|---|',
    ...rows.map((r) => `| ${r.measure} | ${r.unit === 'fps' ? r.value.toFixed(1) : Math.round(r.value).toLocaleString('en')} ${r.unit} | ${r.goal} |`)];
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((e: unknown) => { log(String((e as Error)?.stack ?? e)); process.exitCode = 1; });
