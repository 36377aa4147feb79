// Find a bus or a branch by id or a bus by name (the drawing flies to it), and the values of the one picked (clicked or found): its data, its latest
// power-flow or OPF values, and for a closed branch its PTDF (operators).
import { html } from '/console/vendor/preact-htm.js';
import { may } from '/console/api.js';
import { fmt } from '/console/components/format.js';
import { PtdfLegend } from '/console/components/legend.js';

const FIND = /^\s*(bus|branch)\s*#?\s*(\d+)\s*$/i;

/** A name as compared: any case, runs of spaces as one (MATPOWER pads bus_name: 'Olive     V2'). */
const norm = (s) => (s ?? '').trim().replace(/\s+/g, ' ').toLowerCase();

/** The buses whose name matches `text`: the exact name, else those that contain it. */
function busesNamed(net, text) {
  const t = norm(text);
  const exact = net.buses.filter((b) => norm(b.name) === t);
  return exact.length > 0 ? exact : net.buses.filter((b) => norm(b.name).includes(t));
}

export function FindForm({ net, onPick, onError }) {
  const submit = (e) => {
    e.preventDefault();
    const text = e.target.elements.what.value;
    const m = FIND.exec(text);
    if (m) {
      const kind = m[1].toLowerCase(), n = Number(m[2]);
      if (kind === 'bus' ? !net.buses.some((b) => b.id === n) : !net.branches[n]) { onError(new Error(`${kind} ${n} is not in this network`)); return; }
      onError(null);
      onPick(kind === 'bus' ? { kind: 'bus', id: n } : { kind: 'branch', index: n });
      return;
    }
    const named = text.trim() ? busesNamed(net, text) : [];
    if (named.length === 1) { onError(null); onPick({ kind: 'bus', id: named[0].id }); return; }
    if (named.length > 1) {
      const listed = `${named.slice(0, 5).map((b) => `bus ${b.id} ${norm(b.name)}`).join(', ')}${named.length > 5 ? ', …' : ''}`;
      onError(new Error(`find: ${named.length} buses have a name with "${text.trim()}" (${listed}): type more of the name or the bus id`));
      return;
    }
    onError(new Error('find: type "bus 5" (a bus id), "branch 12" (a branch index, from 0) or a bus name'));
  };
  return html`<form class="row" id="find" onSubmit=${submit}>
    <input name="what" placeholder="bus 5, branch 12 or a bus name" aria-label="find a bus or a branch" />
    <button class="secondary">Find</button>
  </form>`;
}

export function ElementDetails({ net, pick, solved, ptdf, running, onRun }) {
  const busRow = pick?.kind === 'bus' ? net.buses.find((b) => b.id === pick.id) : null;
  const brRow = pick?.kind === 'branch' ? net.branches[pick.index] : null;
  const busRes = busRow && solved?.buses?.find((b) => b.id === busRow.id);
  const brRes = brRow && solved?.branches?.[pick.index];
  return html`<div class="card" id="details" aria-live="polite">
    ${busRow ? html`<h3>Bus ${busRow.id}</h3><p>type ${busRow.type}, limits ${busRow.vmin}–${busRow.vmax} p.u.</p>
        ${busRes ? html`<p>v = ${fmt(busRes.v, 4)} p.u., θ = ${fmt(busRes.theta, 4)} rad</p>` : null}`
      : brRow ? html`<h3>Branch ${pick.index} (${brRow.from}–${brRow.to})</h3>
        <p>r ${brRow.r}, x ${brRow.x}, rate_a ${brRow.rate_a} MVA, ${brRow.status}</p>
        ${brRes ? html`<p>P from ${fmt(brRes.p_from, 2)} MW, loading ${fmt(brRes.loading, 1)} %</p>` : null}
        ${may('compute') && brRow.status === 'closed'
          ? html`<button class="secondary" id="run-ptdf" onClick=${() => onRun('ptdf', { branch: pick.index })} disabled=${running}>
              PTDF of this branch</button>`
          : null}
        ${ptdf && ptdf.branch === pick.index
          ? html`<p id="ptdf-top">MW on this branch per MW injected (withdrawn at the reference): ${
              ptdf.top.map(([v, bus]) => `bus ${bus} ${fmt(v, 3)}`).join(', ')}</p><${PtdfLegend} />`
          : null}`
      : html`<p class="muted">Click a bus or a branch for its values.</p>`}
  </div>`;
}
