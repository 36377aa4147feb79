// A state estimate (POST /networks/{id}/state-estimation, docs/state-estimation.md): the form (the network's
// stored measurements, or inline ones pasted as JSON) and the answer: status, J against the chi-square
// threshold, dof, observability, and the bad data removed.
import { html, useState } from '/console/vendor/preact-htm.js';
import { fmt } from '/console/components/format.js';
import { Table } from '/console/components/table.js';

export function StateEstimateControls({ running, onRun }) {
  const [text, setText] = useState('');
  return html`<details class="row" id="se-controls"><summary>State estimation</summary>
    <label>Inline measurements (optional JSON: a list of {kind, element, value, sigma}, or {measurements: […]};
      empty: the network's stored ones)
      <textarea id="se-measurements" rows="4" cols="80" value=${text} onInput=${(e) => setText(e.target.value)}></textarea></label>
    <button id="run-se" onClick=${() => onRun('se', { text })} disabled=${running}>Estimate the state</button>
  </details>`;
}

const BAD_DATA_COLUMNS = [
  { key: 'measurement', label: 'measurement', value: (r) => r.measurement, render: (r) => String(r.measurement) },
  { key: 'kind', label: 'kind', value: (r) => r.kind },
  { key: 'element', label: 'element', value: (r) => r.element, render: (r) => String(r.element) },
  { key: 'value', label: 'value', value: (r) => r.value },
  { key: 'nr', label: 'normalized residual', value: (r) => r.normalized_residual, render: (r) => fmt(r.normalized_residual, 2) },
];

export function StateEstimateResults({ se }) {
  const chi = se.chi_square ?? {}, obs = se.observability ?? {};
  const unobservable = html`<strong>unobservable buses:</strong> ${(obs.unobservable_buses ?? []).join(', ')}`;
  return html`<div class="card" id="se-summary" data-status=${se.status}><h3>State estimate: ${se.status}</h3>
    <p>J ${fmt(se.J, 2)} ${chi.passed ? '≤' : '>'} χ²(0.99, ${se.dof}) = ${fmt(chi.quantile_99, 2)} (${chi.passed ? 'passed' : 'failed'}),
      dof ${se.dof}, ${se.measurements_used} measurements used, ${se.iterations} iterations</p>
    <p id="se-observability">${obs.observable !== false ? 'observable' : unobservable}</p>
    </div>
    <h3>Bad data removed (in the order removed)</h3>
    ${se.bad_data?.length ? html`<${Table} id="se-bad-data" columns=${BAD_DATA_COLUMNS} rows=${se.bad_data} />`
      : html`<p class="muted" id="se-bad-data">none</p>`}`;
}
