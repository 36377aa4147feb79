// The network drawing: graphology holds buses and branches, sigma.js draws them with WebGL (made for
// thousands of nodes: case9241pegase stays usable), at the positions of GET /networks/{id}/layout (the
// buses' own coordinates, or a structure layout the server computes once per network version and keeps).
// Colours after a power flow: buses by voltage, branches by loading; after an
// OPF, buses by price; a study case drawn on the network (its outage, overloads, de-energized part).
/* global graphology, Sigma */

export const VOLTAGE_COLORS = [
  { label: 'below vmin', color: '#2563eb' }, { label: 'within limits', color: '#16a34a' }, { label: 'above vmax', color: '#dc2626' },
];
/** A bus or branch left without supply (islanding isolate / new_reference). */
export const DEENERGIZED_COLOR = '#d1d5db';
export const LOADING_COLORS = [
  { label: '< 70 %', color: '#9ca3af' }, { label: '70–100 %', color: '#f59e0b' }, { label: '> 100 %', color: '#dc2626' },
];

/** PTDF of a branch (MW of flow per MW injected at the bus, withdrawn at the reference): a diverging scale. */
export const PTDF_COLORS = [
  { label: '≤ −0.5', color: '#1d4ed8' }, { label: '−0.5…−0.1', color: '#93c5fd' }, { label: '≈ 0', color: '#e5e7eb' },
  { label: '0.1…0.5', color: '#fca5a5' }, { label: '≥ 0.5', color: '#b91c1c' },
];
function ptdfColor(v) {
  return v <= -0.5 ? PTDF_COLORS[0].color : v <= -0.1 ? PTDF_COLORS[1].color : v < 0.1 ? PTDF_COLORS[2].color : v < 0.5 ? PTDF_COLORS[3].color : PTDF_COLORS[4].color;
}

/** Locational marginal prices after an OPF: five equal bins between the lowest and the highest price. */
export const LMP_COLORS = ['#1e3a8a', '#3b82f6', '#a3e635', '#f59e0b', '#b91c1c'];
/** The outaged branch of a study case drawn on the network. */
export const OUTAGE_COLOR = '#db2777';

/** Categories (areas, zones, voltage levels): twelve distinguishable colours, then grey for the rest. */
export const CATEGORY_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#393b79', '#637939', '#843c39'];
const OTHER_COLOR = '#9ca3af';

export class NetworkDrawing {
  constructor(container, model, layout, onPick) {
    this.container = container;
    this.model = model;
    const graph = new graphology.MultiGraph();
    const pos = layout.positions;
    this.reversed = new Set(); // branches drawn from `to` to `from` (./orient)
    model.buses.forEach((b, i) => {
      graph.addNode(String(b.id), { x: pos[2 * i], y: pos[2 * i + 1], size: model.buses.length > 2000 ? 2 : 5, label: `bus ${b.id}`, color: b.type === 'slack' ? '#7c3aed' : '#6b7280' });
    });
    // the highest voltage level drawn thicker (the backbone), when the network has several
    this.kv = new Map(model.buses.map((b) => [b.id, b.base_kv ?? 0]));
    const levels = [...new Set(model.buses.map((b) => b.base_kv ?? 0))].sort((a, b) => b - a);
    this.backbone = levels.length > 1 ? levels[0] : Infinity;
    model.branches.forEach((br, i) => {
      if (!graph.hasNode(String(br.from)) || !graph.hasNode(String(br.to))) return;
      graph.addEdgeWithKey(`b${i}`, String(br.from), String(br.to), { size: this.baseSize(br), color: br.status === 'closed' ? '#cbd5e1' : '#fecaca' });
    });
    this.graph = graph;
    // labels appear as the view zooms in (a bus's drawn size passes the threshold), never all at once on a large network
    this.sigma = new Sigma(graph, container, { enableEdgeEvents: true, renderLabels: true, labelRenderedSizeThreshold: model.buses.length <= 300 ? 8 : 14 });
    container.gridopsDrawing = this; // for the browser benchmark (bench/console.ts) and diagnostics
    this.sigma.on('clickNode', ({ node }) => onPick({ kind: 'bus', id: Number(node) }));
    this.sigma.on('clickEdge', ({ edge }) => onPick({ kind: 'branch', index: Number(edge.slice(1)) }));
    container.dataset.nodes = String(graph.order);
    container.dataset.layout = layout.source;
    container.dataset.edges = String(graph.size);
    container.dataset.colored = 'false';
  }

  /** Draws branch i from its sending end: sigma draws an arrow from an edge's source to its target, and a
   *  graphology edge cannot be turned round, so a branch whose power flows from `to` to `from` is re-added. */
  orient(i, againstModel) {
    const key = `b${i}`, br = this.model.branches[i];
    if (!br || this.reversed.has(i) === againstModel) return;
    const attrs = this.graph.getEdgeAttributes(key);
    this.graph.dropEdge(key);
    this.graph.addEdgeWithKey(key, String(againstModel ? br.to : br.from), String(againstModel ? br.from : br.to), attrs);
    if (againstModel) this.reversed.add(i); else this.reversed.delete(i);
  }

