// The colour keys of the network drawing (graph.js): bus voltage, de-energized, branch loading, PTDF.
import { html } from '/console/vendor/preact-htm.js';
import { VOLTAGE_COLORS, LOADING_COLORS, DEENERGIZED_COLOR, PTDF_COLORS } from '/console/graph.js';

const swatches = (colors) => colors.map((c) => html`<span style=${`--c:${c.color}`}>${c.label}</span>`);

export function DrawingLegend() {
  return html`<div class="legend" id="legend">
    <strong>Buses:</strong> ${swatches(VOLTAGE_COLORS)}
    <span style=${`--c:${DEENERGIZED_COLOR}`}>de-energized</span>
    <strong>Branches:</strong> ${swatches(LOADING_COLORS)}
  </div>`;
}

export function PtdfLegend() {
  return html`<div class="legend"><strong>PTDF:</strong> ${swatches(PTDF_COLORS)}</div>`;
}
