// The calculation settings of the network view and its three Run buttons (operators only).
import { html, useState } from '/console/vendor/preact-htm.js';

const DEFAULTS = {
  method: 'newton_raphson', tolerance: '1e-8', maxIterations: '50', contingencies: 'n-1-branches', limit: '100', opfMethod: 'ac', islanding: 'refuse',
  secure: false,
};

export function RunControls({ running, progress, onRun }) {
  const [s, setS] = useState(DEFAULTS);
  const set = (k) => (e) => setS({ ...s, [k]: e.target.value });
  return html`<div class="row">
      <label>Method <select value=${s.method} onChange=${set('method')}>
        <option value="newton_raphson">Newton-Raphson</option><option value="fast_decoupled">fast decoupled</option><option value="dc">DC</option>
      </select></label>
      <label>Tolerance <input size="6" value=${s.tolerance} onInput=${set('tolerance')} /></label>
      <label>Max iterations <input size="3" value=${s.maxIterations} onInput=${set('maxIterations')} /></label>
      <label>Islands <select id="islanding" value=${s.islanding} onChange=${set('islanding')}
        title="an island without a slack bus: refuse the calculation, de-energize it, or give it a reference">
        <option value="refuse">refuse</option><option value="isolate">de-energize</option><option value="new_reference">new reference</option>
      </select></label>
      <button id="run-powerflow" onClick=${() => onRun('powerflow', s)} disabled=${running}>Run power flow</button>
    </div>
    <div class="row">
      <label>Outages <select id="study-contingencies" value=${s.contingencies} onChange=${set('contingencies')}>
        <option value="n-1-branches">each branch</option><option value="n-1-generators">each generator</option><option value="n-1">both</option>
      </select></label>
      <label>Loading limit % <input size="4" value=${s.limit} onInput=${set('limit')} /></label>
      <button id="run-study" onClick=${() => onRun('study', s)} disabled=${running}>Run N-1 study</button>
      <label>OPF <select id="opf-method" value=${s.opfMethod} onChange=${set('opfMethod')}>
        <option value="ac">AC</option><option value="dc">DC</option>
      </select></label>
      <label title="preventive N-1: the cheapest DC dispatch that keeps every branch within its emergency rating after any single branch outage">
        <input type="checkbox" id="opf-secure" checked=${s.secure} onChange=${(e) => setS({ ...s, secure: e.target.checked })} /> N-1 secure (DC)</label>
      <button id="run-opf" onClick=${() => onRun('opf', s)} disabled=${running}>Run OPF</button>
      ${running ? html`<progress id="progress" aria-label="progress" max="1" value=${progress ?? undefined}></progress>` : null}
    </div>`;
}