  /** Colours from a power-flow result: buses by voltage against vmin/vmax; branches by loading, as wide as
   *  their active power flow (relative to the largest) and with an arrow in its direction. */
  color(result) {
    const busById = new Map(this.model.buses.map((b) => [b.id, b]));
    let low = 0, high = 0, over = 0, dark = 0, arrows = 0, against = 0, maxP = 0;
    for (const f of result.branches ?? []) maxP = Math.max(maxP, Math.abs(f.p_from ?? 0));
    const off = new Set();
    for (const r of result.buses ?? []) {
      const b = busById.get(r.id);
      if (!b || !this.graph.hasNode(String(r.id))) continue;
      if (r.energized === false) {
        off.add(r.id); dark++;
        this.graph.setNodeAttribute(String(r.id), 'color', DEENERGIZED_COLOR);
        continue;
      }
      const c = r.v < (b.vmin ?? 0.9) - 1e-6 ? VOLTAGE_COLORS[0].color : r.v > (b.vmax ?? 1.1) + 1e-6 ? VOLTAGE_COLORS[2].color : VOLTAGE_COLORS[1].color;
      if (c === VOLTAGE_COLORS[0].color) low++; else if (c === VOLTAGE_COLORS[2].color) high++;
      this.graph.setNodeAttribute(String(r.id), 'color', c);
    }
    (result.branches ?? []).forEach((f, i) => {
      const key = `b${i}`;
      if (!this.graph.hasEdge(key)) return;
      const br = this.model.branches[i];
      if (br && (off.has(br.from) || off.has(br.to))) {
        this.graph.setEdgeAttribute(key, 'color', DEENERGIZED_COLOR);
        this.graph.setEdgeAttribute(key, 'size', 1);
        return;
      }
      const l = f.loading ?? 0, p = f.p_from ?? 0;
      const c = l > 100 ? LOADING_COLORS[2].color : l >= 70 ? LOADING_COLORS[1].color : LOADING_COLORS[0].color;
      if (l > 100) over++;
      this.orient(i, p < 0);
      if (p < 0) against++;
      this.graph.setEdgeAttribute(key, 'color', c);
      this.graph.setEdgeAttribute(key, 'type', 'arrow'); arrows++;
      this.graph.setEdgeAttribute(key, 'size', 1 + 4 * Math.sqrt(maxP > 0 ? Math.abs(p) / maxP : 0));
    });
    Object.assign(this.container.dataset, { colored: 'true', lowVoltage: String(low), highVoltage: String(high), overloaded: String(over), deenergized: String(dark), flowArrows: String(arrows), flowsAgainst: String(against) });
  }

  /** Buses coloured by their PTDF on one branch (POST /sensitivities kind ptdf, one row), that branch marked. */
  colorPtdf(branch, columns, values) {
    let strongest = 0;
    columns.forEach((id, j) => {
      if (!this.graph.hasNode(String(id))) return;
      const v = values[j] ?? 0;
      if (Math.abs(v) > Math.abs(strongest)) strongest = v;
      this.graph.setNodeAttribute(String(id), 'color', ptdfColor(v));
    });
    this.highlight(branch);
    Object.assign(this.container.dataset, { ptdfBranch: String(branch), ptdfStrongest: String(Math.round(strongest * 1000) / 1000) });
  }

  /** A branch's width on the neutral drawing: 2 on the highest voltage level of a multi-level network. */
  baseSize(br) {
    return Math.max(this.kv.get(br.from) ?? 0, this.kv.get(br.to) ?? 0) >= this.backbone ? 2 : 1;
  }

  /** Buses coloured by a category of the model (area, zone or base_kv); returns the legend entries. */
  colorBy(attribute) {
    const values = [...new Set(this.model.buses.map((b) => b[attribute]))].sort((a, b) => (attribute === 'base_kv' ? b - a : a - b));
    const colorOf = new Map(values.map((v, k) => [v, k < CATEGORY_COLORS.length ? CATEGORY_COLORS[k] : OTHER_COLOR]));
    for (const b of this.model.buses) if (this.graph.hasNode(String(b.id))) this.graph.setNodeAttribute(String(b.id), 'color', colorOf.get(b[attribute]));
    Object.assign(this.container.dataset, { coloredBy: attribute, categories: String(values.length) });
    const unit = attribute === 'base_kv' ? ' kV' : '';
    const shown = values.slice(0, CATEGORY_COLORS.length).map((v) => ({ label: `${attribute === 'base_kv' ? '' : `${attribute} `}${v}${unit}`, color: colorOf.get(v) }));
    return values.length > CATEGORY_COLORS.length ? [...shown, { label: `${values.length - CATEGORY_COLORS.length} more`, color: OTHER_COLOR }] : shown;
  }

