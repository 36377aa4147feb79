// An OPF's answer: objective and dispatch; for the N-1 secure one, the post-contingency limits that bind.
import { html } from '/console/vendor/preact-htm.js';
import { fmt } from '/console/components/format.js';
import { Table } from '/console/components/table.js';

const GENERATORS = [
  { key: 'index', label: 'generator', value: (g) => g.index, render: (g) => String(g.index) },
  { key: 'bus', label: 'bus', value: (g) => g.bus, render: (g) => String(g.bus) },
  { key: 'p_mw', label: 'P (MW)', value: (g) => g.p_mw }, { key: 'q_mvar', label: 'Q (MVAr)', value: (g) => g.q_mvar },
];
const BINDING = [
  { key: 'outage', label: 'outage', value: (b) => String(b.outage) },
  { key: 'branch', label: 'branch', value: (b) => b.branch, render: (b) => String(b.branch) },
  { key: 'flow_mw', label: 'flow after (MW)', value: (b) => b.flow_mw, render: (b) => fmt(b.flow_mw, 2) },
  { key: 'limit_mw', label: 'limit (MW)', value: (b) => b.limit_mw },
  { key: 'mu', label: 'shadow price (per MWh)', value: (b) => b.mu, render: (b) => fmt(b.mu, 4) },
];

function SecurityResults({ security }) {
  return html`<h3>N-1 security: ${security.contingencies} outages, ${security.excluded.length} excluded (they split the network), ${security.rounds} rounds</h3>
    ${security.binding.length === 0 ? html`<p class="muted" id="opf-binding-none">No post-contingency limit binds: the OPF dispatch is already N-1 secure.</p>`
      : html`<${Table} id="opf-binding" columns=${BINDING} rows=${security.binding} />`}`;
}

export function OpfResults({ opf }) {
  return html`<h3>OPF: ${opf.status}, objective ${fmt(opf.objective, 2)} per hour</h3>
    <${Table} id="opf-generators" columns=${GENERATORS} rows=${opf.generators} />
    ${opf.security ? html`<${SecurityResults} security=${opf.security} />` : null}`;
}
