// The gridops operator console: Preact + htm (one ES module, no build step), the public API only
// (./api.js). Views: sign in, networks, one network (drawing, power flow, study, OPF), tasks,
// alarms, events, time series. docs/console.md.
import { html, render, useState, useEffect, useRef, useMemo } from '/console/vendor/preact-htm.js';
import { api, session, sentence, listen, download, may } from '/console/api.js';
import { NetworkDrawing, VOLTAGE_COLORS, LOADING_COLORS, DEENERGIZED_COLOR, PTDF_COLORS } from '/console/graph.js';

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : x ?? '');

function useRoute() {
  const [hash, setHash] = useState(location.hash || '#/networks');
  useEffect(() => { const on = () => setHash(location.hash || '#/networks'); addEventListener('hashchange', on); return () => removeEventListener('hashchange', on); }, []);
  return hash.slice(2).split('/');
}

function ErrorBox({ error }) {
  return error ? html`<div class="error" role="alert">${sentence(error)}</div>` : null;
}

/** A table whose columns sort (click a header) and whose rows filter (text box). */
function Table({ columns, rows, id, rowClass, initialSort }) {
  const [sort, setSort] = useState(initialSort ?? null);
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    let out = f ? rows.filter((r) => columns.some((c) => String(c.value(r) ?? '').toLowerCase().includes(f))) : rows.slice();
    if (sort) {
      const col = columns.find((c) => c.key === sort.key);
      out.sort((a, b) => { const x = col.value(a), y = col.value(b); return (x < y ? -1 : x > y ? 1 : 0) * sort.dir; });
    }
    return out;
  }, [rows, sort, filter]);
  return html`<div>
    <div class="row"><label>Filter <input aria-label="filter rows" value=${filter} onInput=${(e) => setFilter(e.target.value)} /></label><span class="muted">${shown.length} of ${rows.length}</span></div>
    <table id=${id}><thead><tr>${columns.map((c) => html`<th><button aria-label=${`sort by ${c.label}`} onClick=${() => setSort({ key: c.key, dir: sort?.key === c.key ? -sort.dir : 1 })}>${c.label}${sort?.key === c.key ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''}</button></th>`)}</tr></thead>
    <tbody>${shown.slice(0, 500).map((r, i) => html`<tr class=${rowClass?.(r, i) ?? ''}>${columns.map((c) => html`<td>${c.render ? c.render(r) : fmt(c.value(r))}</td>`)}</tr>`)}</tbody></table>
    ${shown.length > 500 ? html`<p class="muted">the first 500 rows; narrow with the filter or download the CSV</p>` : null}
  </div>`;
}

function SignIn({ onIn }) {
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    try {
      const body = { username: f.get('username'), password: f.get('password') };
      if (f.get('tenant')) body.tenant_id = f.get('tenant');
      const r = await api('POST', '/api/v1/auth/token', body);
      session.token = r.data.token;
      onIn();
    } catch (err) { setError(err); }
  };
  return html`<form class="signin card" onSubmit=${submit} aria-label="sign in">
    <h2>Sign in to gridops</h2>
    <label>User name <input name="username" autocomplete="username" required /></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
    <label>Tenant (optional) <input name="tenant" /></label>
    <button type="submit">Sign in</button>
    <${ErrorBox} error=${error} />
  </form>`;
}