  /** Back to the model's own colours (before drawing another result on it). */
  reset() {
    for (const b of this.model.buses) if (this.graph.hasNode(String(b.id))) this.graph.setNodeAttribute(String(b.id), 'color', b.type === 'slack' ? '#7c3aed' : '#6b7280');
    this.model.branches.forEach((br, i) => {
      const key = `b${i}`;
      if (!this.graph.hasEdge(key)) return;
      this.orient(i, false);
      this.graph.setEdgeAttribute(key, 'type', 'line');
      this.graph.setEdgeAttribute(key, 'color', br.status === 'closed' ? '#cbd5e1' : '#fecaca');
      this.graph.setEdgeAttribute(key, 'size', this.baseSize(br));
    });
    this.highlighted = undefined;
    this.container.dataset.flowArrows = '0';
  }

  /** One N-1 study case (a row of GET /studies/{id}/cases): its outaged branches marked, the branches it
   *  overloads red, the buses it left de-energized grey, the buses outside their voltage limits coloured. */
  drawCase(row) {
    this.reset();
    const dark = new Set(row.islanded?.buses ?? []);
    for (const id of dark) if (this.graph.hasNode(String(id))) this.graph.setNodeAttribute(String(id), 'color', DEENERGIZED_COLOR);
    this.model.branches.forEach((br, i) => {
      const key = `b${i}`;
      if (this.graph.hasEdge(key) && (dark.has(br.from) || dark.has(br.to))) this.graph.setEdgeAttribute(key, 'color', DEENERGIZED_COLOR);
    });
    let overloaded = 0;
    for (const v of row.violations ?? []) {
      if (v.type === 'branch_overload' && this.graph.hasEdge(`b${v.element}`)) {
        this.graph.setEdgeAttribute(`b${v.element}`, 'color', LOADING_COLORS[2].color);
        this.graph.setEdgeAttribute(`b${v.element}`, 'size', 3);
        overloaded++;
      } else if ((v.type === 'low_voltage' || v.type === 'high_voltage') && this.graph.hasNode(String(v.element))) {
        this.graph.setNodeAttribute(String(v.element), 'color', v.type === 'low_voltage' ? VOLTAGE_COLORS[0].color : VOLTAGE_COLORS[2].color);
      }
    }
    const outaged = row.contingency?.branches ?? [];
    for (const l of outaged) {
      const key = `b${l}`;
      if (!this.graph.hasEdge(key)) continue;
      this.graph.setEdgeAttribute(key, 'color', OUTAGE_COLOR);
      this.graph.setEdgeAttribute(key, 'size', 5);
    }
    Object.assign(this.container.dataset, { case: row.case_id, caseOutaged: outaged.join(','), caseOverloaded: String(overloaded), caseDeenergized: String(dark.size) });
  }

  /** Buses coloured by their LMP (an OPF's lmp_p, currency/MWh) in five bins from the lowest to the highest;
   *  returns the bins' bounds for the legend. */
  colorPrices(opf) {
    const prices = (opf.buses ?? []).filter((b) => b.energized !== false).map((b) => b.lmp_p);
    const lo = Math.min(...prices), hi = Math.max(...prices);
    const width = (hi - lo) / LMP_COLORS.length;
    const bin = (p) => (width > 0 ? Math.min(LMP_COLORS.length - 1, Math.floor((p - lo) / width)) : 2);
    for (const b of opf.buses ?? []) {
      if (!this.graph.hasNode(String(b.id))) continue;
      this.graph.setNodeAttribute(String(b.id), 'color', b.energized === false ? DEENERGIZED_COLOR : LMP_COLORS[bin(b.lmp_p)]);
    }
    Object.assign(this.container.dataset, { priced: 'true', lmpMin: String(lo), lmpMax: String(hi) });
    return LMP_COLORS.map((color, k) => ({ color, from: lo + k * width, to: k === LMP_COLORS.length - 1 ? hi : lo + (k + 1) * width }));
  }

  /** Moves the view to a bus or a branch (a Find): centred and zoomed in, so its neighbourhood and labels show. */
  flyTo(pick) {
    const ends = pick.kind === 'bus' ? [String(pick.id)] : [String(this.model.branches[pick.index]?.from), String(this.model.branches[pick.index]?.to)];
    const at = ends.map((n) => this.sigma.getNodeDisplayData(n)).filter(Boolean);
    if (at.length === 0) return;
    const x = at.reduce((s, p) => s + p.x, 0) / at.length, y = at.reduce((s, p) => s + p.y, 0) / at.length;
    this.sigma.getCamera().animate({ x, y, ratio: Math.min(0.5, 30 / Math.max(this.graph.order, 1) + 0.05) }, { duration: 400 });
    this.container.dataset.focused = pick.kind === 'bus' ? `bus:${pick.id}` : `branch:${pick.index}`;
  }

  /** Marks one branch (a study's worst case) on the drawing. */
  highlight(index) {
    const key = `b${index}`;
    if (!this.graph.hasEdge(key)) return;
    if (this.highlighted && this.graph.hasEdge(this.highlighted)) this.graph.setEdgeAttribute(this.highlighted, 'size', 1);
    this.graph.setEdgeAttribute(key, 'color', '#db2777');
    this.graph.setEdgeAttribute(key, 'size', 5);
    this.highlighted = key;
    this.container.dataset.highlighted = String(index);
  }

  destroy() { this.sigma.kill(); }
}
