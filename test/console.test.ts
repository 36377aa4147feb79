// The operator console (/console/, docs/console.md) in a real browser: Debian's Chromium driven by
// playwright-core against a started gridops (production settings: helmet's CSP applies), embedded and
// distributed. Signs in, imports case118 by the file input, runs a power flow and sees the coloured
// drawing, runs an N-1 study and sees the ranked cases, acknowledges an alarm, watches a live event
// arrive. Screenshots of each view go to test-artifacts/console/ (not committed). If Chromium cannot
// start, the test fails and says so.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';
import { spawnGridops, type GridopsProcess } from './helpers/process.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';

// The page and the test's own calls all come from 127.0.0.1: at production limits (600 a minute, burst 50 per
// address) a fast run tripped the address's bucket and the page drew nothing (its layout read answered 429).
// These tests are about the console; the limits have their own tests (test/security-limits.test.ts).
const CONSOLE_SERVER_ENV = { NODE_ENV: 'production', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', WORKERS: '1', RATE_LIMIT_SCALE: '1000' };

// the page's globals, in the functions page.evaluate runs in the browser
declare const document: any, graphology: any, Sigma: any, getComputedStyle: any;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');
const PASSWORD = 'console-test-password';
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function launch(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
  } catch (e) {
    throw new Error(`Chromium could not start from ${CHROMIUM} (install the Debian package chromium, or set CHROMIUM_PATH): ${(e as Error).message}`);
  }
}