function Networks() {
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [status, setStatus] = useState('');
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    try {
      const q = new URLSearchParams({ page: String(page), page_size: '20' });
      if (name) q.set('name', name);
      if (status) q.set('status', status);
      setData(await api('GET', `/api/v1/networks?${q}`)); setError(null);
    } catch (e) { setError(e); }
  };
  useEffect(() => { load(); }, [page, name, status]);
  const importFile = async (file) => {
    setBusy(true);
    try {
      const r = await api('POST', `/api/v1/networks/import?format=matpower&name=${encodeURIComponent(file.name.replace(/\.m$/, ''))}`, await file.text(), { text: true });
      setError(null);
      location.hash = `#/network/${r.data.id}`;
    } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const drop = (e) => { e.preventDefault(); setOver(false); const f = e.dataTransfer.files[0]; if (f) importFile(f); };
  const meta = data?.meta;
  return html`<section>
    <h2>Networks</h2>
    <div class="row">
      <label>Search <input aria-label="search by name" value=${name} onInput=${(e) => { setPage(1); setName(e.target.value); }} /></label>
      <label>Status <select value=${status} onChange=${(e) => { setPage(1); setStatus(e.target.value); }}>
        <option value="">any</option><option>ready</option><option>draft</option><option>archived</option></select></label>
    </div>
    ${may('write') ? html`<div class=${`drop ${over ? 'over' : ''}`} onDragOver=${(e) => { e.preventDefault(); setOver(true); }} onDragLeave=${() => setOver(false)} onDrop=${drop}>
      Drop a MATPOWER case file (.m) here to import it, or <label>choose one <input id="import-file" type="file" accept=".m,text/plain" onChange=${(e) => e.target.files[0] && importFile(e.target.files[0])} /></label>
      ${busy ? html`<progress aria-label="importing"></progress>` : null}
    </div>` : null}
    <${ErrorBox} error=${error} />
    ${data ? html`<table id="networks"><thead><tr><th>Name</th><th>Buses</th><th>Status</th><th>Created</th><th></th></tr></thead><tbody>
      ${data.data.map((n) => html`<tr><td><a href=${`#/network/${n.id}`}>${n.name}</a></td><td>${n.bus_count}</td><td>${n.status}</td><td>${new Date(n.created_at).toLocaleString()}</td>
        <td><button class="secondary" onClick=${() => download(`/api/v1/networks/${n.id}/export?format=matpower`, `${n.name}.m`).catch(setError)}>Export</button></td></tr>`)}
    </tbody></table>
    <div class="row"><button class="secondary" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
      <span>page ${meta?.page ?? page} of ${meta?.total_pages ?? 1} (${meta?.total ?? 0} networks)</span>
      <button class="secondary" disabled=${!meta || page >= meta.total_pages} onClick=${() => setPage(page + 1)}>Next</button></div>` : html`<p class="muted">Loading…</p>`}
  </section>`;
}

/** Follows a task (and, for studies, the study) until it ends: progress live from the SSE stream (topic powerflow:
 *  powerflow.progress and study.progress events of this network), the end by polling its status. */
async function followTask(taskId, onProgress, networkId, studyId) {
  const ac = new AbortController();
  listen({ topics: 'powerflow', network_id: networkId }, (e) => {
    const p = e.data?.payload ?? {};
    if (studyId && p.study_id === studyId && p.total) onProgress(p.done / p.total);
    else if (!studyId && p.task_id === taskId && p.max_iterations) onProgress(Math.min(1, (p.iteration ?? 0) / p.max_iterations));
  }, ac.signal);
  try {
    for (;;) {
      const st = (await api('GET', studyId ? `/api/v1/studies/${studyId}` : `/api/v1/tasks/${taskId}`)).data;
      if (['completed', 'failed', 'cancelled'].includes(st.status)) { onProgress(1); return st; }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally { ac.abort(); }
}

function NetworkView({ id }) {
  const [net, setNet] = useState(null);
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const [study, setStudy] = useState(null);
  const [opf, setOpf] = useState(null);
  const [progress, setProgress] = useState(undefined);
  const [pick, setPick] = useState(null);
  const [method, setMethod] = useState('newton_raphson');
  const [ptdf, setPtdf] = useState(null);
  const [opts, setOpts] = useState({ tolerance: '1e-8', maxIterations: '50', contingencies: 'n-1-branches', limit: '100', opfMethod: 'ac', islanding: 'refuse', secure: false });
  const opt = (k) => (e) => setOpts({ ...opts, [k]: e.target.value });
  const box = useRef(null), drawing = useRef(null);
  useEffect(() => { api('GET', `/api/v1/networks/${id}`).then((r) => setNet(r.data), setError); }, [id]);
  useEffect(() => {
    if (!net || !box.current) return undefined;
    drawing.current = new NetworkDrawing(box.current, net, `${net.id}@${net.version ?? ''}`, setPick);
    return () => drawing.current?.destroy();
  }, [net]);
  const run = async (what) => {
    setError(null); setProgress(0);
    try {
      if (what === 'powerflow') {
        const q = await api('POST', `/api/v1/networks/${id}/powerflow`, { method, async: true, tolerance: Number(opts.tolerance), max_iterations: Number(opts.maxIterations), islanding: opts.islanding });
        const t = await followTask(q.data.task_id, setProgress, id);
        if (t.status !== 'completed') throw new Error(t.error?.message ?? `the power flow ended ${t.status}`);
        const full = (await api('GET', `/api/v1/tasks/${q.data.task_id}?include=result`)).data.result;
        setResult(full); drawing.current?.color(full);
      } else if (what === 'study') {
        const q = await api('POST', `/api/v1/networks/${id}/studies`, {
          kind: 'contingency', contingencies: opts.contingencies, method, tolerance: Number(opts.tolerance), max_iterations: Number(opts.maxIterations),
          loading_limit_percent: Number(opts.limit),
        });
        const st = await followTask(q.data.task_id, setProgress, id, q.data.study_id);
        if (st.status !== 'completed') throw new Error(`the study ended ${st.status}`);
        const cases = await api('GET', `/api/v1/studies/${q.data.study_id}/cases?sort=-max_loading_percent&page_size=100`);
        setStudy({ id: q.data.study_id, summary: st, cases: cases.data });
        const worst = cases.data.find((c) => c.status === 'converged' && c.contingency?.branches?.length);
        if (worst) drawing.current?.highlight(worst.contingency.branches[0]);
      } else if (what === 'ptdf') {
        // the selected branch's PTDF: which injections load it, and by how much (docs/sensitivities.md)
        const r = await api('POST', `/api/v1/networks/${id}/sensitivities`, { kind: 'ptdf', branches: [pick.index] });
        const values = r.data.values[0];
        const order = values.map((v, j) => [v, r.data.columns[j]]).sort((a, b) => Math.abs(b[0]) - Math.abs(a[0]));
        setPtdf({ branch: pick.index, top: order.slice(0, 5) });
        drawing.current?.colorPtdf(pick.index, r.data.columns, values);
      } else {
        // the security-constrained OPF is a DC-OPF: "N-1 secure" sends method dc with security
        const body = opts.secure ? { method: 'dc', security: { contingencies: 'n-1-branches' } } : { method: opts.opfMethod, islanding: opts.islanding };
        const r = await api('POST', `/api/v1/networks/${id}/opf`, body);
        setOpf(r.data); drawing.current?.color(r.data);
      }
    } catch (e) { setError(e); } finally { setProgress(undefined); }
  };
  if (!net) return html`<section><${ErrorBox} error=${error} /><p class="muted">Loading…</p></section>`;
  const busRow = pick?.kind === 'bus' ? net.buses.find((b) => b.id === pick.id) : null;
  const brRow = pick?.kind === 'branch' ? net.branches[pick.index] : null;
  const busRes = busRow && (result ?? opf)?.buses?.find((b) => b.id === busRow.id);
  const brRes = brRow && (result ?? opf)?.branches?.[pick.index];
  return html`<section>
    <h2>${net.name} <span class="muted">(${net.buses.length} buses, ${net.branches.length} branches, version ${net.version ?? ''})</span></h2>
    ${may('compute') ? html`<div class="row">
      <label>Method <select value=${method} onChange=${(e) => setMethod(e.target.value)}><option value="newton_raphson">Newton-Raphson</option><option value="fast_decoupled">fast decoupled</option><option value="dc">DC</option></select></label>
      <label>Tolerance <input size="6" value=${opts.tolerance} onInput=${opt('tolerance')} /></label>
      <label>Max iterations <input size="3" value=${opts.maxIterations} onInput=${opt('maxIterations')} /></label>
      <label>Islands <select id="islanding" value=${opts.islanding} onChange=${opt('islanding')} title="an island without a slack bus: refuse the calculation, de-energize it, or give it a reference"><option value="refuse">refuse</option><option value="isolate">de-energize</option><option value="new_reference">new reference</option></select></label>
      <button id="run-powerflow" onClick=${() => run('powerflow')} disabled=${progress !== undefined}>Run power flow</button>
    </div>
    <div class="row">
      <label>Outages <select id="study-contingencies" value=${opts.contingencies} onChange=${opt('contingencies')}><option value="n-1-branches">each branch</option><option value="n-1-generators">each generator</option><option value="n-1">both</option></select></label>
      <label>Loading limit % <input size="4" value=${opts.limit} onInput=${opt('limit')} /></label>
      <button id="run-study" onClick=${() => run('study')} disabled=${progress !== undefined}>Run N-1 study</button>
      <label>OPF <select id="opf-method" value=${opts.opfMethod} onChange=${opt('opfMethod')}><option value="ac">AC</option><option value="dc">DC</option></select></label>
      <label title="preventive N-1: the cheapest DC dispatch that keeps every branch within its emergency rating after any single branch outage"><input type="checkbox" id="opf-secure" checked=${opts.secure} onChange=${(e) => setOpts({ ...opts, secure: e.target.checked })} /> N-1 secure (DC)</label>
      <button id="run-opf" onClick=${() => run('opf')} disabled=${progress !== undefined}>Run OPF</button>
      ${progress !== undefined ? html`<progress id="progress" aria-label="progress" max="1" value=${progress ?? undefined}></progress>` : null}
    </div>` : html`<p class="muted">Your role may read this network; running calculations needs the operator role.</p>`}
    <${ErrorBox} error=${error} />
    <div class="split">
      <div>
        <div id="drawing" ref=${box} aria-label="network drawing"></div>
        <div class="legend" id="legend">
          <strong>Buses:</strong> ${VOLTAGE_COLORS.map((c) => html`<span style=${`--c:${c.color}`}>${c.label}</span>`)}
          <span style=${`--c:${DEENERGIZED_COLOR}`}>de-energized</span>
          <strong>Branches:</strong> ${LOADING_COLORS.map((c) => html`<span style=${`--c:${c.color}`}>${c.label}</span>`)}
        </div>
      </div>
      <div>
        <form class="row" id="find" onSubmit=${(e) => {
          e.preventDefault();
          const m = /^\s*(bus|branch)\s*#?\s*(\d+)\s*$/i.exec(e.target.elements.what.value);
          if (!m) { setError(new Error('find: type "bus 5" (a bus id) or "branch 12" (a branch index, from 0)')); return; }
          const n = Number(m[2]);
          if (m[1].toLowerCase() === 'bus' ? !net.buses.some((b) => b.id === n) : !net.branches[n]) { setError(new Error(`${m[1].toLowerCase()} ${n} is not in this network`)); return; }
          setError(null);
          setPick(m[1].toLowerCase() === 'bus' ? { kind: 'bus', id: n } : { kind: 'branch', index: n });
        }}><input name="what" placeholder="bus 5 or branch 12" aria-label="find a bus or a branch" /><button class="secondary">Find</button></form>
        <div class="card" id="details" aria-live="polite">
          ${busRow ? html`<h3>Bus ${busRow.id}</h3><p>type ${busRow.type}, limits ${busRow.vmin}–${busRow.vmax} p.u.</p>${busRes ? html`<p>v = ${fmt(busRes.v, 4)} p.u., θ = ${fmt(busRes.theta, 4)} rad</p>` : null}`
            : brRow ? html`<h3>Branch ${pick.index} (${brRow.from}–${brRow.to})</h3><p>r ${brRow.r}, x ${brRow.x}, rate_a ${brRow.rate_a} MVA, ${brRow.status}</p>${brRes ? html`<p>P from ${fmt(brRes.p_from, 2)} MW, loading ${fmt(brRes.loading, 1)} %</p>` : null}
              ${may('compute') && brRow.status === 'closed' ? html`<button class="secondary" id="run-ptdf" onClick=${() => run('ptdf')} disabled=${progress !== undefined}>PTDF of this branch</button>` : null}
              ${ptdf && ptdf.branch === pick.index ? html`<p id="ptdf-top">MW on this branch per MW injected (withdrawn at the reference): ${ptdf.top.map(([v, bus]) => `bus ${bus} ${fmt(v, 3)}`).join(', ')}</p>
                <div class="legend"><strong>PTDF:</strong> ${PTDF_COLORS.map((c) => html`<span style=${`--c:${c.color}`}>${c.label}</span>`)}</div>` : null}`
            : html`<p class="muted">Click a bus or a branch for its values.</p>`}
        </div>
        ${result ? html`<div class="card" id="powerflow-summary"><h3>Power flow: ${result.status}</h3><p>${result.iterations} iterations, losses ${fmt(result.losses?.p_mw, 2)} MW</p>
          ${result.islands?.some((i) => !i.energized) ? html`<p id="deenergized"><strong>De-energized:</strong> ${result.islands.filter((i) => !i.energized).map((i) => `bus${i.buses.length === 1 ? '' : 'es'} ${i.buses.slice(0, 12).join(', ')}${i.buses.length > 12 ? ', …' : ''}`).join('; ')}
            (${fmt(result.lost_load_mw, 1)} MW of load and ${fmt(result.lost_generation_mw, 1)} MW of generation lost)</p>` : null}</div>` : null}
      </div>
    </div>
    ${result ? html`<h3>Bus results</h3><${Table} id="bus-results" columns=${[
      { key: 'id', label: 'bus', value: (r) => r.id }, { key: 'v', label: 'v (p.u.)', value: (r) => r.v }, { key: 'theta', label: 'θ (rad)', value: (r) => r.theta },
    ]} rows=${result.buses} />` : null}
    ${study ? html`<h3>N-1 study: cases ranked by loading</h3>
      <div class="row"><button class="secondary" onClick=${() => download(`/api/v1/studies/${study.id}/cases.csv`, `study-${study.id}.csv`).catch(setError)}>Download CSV</button>
      <span class="muted" id="study-summary">${study.summary.progress?.total} cases, ${study.summary.counts?.cases_with_lost_load ?? 0} with lost load</span></div>
      <${Table} id="study-cases" rowClass=${(_r, i) => (i === 0 ? 'worst' : '')} columns=${[
        { key: 'case_id', label: 'case', value: (r) => r.case_id }, { key: 'status', label: 'status', value: (r) => r.status },
        { key: 'max_loading_percent', label: 'max loading %', value: (r) => r.max_loading_percent ?? -1, render: (r) => fmt(r.max_loading_percent, 1) },
        { key: 'min_v', label: 'min v', value: (r) => r.min_v ?? 0, render: (r) => fmt(r.min_v, 4) },
        { key: 'violations', label: 'violations', value: (r) => r.violations?.length ?? 0 },
        { key: 'lost', label: 'load lost (MW)', value: (r) => r.islanded?.load_mw ?? 0, render: (r) => (r.islanded ? html`<span title=${`de-energized: buses ${r.islanded.buses.join(', ')}`}>${fmt(r.islanded.load_mw, 1)}</span>` : '') },
      ]} rows=${study.cases} />` : null}
    ${opf ? html`<h3>OPF: ${opf.status}, objective ${fmt(opf.objective, 2)} per hour</h3><${Table} id="opf-generators" columns=${[
      { key: 'index', label: 'generator', value: (g) => g.index }, { key: 'bus', label: 'bus', value: (g) => g.bus },
      { key: 'p_mw', label: 'P (MW)', value: (g) => g.p_mw }, { key: 'q_mvar', label: 'Q (MVAr)', value: (g) => g.q_mvar },
    ]} rows=${opf.generators} />
    ${opf.security ? html`<h3>N-1 security: ${opf.security.contingencies} outages, ${opf.security.excluded.length} excluded (they split the network), ${opf.security.rounds} rounds</h3>
      ${opf.security.binding.length === 0 ? html`<p class="muted" id="opf-binding-none">No post-contingency limit binds: the OPF dispatch is already N-1 secure.</p>` : html`<${Table} id="opf-binding" columns=${[
        { key: 'outage', label: 'outage', value: (b) => String(b.outage) }, { key: 'branch', label: 'branch', value: (b) => b.branch, render: (b) => String(b.branch) },
        { key: 'flow_mw', label: 'flow after (MW)', value: (b) => b.flow_mw, render: (b) => fmt(b.flow_mw, 2) },
        { key: 'limit_mw', label: 'limit (MW)', value: (b) => b.limit_mw }, { key: 'mu', label: 'shadow price (per MWh)', value: (b) => b.mu, render: (b) => fmt(b.mu, 4) },
      ]} rows=${opf.security.binding} />`}` : null}` : null}
  </section>`;
}

/** Reloads `load` now and whenever an event of `topics` arrives (at most every 500 ms). */
function useLive(topics, load) {
  useEffect(() => {
    load();
    const ac = new AbortController();
    let timer = null;
    listen({ topics }, () => { if (!timer) timer = setTimeout(() => { timer = null; load(); }, 500); }, ac.signal);
    return () => { ac.abort(); clearTimeout(timer); };
  }, []);
}

function Tasks() {
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/api/v1/tasks?page_size=50').then((r) => { setRows(r.data); setError(null); }, setError);
  useLive('task,powerflow', load);
  const cancel = (t) => api('DELETE', `/api/v1/tasks/${t.task_id ?? t.id}`).then(load, setError);
  return html`<section><h2>Tasks</h2><${ErrorBox} error=${error} />
    <${Table} id="tasks" columns=${[
      { key: 'id', label: 'task', value: (t) => t.task_id ?? t.id }, { key: 'kind', label: 'kind', value: (t) => t.kind },
      { key: 'status', label: 'status', value: (t) => t.status }, { key: 'network', label: 'network', value: (t) => t.network_id },
      { key: 'created', label: 'created', value: (t) => t.created_at, render: (t) => new Date(t.created_at).toLocaleTimeString() },
      { key: 'action', label: '', value: () => '', render: (t) => (may('compute') && ['queued', 'running'].includes(t.status) ? html`<button class="secondary" onClick=${() => cancel(t)}>Cancel</button>` : '') },
    ]} rows=${rows} /></section>`;
}

function Alarms() {
  const [rows, setRows] = useState([]);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/api/v1/alarms?page_size=100').then((r) => { setRows(r.data); setError(null); }, setError);
  useLive('alarm', load);
  const ack = (a) => api('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: session.claims?.sub ?? 'console', note: 'acknowledged in the console' }).then(load, setError);
  return html`<section><h2>Alarms</h2><${ErrorBox} error=${error} />
    <${Table} id="alarms" columns=${[
      { key: 'severity', label: 'severity', value: (a) => a.severity }, { key: 'status', label: 'status', value: (a) => a.status },
      { key: 'message', label: 'message', value: (a) => a.message }, { key: 'raised', label: 'raised', value: (a) => a.raised_at ?? a.created_at },
      { key: 'action', label: '', value: () => '', render: (a) => (may('ack') && a.status === 'active' ? html`<button class="secondary" data-alarm=${a.id} onClick=${() => ack(a)}>Acknowledge</button>` : '') },
    ]} rows=${rows} /></section>`;
}

const TOPICS = ['', 'alarm', 'task', 'powerflow', 'topology', 'agent', 'device', 'constraint', 'system'];

function Events() {
  const [topic, setTopic] = useState('');
  const [items, setItems] = useState([]);
  // Which stream is open: set by its system.connected event (an operator sees "live"; tests wait for it).
  const [live, setLive] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    setItems([]); setLive('');
    listen(topic ? { topics: topic } : {}, (e) => {
      if (e.topic === 'system' && e.data?.kind === 'system.connected') setLive(topic || 'all');
      setItems((xs) => [e, ...xs].slice(0, 200));
    }, ac.signal);
    return () => ac.abort();
  }, [topic]);
  return html`<section><h2>Events</h2>
    <div class="row"><label>Topic <select id="event-topic" value=${topic} onChange=${(e) => setTopic(e.target.value)}>${TOPICS.map((t) => html`<option value=${t}>${t || 'all'}</option>`)}</select></label>
    <span class="muted">${live ? 'live' : 'connecting…'}; newest first</span></div>
    <div class="feed" id="events" data-live=${live} aria-live="polite">${items.map((e) => html`<div data-topic=${e.topic}>${e.topic} ${e.data?.kind ?? ''} ${JSON.stringify(e.data?.payload ?? e.data).slice(0, 200)}</div>`)}</div>
  </section>`;
}

/* global uPlot */
function TimeSeries() {
  const now = new Date();
  const [form, setForm] = useState({ metric: '', from: new Date(now - 86400e3).toISOString().slice(0, 16), to: now.toISOString().slice(0, 16), aggregation: 'avg', interval: '5m' });
  const [error, setError] = useState(null);
  const [info, setInfo] = useState(null);
  const box = useRef(null), plot = useRef(null);
  const show = async (e) => {
    e?.preventDefault();
    try {
      const q = new URLSearchParams({ metric: form.metric, from: new Date(form.from).toISOString(), to: new Date(form.to).toISOString(), aggregation: form.aggregation });
      if (form.aggregation !== 'none') q.set('interval', form.interval);
      const r = (await api('GET', `/api/v1/timeseries?${q}`)).data;
      const pts = r.points ?? [];
      const xs = pts.map((p) => Date.parse(p.timestamp ?? p[0]) / 1000), ys = pts.map((p) => p.value ?? p[1]);
      plot.current?.destroy();
      plot.current = new uPlot({ width: Math.min(1200, box.current.clientWidth || 900), height: 360, series: [{}, { label: form.metric, stroke: '#2563eb' }] }, [xs, ys], box.current);
      setInfo(`${pts.length} points`); setError(null);
    } catch (err) { setError(err); }
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  return html`<section><h2>Time series</h2>
    <form class="row" onSubmit=${show}>
      <label>Metric <input id="ts-metric" required value=${form.metric} onInput=${set('metric')} /></label>
      <label>From <input type="datetime-local" value=${form.from} onInput=${set('from')} /></label>
      <label>To <input type="datetime-local" value=${form.to} onInput=${set('to')} /></label>
      <label>Aggregation <select value=${form.aggregation} onChange=${set('aggregation')}>${['none', 'avg', 'sum', 'max', 'min', 'count'].map((a) => html`<option>${a}</option>`)}</select></label>
      <label>Interval <input size="4" value=${form.interval} onInput=${set('interval')} /></label>
      <button type="submit">Show</button>
    </form>
    <${ErrorBox} error=${error} />${info ? html`<p class="muted" id="ts-info">${info}</p>` : null}
    <div id="chart" ref=${box}></div></section>`;
}

const VIEWS = [['networks', 'Networks'], ['tasks', 'Tasks'], ['alarms', 'Alarms'], ['events', 'Events'], ['timeseries', 'Time series']];

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.token));
  const route = useRoute();
  if (!signedIn || !session.token) return html`<${SignIn} onIn=${() => { setSignedIn(true); location.hash = '#/networks'; }} />`;
  const c = session.claims ?? {};
  const view = route[0] === 'network' ? html`<${NetworkView} id=${route[1]} />`
    : route[0] === 'tasks' ? html`<${Tasks} />` : route[0] === 'alarms' ? html`<${Alarms} />`
      : route[0] === 'events' ? html`<${Events} />` : route[0] === 'timeseries' ? html`<${TimeSeries} />` : html`<${Networks} />`;
  return html`<header><h1>gridops</h1><nav aria-label="views">${VIEWS.map(([k, label]) => html`<a href=${`#/${k}`} aria-current=${route[0] === k || (k === 'networks' && route[0] === 'network') ? 'page' : undefined}>${label}</a>`)}</nav>
    <span class="who" id="who">${c.sub} · tenant ${c.tenant} · ${c.role}</span>
    <button class="secondary" onClick=${() => { session.token = null; setSignedIn(false); }}>Sign out</button></header>
    <main>${view}</main>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the static "Loading" line
render(html`<${App} />`, root);
