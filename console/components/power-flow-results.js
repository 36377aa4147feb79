// A power flow's answer: status, iterations, losses, what was de-energized, and the bus table.
import { html } from '/console/vendor/preact-htm.js';
import { fmt } from '/console/components/format.js';
import { Table } from '/console/components/table.js';

const busList = (buses) => `bus${buses.length === 1 ? '' : 'es'} ${buses.slice(0, 12).join(', ')}${buses.length > 12 ? ', …' : ''}`;

export function PowerFlowSummary({ result }) {
  const dark = result.islands?.filter((i) => !i.energized) ?? [];
  return html`<div class="card" id="powerflow-summary"><h3>Power flow: ${result.status}</h3>
    <p>${result.iterations} iterations, losses ${fmt(result.losses?.p_mw, 2)} MW</p>
    ${dark.length ? html`<p id="deenergized"><strong>De-energized:</strong> ${dark.map((i) => busList(i.buses)).join('; ')}${' '}
      (${fmt(result.lost_load_mw, 1)} MW of load and ${fmt(result.lost_generation_mw, 1)} MW of generation lost)</p>` : null}</div>`;
}

export function BusResults({ result }) {
  return html`<h3>Bus results</h3><${Table} id="bus-results" columns=${[
    { key: 'id', label: 'bus', value: (r) => r.id, render: (r) => String(r.id) },
    { key: 'v', label: 'v (p.u.)', value: (r) => r.v },
    { key: 'theta', label: 'θ (rad)', value: (r) => r.theta },
  ]} rows=${result.buses} />`;
}