async function apiToken(base: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  return ((await r.json()) as { data: { token: string } }).data.token;
}

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`console in Chromium (${mode})`, { timeout: 240_000 }, () => {
    let server: GridopsProcess;
    let browser: Browser;
    let page: Page;
    let base: string;
    let dir: string;
    let case30 = '';
    const shot = async (name: string) => { await page.screenshot({ path: join(ARTIFACTS, `${mode}-${name}.png`) }); };

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      dir = mkdtempSync(join(tmpdir(), 'gridops-console-'));
      const env: Record<string, string> = { ...CONSOLE_SERVER_ENV, ADMIN_PASSWORD: PASSWORD, DATA_DIR: dir };
      if (mode === 'distributed') Object.assign(env, { DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: `console_${randomBytes(4).toString('hex')}`, GRIDOPS_REDIS_PREFIX: `gridops-console-${randomBytes(4).toString('hex')}` });
      server = await spawnGridops(env);
      base = server.url!;
      browser = await launch();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on('pageerror', (e) => { console.error(`page error: ${e.message}`); });
    });
    after(async () => {
      await browser?.close();
      await server?.stop(5000);
      rmSync(dir, { recursive: true, force: true });
    });

    it('signs in and shows the tenant and the role; the token stays out of the URL', async () => {
      await page.goto(`${base}/console/`);
      await page.fill('input[name=username]', 'admin');
      await page.fill('input[name=password]', 'wrong-password');
      await page.click('button[type=submit]');
      await page.waitForSelector('[role=alert]');
      assert.match(await page.textContent('[role=alert]') ?? '', /\S/, 'a failed sign-in says why');
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('#who');
      assert.match(await page.textContent('#who') ?? '', /admin · tenant default · admin/);
      assert.ok(!page.url().includes('ey'), 'no token in the URL');
      await shot('networks');
    });

    it('imports case118 through the file input, runs a power flow and colours the drawing', async () => {
      await page.setInputFiles('#import-file', join(CASES_DIR, 'case118.m'));
      await page.waitForSelector('#drawing[data-nodes="118"]');
      assert.equal(await page.getAttribute('#drawing', 'data-edges'), '186');
      assert.ok(await page.$('#drawing canvas'), 'sigma drew into canvases');
      await page.click('#run-powerflow');
      await page.waitForSelector('#drawing[data-colored="true"]');
      assert.match(await page.textContent('#legend') ?? '', /within limits/);
      assert.match(await page.textContent('#powerflow-summary') ?? '', /converged|completed/);
      assert.ok((await page.$$('#bus-results tbody tr')).length === 118);
      await shot('network');
      // Find by a bus's name (case118 names its buses): the details show it and the drawing flies to it
      await page.fill('#find input', 'olive v2');
      await page.click('#find button');
      await page.waitForSelector('#drawing[data-focused="bus:5"]');
      assert.match(await page.textContent('#details') ?? '', /Bus 5/);
      await page.fill('#find input', 'olive');
      await page.click('#find button');
      await page.waitForSelector('[role=alert]:has-text("2 buses have a name with")');
      assert.match(await page.textContent('[role=alert]') ?? '', /bus 5 olive v2, bus 8 olive v1/);
    });

    it('runs an N-1 study and ranks the cases, the worst drawn on the network and any other on request; an OPF\'s prices as colours', async () => {
      // case30 carries MATPOWER's ratings (case118 has none): its power flow colours loaded branches too
      const h = { authorization: `Bearer ${await apiToken(base)}` };
      const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, 'case30.m'), 'utf8') });
      case30 = ((await imp.json()) as { data: { id: string } }).data.id;
      await page.goto(`${base}/console/#/network/${case30}`);
      await page.waitForSelector('#drawing[data-nodes="30"]');
      await page.click('#run-powerflow');
      await page.waitForSelector('#drawing[data-colored="true"]');
      assert.equal(await page.getAttribute('#drawing', 'data-overloaded'), '1', 'branch 6-8 drawn as overloaded');
      await shot('network-case30');
      // buses coloured by a category of the model: case30 has three areas
      await page.selectOption('#color-by', 'area');
      await page.waitForSelector('#drawing[data-colored-by="area"]');
      assert.equal(await page.getAttribute('#drawing', 'data-categories'), '3');
      assert.match(await page.textContent('#legend') ?? '', /area 1.*area 2.*area 3/);
      await page.click('#run-study');
      await page.waitForSelector('#study-cases tbody tr', { timeout: 120_000 });
      const rows = await page.$$eval('#study-cases tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      assert.equal(rows.length, 41, 'every branch out once');
      const loadings = rows.filter((r) => r[1] === 'converged').map((r) => Number(r[2]));
      assert.ok(loadings.length > 30 && loadings.every((x) => x > 0));
      // case30's base case overloads branch 9: cases with new or worsened violations first, then those with only that
      // pre-existing one (greyed, class case-pre-existing), then the rest; each group ranked by loading, worst first
      const groups = await page.$$eval('#study-cases tbody tr',
        (trs) => trs.map((tr) => /case-(new|pre-existing|clean)/.exec(tr.className)?.[1] ?? ''));
      assert.equal(groups.length, rows.length);
      const order = { new: 0, 'pre-existing': 1, clean: 2 } as Record<string, number>;
      assert.ok(groups.every((g) => g in order), 'every row in a group');
      assert.deepEqual(groups, [...groups].sort((a, b) => order[a]! - order[b]!), 'new or worsened first, pre-existing apart after them');
      assert.ok(groups.includes('new') && groups.includes('pre-existing'), 'case30 has both');
      rows.forEach((r, i) => assert.equal(/^(\d+) \//.exec(r[4]!)?.[1] !== '0', groups[i] === 'new', `row ${r[0]}: group by new count`));
      for (const g of ['new', 'pre-existing']) {
        const l = rows.filter((r, i) => groups[i] === g && r[1] === 'converged').map((r) => Number(r[2]));
        assert.deepEqual(l, [...l].sort((a, b) => b - a), `the ${g} group ranked by loading, worst first`);
      }
      const grey = await page.$eval('#study-cases tbody tr.case-pre-existing td', (td) => getComputedStyle(td).color);
      assert.equal(grey, 'rgb(156, 163, 175)', 'pre-existing-only cases greyed');
      // Islanding isolate (the study default): branch 33 cuts bus 26 off; its 3.5 MW lost are shown.
      assert.match(await page.textContent('#study-summary') ?? '', /41 cases, 1 with lost load/);
      // violations split against the base case: new or worsened first, the base case's own (branch 9's overload) apart
      assert.match(await page.textContent('#study-summary') ?? '', /\d+ with new or worsened violations/);
      const split = rows.filter((r) => r[1] === 'converged').map((r) => /^(\d+) \/ (\d+)$/.exec(r[4]!));
      assert.ok(split.every((m) => m !== null), 'new / pre-existing counts in every solved row');
      assert.ok(split.some((m) => Number(m![1]) > 0) && split.some((m) => Number(m![2]) > 0));
      assert.equal(rows.find((r) => r[0] === 'branch:33')![5], '3.5');
      const worstRow = rows.find((r) => r[1] === 'converged')!;
      const worst = worstRow[0]!;
      // the worst case drawn on the network: its outage marked, what it overloads red
      assert.equal(await page.getAttribute('#drawing', 'data-case'), worst, 'the worst case is drawn');
      assert.equal(`branch:${await page.getAttribute('#drawing', 'data-case-outaged')}`, worst);
      if (Number(worstRow[2]) > 100) assert.ok(Number(await page.getAttribute('#drawing', 'data-case-overloaded')) >= 1, 'its overloads drawn red');
      // its new or worsened violations strong, branch 9's pre-existing overload muted, the legend saying which is which
      assert.ok(Number(await page.getAttribute('#drawing', 'data-case-new')) >= 1, 'the case drawn has a new violation');
      const newCount = Number(/^(\d+) \/ (\d+)$/.exec(worstRow[4]!)![1]), oldCount = Number(/^(\d+) \/ (\d+)$/.exec(worstRow[4]!)![2]);
      assert.equal(await page.getAttribute('#drawing', 'data-case-new'), String(newCount));
      assert.equal(await page.getAttribute('#drawing', 'data-case-pre-existing'), String(oldCount));
      assert.match(await page.textContent('#legend') ?? '', /new \/ worsened overload.*pre-existing overload/);
      await shot('study');
      // another case chosen in the table: branch 33 out leaves bus 26 without supply, drawn grey
      await page.click('#study-cases button[data-case="branch:33"]');
      await page.waitForSelector('#drawing[data-case="branch:33"]');
      assert.equal(await page.getAttribute('#drawing', 'data-case-deenergized'), '1');
      assert.equal(await page.getAttribute('#study-cases button[data-case="branch:33"]', 'aria-pressed'), 'true');
      await shot('study-case-islanded');
      // the network's dashboard: the power flow, the study's worst cases, the alarm it raised, the queue
      // (the dashboard's worst cases are by loading alone)
      await page.waitForSelector('#dashboard[data-worst^="branch:"]');
      const dashId = await page.getAttribute('#dashboard', 'data-worst');
      const dashWorst = rows.find((r) => r[0] === dashId)!;
      assert.equal(Number(dashWorst[2]), Math.max(...loadings));
      assert.match(await page.textContent('#dash-powerflow') ?? '', /converged, \d+ iterations/);
      assert.equal((await page.$$('#dash-worst li')).length, 3);
      assert.ok(Number(await page.getAttribute('#dashboard', 'data-alarms')) >= 1, 'the overload alarm of the power flow');
      assert.match(await page.textContent('#dash-queue') ?? '', /queued or running/);
      // and an OPF with its method chosen: the dispatch table and the drawing coloured by its flows
      await page.selectOption('#opf-method', 'dc');
      await page.click('#run-opf');
      await page.waitForSelector('#opf-generators tbody tr');
      assert.match(await page.textContent('main') ?? '', /OPF: converged, objective 5\d\d\.\d\d per hour/);
      assert.equal((await page.$$('#opf-generators tbody tr')).length, 6);
      // its prices as bus colours, with the bins in the legend
      await page.waitForSelector('#drawing[data-priced="true"]');
      assert.ok(Number(await page.getAttribute('#drawing', 'data-lmp-min')) <= Number(await page.getAttribute('#drawing', 'data-lmp-max')));
      assert.match(await page.textContent('#legend') ?? '', /Buses, LMP per MWh/);
      assert.equal(await page.getAttribute('#legend', 'data-drawn'), 'opf');
      await shot('opf');
      // the N-1 secure OPF beside it: MATPOWER's binding post-contingency row (branch 34 after outage 35)
      await page.check('#opf-secure');
      await page.click('#run-opf');
      await page.waitForSelector('#opf-binding tbody tr');
      assert.match(await page.textContent('main') ?? '', /OPF: converged, objective 565\.35 per hour/);
      const binding = await page.$$eval('#opf-binding tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      assert.deepEqual(binding.map((r) => [r[0], r[1]]), [['35', '34']]);
      // a branch found by its index, and its PTDF drawn: buses coloured by the MW they put on it
      await page.fill('#find input', 'branch 34');
      await page.click('#find button');
      await page.waitForSelector('#run-ptdf');
      await page.click('#run-ptdf');
      await page.waitForSelector('#drawing[data-ptdf-branch="34"]');
      assert.match(await page.textContent('#ptdf-top') ?? '', /MW on this branch per MW injected/);
      assert.ok(Math.abs(Number(await page.getAttribute('#drawing', 'data-ptdf-strongest'))) > 0.1, 'some bus loads branch 34 noticeably');
      await shot('ptdf');
      await page.fill('#find input', 'bus 999');
      await page.click('#find button');
      await page.waitForSelector('[role=alert]:has-text("bus 999 is not in this network")');
    });

    it('draws with sigma\'s programs without instancing exactly as with its instanced ones (console/programs.js)', async () => {
      // the same small graph (circles, a plain and an arrow branch of several widths) by both, pixel for pixel
      const drawn = await page.evaluate(async () => {
        const programs = '/console/programs.js';
        const { PROGRAMS_WITHOUT_INSTANCING } = await import(programs);
        const pixels = (settings: Record<string, unknown>): Uint8Array[] => {
          const box = document.createElement('div');
          box.style.cssText = 'width:400px;height:300px;position:fixed;left:0;top:0';
          document.body.appendChild(box);
          try {
            const g = new graphology.Graph();
            g.addNode('a', { x: 0, y: 0, size: 8, color: '#dc2626' });
            g.addNode('b', { x: 1, y: 1, size: 5, color: '#16a34a' });
            g.addNode('c', { x: 1, y: 0, size: 12, color: '#2563eb' });
            g.addEdge('a', 'b', { size: 3, color: '#111827' });
            g.addEdge('b', 'c', { size: 6, color: '#f59e0b', type: 'arrow' });
            g.addEdge('c', 'a', { size: 1, color: '#9ca3af', type: 'arrow' });
            const s = new Sigma(g, box, { renderLabels: false, ...settings });
            s.render();
            const out = [s.webGLContexts.edges, s.webGLContexts.nodes].map((gl) => {
              const px = new Uint8Array(4 * gl.drawingBufferWidth * gl.drawingBufferHeight);
              gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px);
              return px;
            });
            s.kill();
            return out;
          } finally {
            box.remove();
          }
        };
        const instanced = pixels({}), plain = pixels(PROGRAMS_WITHOUT_INSTANCING);
        let differ = 0, painted = 0, length = 0;
        instanced.forEach((a, k) => {
          const b = plain[k]!;
          length += a.length;
          for (let i = 0; i < a.length; i++) { if (a[i] !== b[i]) differ++; if (a[i] !== 0) painted++; }
        });
        return { differ, painted, length };
      });
      assert.ok(drawn.painted > 1000, `something was drawn (${drawn.painted} non-zero bytes)`);
      assert.equal(drawn.differ, 0, `${drawn.differ} of ${drawn.length} bytes differ`);
    });

    it('acknowledges an alarm, and shows a live event as it arrives', async () => {
      // the case30 power flow above overloaded branch 6-8, which raised an alarm
      const h = { authorization: `Bearer ${await apiToken(base)}` };
      const net = case30;
      await page.click('a[href="#/alarms"]');
      await page.waitForSelector('button[data-alarm]');
      await shot('alarms');
      await page.click('button[data-alarm]');
      await page.waitForSelector('#alarms td:has-text("acknowledged")');
      await page.click('a[href="#/events"]');
      await page.selectOption('#event-topic', 'task');
      // The task stream is open (its system.connected arrived) before the power flow is started.
      await page.waitForSelector('#events[data-live="task"]');
      const before = (await page.$$('#events div[data-topic="task"]')).length;
      await fetch(`${base}/api/v1/networks/${net}/powerflow`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"async": true}' });
      // (a selector, not a predicate function: the console's CSP forbids the eval a string predicate needs)
      await page.waitForSelector(`#events div[data-topic="task"] >> nth=${before}`);
      await shot('events');
    });

    it('imports by drag and drop and exports a network as a MATPOWER file', async () => {
      await page.click('a[href="#/networks"]');
      await page.waitForSelector('.drop');
      const text = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
      const dt = await page.evaluateHandle((t: string) => {
        const g = globalThis as unknown as { DataTransfer: new () => { items: { add(f: unknown): void } }; File: new (parts: string[], name: string) => unknown };
        const d = new g.DataTransfer();
        d.items.add(new g.File([t], 'case9.m'));
        return d;
      }, text);
      await page.dispatchEvent('.drop', 'drop', { dataTransfer: dt });
      await page.waitForSelector('#drawing[data-nodes="9"]');
      await page.click('a[href="#/networks"]');
      await page.waitForSelector('#networks tbody tr');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#networks tbody tr:has-text("case9") button')]);
      assert.equal(download.suggestedFilename(), 'case9.m');
      const path = await download.path();
      assert.match(readFileSync(path, 'utf8'), /mpc\.bus = \[/);
      // PSS/E files by their extension: RAWX and RAW (the latter's warnings are shown in a dialog)
      const psse = join(SHARED_DIR, 'reference', 'psse', 'cases');
      await page.click('a[href="#/networks"]');
      await page.setInputFiles('#import-file', join(psse, 'powsybl', 'IEEE_14_bus_rev35.rawx'));
      await page.waitForSelector('#drawing[data-nodes="14"]');
      const dialog = page.waitForEvent('dialog');
      await page.click('a[href="#/networks"]');
      await page.setInputFiles('#import-file', join(psse, 'matpower', 't_psse_case3.raw'));
      const d = await dialog;
      assert.match(d.message(), /VSC_DC_NOT_MODELLED/);
      await d.dismiss();
      await page.waitForSelector('#drawing[data-nodes="46"]');
    });

    it('tasks and time series views work against the API', async () => {
      await page.click('a[href="#/tasks"]');
      await page.waitForSelector('#tasks tbody tr');
      await shot('tasks');
      const token = await apiToken(base);
      const now = Date.now();
      const points = Array.from({ length: 60 }, (_, k) => ({ metric: 'console.test.load', value: 100 + k, timestamp: new Date(now - (60 - k) * 60_000).toISOString() }));
      await fetch(`${base}/api/v1/timeseries/batch`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ points }) });
      await page.click('a[href="#/timeseries"]');
      await page.fill('#ts-metric', 'console.test.load');
      await page.click('form button[type=submit]');
      await page.waitForSelector('#ts-info');
      assert.match(await page.textContent('#ts-info') ?? '', /[1-9]\d* points/);
      assert.ok(await page.$('#chart canvas'), 'uPlot drew the chart');
      await shot('timeseries');
    });

    it('draws the de-energized part of a split network grey and lists it (islanding isolate)', async () => {
      const m = parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
      const split = writeMatpower({ ...m, name: 'case118_split', branches: m.branches.map((b, k) => (k === 6 || k === 183 ? { ...b, status: 'open' as const } : b)) });
      const h = { authorization: `Bearer ${await apiToken(base)}` };
      const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: split });
      const id = ((await imp.json()) as { data: { id: string } }).data.id;
      await page.goto(`${base}/console/#/network/${id}`);
      await page.waitForSelector('#drawing[data-nodes="118"]');
      await page.selectOption('#islanding', 'isolate');
      await page.click('#run-powerflow');
      // the drawing coloured, or the sentence the view shows instead (the test then fails with it)
      await page.waitForSelector('#drawing[data-colored="true"], [role=alert]:not(:empty)');
      assert.equal(await page.getAttribute('#drawing', 'data-colored'), 'true', `the view said: ${await page.textContent('[role=alert]', { timeout: 1000 }).catch(() => '')}`);
      assert.equal(await page.getAttribute('#drawing', 'data-deenergized'), '3', 'buses 9, 10 and 117 drawn grey');
      assert.match(await page.textContent('#deenergized') ?? '', /buses 9, 10; bus 117 \(20\.0 MW of load and 450\.0 MW of generation lost\)/);
      assert.match(await page.textContent('#legend') ?? '', /de-energized/);
      await shot('islands');
    });
    it('estimates the state from inline measurements with a gross error, lists it as bad data and colours the drawing', async () => {
      // MATPOWER Extras' case14 measurement set (shared/reference/state-estimation) with 100 MW added to the first
      // reading (p_from of branch 0): the largest normalized residual removes it first
      const h = { authorization: `Bearer ${await apiToken(base)}` };
      const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`,
        { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, 'case14.m'), 'utf8') });
      const case14 = ((await imp.json()) as { data: { id: string } }).data.id;
      const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'state-estimation', 'a_case14_test_se_14bus.json'), 'utf8')) as
        { measurements: { kind: string, element: number, value: number, sigma: number }[] };
      const measurements = ref.measurements.map((m, i) => (i === 0 ? { ...m, value: m.value + 100 } : m));
      await page.goto(`${base}/console/#/network/${case14}`);
      await page.waitForSelector('#drawing[data-nodes="14"]');
      assert.equal(await page.$('#powerflow-summary'), null, 'no result of another network carried over');
      await page.click('#se-controls summary');
      await page.fill('#se-measurements', JSON.stringify({ measurements }));
      await page.click('#run-se');
      await page.waitForSelector('#se-bad-data tbody tr');
      const bad = await page.$$eval('#se-bad-data tbody tr',
        (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      assert.deepEqual(bad[0]!.slice(0, 3), ['0', 'p_from', '0'], 'the gross error removed first');
      assert.ok(Number(bad[0]![4]) > 3, 'its normalized residual above the threshold');
      assert.equal(await page.getAttribute('#se-summary', 'data-status'), 'converged');
      assert.match(await page.textContent('#se-summary') ?? '', /J \d+\.\d\d ≤ χ²\(0\.99, \d+\) = \d+\.\d\d \(passed\),\s+dof \d+/);
      assert.match(await page.textContent('#se-observability') ?? '', /^observable$/);
      await page.waitForSelector('#drawing[data-colored="true"]');
      assert.equal(await page.getAttribute('#legend', 'data-drawn'), 'estimate');
      await shot('state-estimate');
      // an unparsable paste is refused in the page, as a sentence
      await page.fill('#se-measurements', '[{');
      await page.click('#run-se');
      await page.waitForSelector('[role=alert]:has-text("not JSON")');
    });

  });
}

