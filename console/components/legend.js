// The colour keys of the network drawing (graph.js): bus voltage, de-energized, branch loading, PTDF.
import { html } from '/console/vendor/preact-htm.js';
import { VOLTAGE_COLORS, LOADING_COLORS, DEENERGIZED_COLOR, PTDF_COLORS, OUTAGE_COLOR, CASE_COLORS } from '/console/graph.js';
import { fmt } from '/console/components/format.js';

const swatches = (colors) => colors.map((c) => html`<span style=${`--c:${c.color}`}>${c.label}</span>`);

/** The key of what the drawing shows: bus voltages and branch loading (a power flow), an N-1 case, or after
 *  an OPF the price bins (priceBins from graph.js colorPrices). */
export function DrawingLegend({ drawn, priceBins, categories }) {
  const buses = drawn === 'study' ? null : drawn === 'category' && categories?.length
    ? html`<strong>Buses:</strong> ${swatches(categories)}`
    : drawn === 'opf' && priceBins?.length
    ? html`<strong>Buses, LMP per MWh:</strong> ${priceBins.map((b) => html`<span style=${`--c:${b.color}`}>${fmt(b.from, 2)}–${fmt(b.to, 2)}</span>`)}`
    : html`<strong>Buses:</strong> ${swatches(VOLTAGE_COLORS)}`;
  return html`<div class="legend" id="legend" data-drawn=${drawn ?? ''}>
    ${buses}
    <span style=${`--c:${DEENERGIZED_COLOR}`}>de-energized</span>
    ${drawn === 'study' ? html`<strong>Case shown:</strong> ${swatches(CASE_COLORS)}<span style=${`--c:${OUTAGE_COLOR}`}>outaged</span>`
      : html`<strong>Branches:</strong> ${swatches(LOADING_COLORS)}`}
    ${drawn === 'estimate' ? html`<em class="muted">the state estimate's voltages and the flows they give</em>` : null}
    ${drawn === 'powerflow' || drawn === 'estimate' ? html`<em class="muted">width: active power flow, arrow: its direction</em>` : null}
  </div>`;
}

export function PtdfLegend() {
  return html`<div class="legend"><strong>PTDF:</strong> ${swatches(PTDF_COLORS)}</div>`;
}
