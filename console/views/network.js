// One network: its drawing (graph.js), the calculations an operator runs on it (network-runs.js) and their
// answers, and the details of the bus or branch picked on the drawing or found by id.
import { html, useState, useEffect, useRef } from '/console/vendor/preact-htm.js';
import { api, may } from '/console/api.js';
import { NetworkDrawing } from '/console/graph.js';
import { ErrorBox } from '/console/components/error-box.js';
import { DrawingLegend } from '/console/components/legend.js';
import { RunControls } from '/console/components/run-controls.js';
import { FindForm, ElementDetails } from '/console/components/element-details.js';
import { PowerFlowSummary, BusResults } from '/console/components/power-flow-results.js';
import { StudyCases } from '/console/components/study-cases.js';
import { OpfResults } from '/console/components/opf-results.js';
import { StateEstimateControls, StateEstimateResults } from '/console/components/state-estimate.js';
import { useNetworkRuns } from '/console/views/network-runs.js';
import { NetworkDashboard } from '/console/components/network-dashboard.js';

export function NetworkView({ id }) {
  const [net, setNet] = useState(null);
  const [layout, setLayout] = useState(null);
  const [error, setError] = useState(null);
  const [pick, setPick] = useState(null);
  const box = useRef(null), drawing = useRef(null);
  const { result, study, opf, ptdf, se, progress, run, showCase, drawn, ended, categories, colorBy } =
    useNetworkRuns(id, drawing, setError);
  useEffect(() => {
    // the model and where to draw it (computed by the server once per version, then read) in parallel; nothing of
    // the network shown before is kept
    setNet(null); setLayout(null);
    api('GET', `/api/v1/networks/${id}`).then((r) => setNet(r.data), setError);
    api('GET', `/api/v1/networks/${id}/layout`).then((r) => setLayout(r.data), setError);
  }, [id]);
  useEffect(() => {
    if (!net || !layout || !box.current || layout.network_id !== net.id) return undefined;
    if (layout.version !== net.version) {
      // the network changed between the two reads: read again whichever is older
      if (layout.version > net.version) api('GET', `/api/v1/networks/${id}`).then((r) => setNet(r.data), setError);
      else api('GET', `/api/v1/networks/${id}/layout`).then((r) => setLayout(r.data), setError);
      return undefined;
    }
    drawing.current = new NetworkDrawing(box.current, net, layout, setPick);
    return () => drawing.current?.destroy();
  }, [net, layout]);
  if (!net) return html`<section><${ErrorBox} error=${error} /><p class="muted">Loading…</p></section>`;
  const running = progress !== undefined;
  return html`<section>
    <h2>${net.name} <span class="muted">(${net.buses.length} buses, ${net.branches.length} branches, version ${net.version ?? ''})</span></h2>
    <${NetworkDashboard} id=${id} refreshKey=${ended} />
    ${may('compute') ? html`<${RunControls} running=${running} progress=${progress} onRun=${run} />
      <${StateEstimateControls} running=${running} onRun=${run} />`
      : html`<p class="muted">Your role may read this network; running calculations needs the operator role.</p>`}
    <${ErrorBox} error=${error} />
    <div class="split">
      <div>
        <div id="drawing" ref=${box} aria-label="network drawing"></div>
        <div class="row"><label>Colour buses by <select id="color-by" value=${drawn === 'category' ? categories?.attribute : ''}
          onChange=${(e) => e.target.value && colorBy(e.target.value)}>
          <option value="">the last result</option><option value="area">area</option><option value="zone">zone</option>
          <option value="base_kv">voltage level (base kV)</option></select></label></div>
        <${DrawingLegend} drawn=${drawn} priceBins=${opf?.priceBins} categories=${categories?.entries} />
      </div>
      <div>
        <${FindForm} net=${net} onPick=${(p) => { setPick(p); drawing.current?.flyTo(p); }} onError=${setError} />
        <${ElementDetails} net=${net} pick=${pick} solved=${result ?? opf} ptdf=${ptdf} running=${running} onRun=${run} />
        ${result ? html`<${PowerFlowSummary} result=${result} />` : null}
      </div>
    </div>
    ${result ? html`<${BusResults} result=${result} />` : null}
    ${study ? html`<${StudyCases} study=${study} onError=${setError} onShow=${showCase} />` : null}
    ${opf ? html`<${OpfResults} opf=${opf} />` : null}
    ${se ? html`<${StateEstimateResults} se=${se} />` : null}
  </section>`;
}