describe('console for a viewer', { timeout: 120_000 }, () => {
  let server: GridopsProcess;
  let browser: Browser;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gridops-console-'));
    server = await spawnGridops({ ...CONSOLE_SERVER_ENV, ADMIN_PASSWORD: PASSWORD, DATA_DIR: dir });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not offer what the role may not do (import, run, cancel, acknowledge)', async () => {
    const base = server.url!;
    const h = { authorization: `Bearer ${await apiToken(base)}`, 'content-type': 'application/json' };
    const made = await fetch(`${base}/api/v1/admin/users`, { method: 'POST', headers: h, body: JSON.stringify({ username: 'vera', password: 'viewer-password-1', role: 'viewer', tenant_id: 'default' }) });
    assert.ok(made.status < 300, await made.text());
    const imp = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, 'case9.m'), 'utf8') });
    const id = ((await imp.json()) as { data: { id: string } }).data.id;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/console/`);
    await page.fill('input[name=username]', 'vera');
    await page.fill('input[name=password]', 'viewer-password-1');
    await page.click('button[type=submit]');
    await page.waitForSelector('#networks tbody tr');
    assert.match(await page.textContent('#who') ?? '', /vera · tenant default · viewer/);
    assert.equal(await page.$('#import-file'), null, 'no import for a viewer');
    await page.click(`a[href="#/network/${id}"]`);
    await page.waitForSelector('#drawing[data-nodes="9"]');
    assert.equal(await page.$('#run-powerflow'), null, 'no power flow button for a viewer');
    assert.match(await page.textContent('main') ?? '', /needs the operator role/);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-network.png') });
  });
});
