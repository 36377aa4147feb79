// The network drawing: graphology holds buses and branches, sigma.js draws them with WebGL (made for
// thousands of nodes: case9241pegase stays usable), at the positions of GET /networks/{id}/layout (the
// buses' own coordinates, or a structure layout the server computes once per network version and keeps).
// Colours after a power flow: buses by voltage, branches by loading; after an
// OPF, buses by price; a study case drawn on the network (its outage, overloads, de-energized part).
/* global graphology, Sigma */
import { PROGRAMS_WITHOUT_INSTANCING } from './programs.js';

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
  return v <= -0.5 ? PTDF_COLORS[0].color : v <= -0.1 ? PTDF_COLORS[1].color : v < 0.1 ? PTDF_COLORS[2].color
    : v < 0.5 ? PTDF_COLORS[3].color : PTDF_COLORS[4].color;
}

/** Locational marginal prices after an OPF: five equal bins between the lowest and the highest price. */
export const LMP_COLORS = ['#1e3a8a', '#3b82f6', '#a3e635', '#f59e0b', '#b91c1c'];
/** The outaged branch of a study case drawn on the network. */
export const OUTAGE_COLOR = '#db2777';
/** A study case's violations against the base case (CONTRACT): new or worsened ones strong, the base case's own muted. */
export const CASE_COLORS = [
  { label: 'new / worsened overload', color: '#dc2626' }, { label: 'new / worsened low v', color: '#2563eb' },
  { label: 'new / worsened high v', color: '#ea580c' }, { label: 'pre-existing overload', color: '#e8b4b4' },
  { label: 'pre-existing voltage', color: '#c7cbe0' },
];

/** Categories (areas, zones, voltage levels): twelve distinguishable colours, then grey for the rest. */
export const CATEGORY_COLORS = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#393b79', '#637939', '#843c39',
];
const OTHER_COLOR = '#9ca3af';

/** Level of detail: a network above LOD_BUSES buses is drawn as its areas (or zones) while the camera is zoomed
 *  out past LOD_RATIO (1 = the whole network in view), every bus once zoomed in. */
const LOD_BUSES = 2000;
const LOD_RATIO = 0.6;

export class NetworkDrawing {
  constructor(container, model, layout, onPick) {
    this.container = container;
    this.model = model;
    const graph = new graphology.MultiGraph();
    const pos = layout.positions;
    this.reversed = new Set(); // branches drawn from `to` to `from` (./orient)
    model.buses.forEach((b, i) => {
      const color = b.type === 'slack' ? '#7c3aed' : '#6b7280';
      graph.addNode(String(b.id), { x: pos[2 * i], y: pos[2 * i + 1], size: model.buses.length > 2000 ? 2 : 5, label: `bus ${b.id}`, color, base: color });
    });
    // the highest voltage level drawn thicker (the backbone), when the network has several
    this.kv = new Map(model.buses.map((b) => [b.id, b.base_kv ?? 0]));
    const levels = [...new Set(model.buses.map((b) => b.base_kv ?? 0))].sort((a, b) => b - a);
    this.backbone = levels.length > 1 ? levels[0] : Infinity;
    model.branches.forEach((br, i) => {
      if (!graph.hasNode(String(br.from)) || !graph.hasNode(String(br.to))) return;
      const size = this.baseSize(br), color = br.status === 'closed' ? '#cbd5e1' : '#fecaca';
      graph.addEdgeWithKey(`b${i}`, String(br.from), String(br.to), { size, color, base: { size, color } });
    });
    this.graph = graph;
    // A large network is never handed to sigma whole (it walks every element of the graph it draws each frame, on
    // screen or not): zoomed out it draws the groups, a small graph of their own; zoomed in, the buses in and near
    // the view with their branches, a graph rebuilt as the view leaves it (cull). Every graph is framed by the
    // buses' extent, so swapping moves nothing; colours are written to the network's graph and copied over (./mirror).
    this.large = model.buses.length > LOD_BUSES;
    this.groupGraph = this.large ? new graphology.Graph() : null;
    this.groups = this.groupGraph ? this.addGroups(pos) : null;
    this.overview = Boolean(this.groups);
    // labels appear as the view zooms in (a bus's drawn size, 2 px on a large network, passes the threshold), never all at
    // once on a large network
    // allowInvalidContainer: a view being replaced can hand over a container not laid out yet; sigma draws on resize
    // sigma's programs without instancing (./programs.js): the same drawing, 5× faster where WebGL runs in software
    const settings = {
      enableEdgeEvents: true, renderLabels: true, allowInvalidContainer: true,
      labelRenderedSizeThreshold: model.buses.length <= 300 || this.large ? 8 : 14, ...PROGRAMS_WITHOUT_INSTANCING,
    };
    // a large network's branches and labels are left out of the frames painted while the camera moves
    if (this.large) Object.assign(settings, { hideEdgesOnMove: true, hideLabelsOnMove: true });
    this.sigma = new Sigma(this.overview ? this.groupGraph : graph, container, settings);
    container.gridopsDrawing = this; // for the browser benchmark (bench/console.ts) and diagnostics
    if (this.large) {
      let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
      for (let i = 0; i < model.buses.length; i++) {
        minX = Math.min(minX, pos[2 * i]); maxX = Math.max(maxX, pos[2 * i]); minY = Math.min(minY, pos[2 * i + 1]); maxY = Math.max(maxY, pos[2 * i + 1]);
      }
      this.bbox = { x: [minX, maxX], y: [minY, maxY] };
      this.sigma.setCustomBBox(this.bbox);
      // setCustomBBox only schedules a render: the zones, processed by the constructor, would keep their own extent's
      // framing (and viewportToGraph its inverse) until processed again, so the first zoom into the buses culled
      // around the wrong place (a view set in one step came out blank)
      this.sigma.refresh();
      this.viewGraph = null;
      this.built = null;
      this.mirror();
      container.dataset.overview = String(this.overview);
      this.sigma.getCamera().on('updated', (state) => {
        if (this.groups && (state.ratio > LOD_RATIO) !== this.overview) this.setOverview(state.ratio > LOD_RATIO);
        else if (!this.overview) this.cull();
      });
    }
    container.dataset.drawnBuses = String(this.overview ? 0 : model.buses.length);
    this.sigma.on('clickNode', ({ node }) => {
      // a group zooms in on itself; a bus is picked
      if (node.startsWith('g:')) {
        const d = this.sigma.getNodeDisplayData(node);
        this.sigma.getCamera().animate({ x: d.x, y: d.y, ratio: LOD_RATIO / 2 }, { duration: 400 });
        return;
      }
      onPick({ kind: 'bus', id: Number(node) });
    });
    this.sigma.on('clickEdge', ({ edge }) => { if (!edge.startsWith('g:')) onPick({ kind: 'branch', index: Number(edge.slice(1)) }); });
    container.dataset.nodes = String(model.buses.length);
    container.dataset.layout = layout.source;
    container.dataset.edges = String(model.branches.filter((br) => graph.hasNode(String(br.from)) && graph.hasNode(String(br.to))).length);
    container.dataset.colored = 'false';
  }

  /** One node per area (or per zone when the network has one area) at the centre of its buses, sized by their
   *  number, and one edge per pair of groups that branches join, as wide as there are such branches. */
  addGroups(pos) {
    const by = new Set(this.model.buses.map((b) => b.area)).size > 1 ? 'area' : new Set(this.model.buses.map((b) => b.zone)).size > 1 ? 'zone' : null;
    if (!by) return null;
    const at = new Map();
    this.model.buses.forEach((b, i) => {
      const g = at.get(b[by]) ?? { x: 0, y: 0, n: 0 };
      g.x += pos[2 * i]; g.y += pos[2 * i + 1]; g.n++;
      at.set(b[by], g);
    });
    const values = [...at.keys()].sort((a, b) => a - b), most = Math.max(...[...at.values()].map((g) => g.n));
    values.forEach((v, k) => {
      const g = at.get(v);
      const color = k < CATEGORY_COLORS.length ? CATEGORY_COLORS[k] : OTHER_COLOR;
      this.groupGraph.addNode(`g:${v}`, {
        x: g.x / g.n, y: g.y / g.n, size: 6 + 14 * Math.sqrt(g.n / most), label: `${by} ${v} (${g.n} buses)`, color, base: color,
      });
    });
    const group = new Map(this.model.buses.map((b) => [b.id, b[by]])), links = new Map();
    for (const br of this.model.branches) {
      const a = group.get(br.from), b = group.get(br.to);
      if (a === undefined || b === undefined || a === b) continue;
      const key = a < b ? `g:${a}-${b}` : `g:${b}-${a}`;
      links.set(key, (links.get(key) ?? 0) + 1);
    }
    for (const [key, count] of links) {
      const [a, b] = key.slice(2).split('-');
      const size = 1 + 2 * Math.log2(count);
      this.groupGraph.addEdgeWithKey(key, `g:${a}`, `g:${b}`, { size, color: '#94a3b8', label: `${count} branches`, base: { size, color: '#94a3b8' } });
    }
    this.container.dataset.groupedBy = by;
    this.container.dataset.groups = String(values.length);
    return { by, count: values.length, of: group };
  }

  /** A power flow on the groups: a group in the colour of its worst bus (below vmin, above vmax, else within
   *  limits), a link in the colour of its most loaded branch. */
  colorGroups(result) {
    if (!this.groups) return;
    const rank = new Map(VOLTAGE_COLORS.map((c, k) => [c.color, k === 1 ? 0 : 1]));
    const worst = new Map();
    for (const b of this.model.buses) {
      const c = this.graph.getNodeAttribute(String(b.id), 'color'), g = this.groups.of.get(b.id), had = worst.get(g);
      if (rank.has(c) && (had === undefined || rank.get(c) > rank.get(had))) worst.set(g, c);
    }
    for (const [g, c] of worst) this.groupGraph.setNodeAttribute(`g:${g}`, 'color', c);
    const load = new Map();
    (result.branches ?? []).forEach((f, i) => {
      const br = this.model.branches[i], a = this.groups.of.get(br?.from), b = this.groups.of.get(br?.to);
      if (a === undefined || b === undefined || a === b) return;
      const key = a < b ? `g:${a}-${b}` : `g:${b}-${a}`;
      load.set(key, Math.max(load.get(key) ?? 0, f.loading ?? 0));
    });
    for (const [key, l] of load) {
      this.groupGraph.setEdgeAttribute(key, 'color', l > 100 ? LOADING_COLORS[2].color : l >= 70 ? LOADING_COLORS[1].color : LOADING_COLORS[0].color);
    }
  }

  /** Zoomed out (the groups) or in (the buses in view). */
  setOverview(on) {
    if (!this.groups || on === this.overview) return;
    this.overview = on;
    this.container.dataset.overview = String(on);
    if (on) { this.sigma.setGraph(this.groupGraph); this.built = null; this.container.dataset.drawnBuses = '0'; } else this.cull();
  }

  /** Zoomed in on a large network: sigma draws the buses within the view and an eighth of a view around it, their branches
   *  and those branches' other ends; rebuilt when the view leaves that region or has become much smaller than it. */
  cull() {
    const { width, height } = this.sigma.getDimensions();
    if (!(width > 0 && height > 0)) return;
    const a = this.sigma.viewportToGraph({ x: 0, y: 0 }), b = this.sigma.viewportToGraph({ x: width, y: height });
    const x0 = Math.min(a.x, b.x), x1 = Math.max(a.x, b.x), y0 = Math.min(a.y, b.y), y1 = Math.max(a.y, b.y);
    const w = x1 - x0, h = y1 - y0, r = this.built;
    if (r && x0 >= r.x0 && x1 <= r.x1 && y0 >= r.y0 && y1 <= r.y1 && (r.x1 - r.x0) * (r.y1 - r.y0) <= 4 * w * h) return;
    const region = { x0: x0 - w / 8, x1: x1 + w / 8, y0: y0 - h / 8, y1: y1 + h / 8 };
    const [bx0, bx1] = this.bbox.x, [by0, by1] = this.bbox.y;
    if (region.x0 <= bx0 && region.x1 >= bx1 && region.y0 <= by0 && region.y1 >= by1) {
      // the region holds the whole network: draw it
      this.built = region; this.viewGraph = null;
      this.sigma.setGraph(this.graph);
      this.container.dataset.drawnBuses = String(this.model.buses.length);
      return;
    }
    const g = new graphology.MultiGraph(), full = this.graph;
    full.forEachNode((key, at) => { if (at.x >= region.x0 && at.x <= region.x1 && at.y >= region.y0 && at.y <= region.y1) g.addNode(key, { ...at }); });
    const inside = g.order;
    full.forEachEdge((key, at, source, target) => {
      if (!g.hasNode(source) && !g.hasNode(target)) return;
      if (!g.hasNode(source)) g.addNode(source, { ...full.getNodeAttributes(source) });
      if (!g.hasNode(target)) g.addNode(target, { ...full.getNodeAttributes(target) });
      g.addEdgeWithKey(key, source, target, { ...at });
    });
    this.built = region; this.viewGraph = g;
    this.sigma.setGraph(g);
    this.container.dataset.drawnBuses = String(inside);
  }

  /** Every change to the network's graph (colours, sizes, a branch turned round) copied to the culled graph. */
  mirror() {
    const full = this.graph;
    const view = () => this.viewGraph;
    full.on('nodeAttributesUpdated', ({ key }) => { if (view()?.hasNode(key)) view().replaceNodeAttributes(key, { ...full.getNodeAttributes(key) }); });
    full.on('edgeAttributesUpdated', ({ key }) => { if (view()?.hasEdge(key)) view().replaceEdgeAttributes(key, { ...full.getEdgeAttributes(key) }); });
    full.on('eachNodeAttributesUpdated', () => view()?.updateEachNodeAttributes((key) => ({ ...full.getNodeAttributes(key) })));
    full.on('eachEdgeAttributesUpdated', () => view()?.updateEachEdgeAttributes((key) => ({ ...full.getEdgeAttributes(key) })));
    full.on('edgeDropped', ({ key }) => { if (view()?.hasEdge(key)) view().dropEdge(key); });
    full.on('edgeAdded', ({ key, source, target, attributes }) => {
      const g = view();
      if (!g || (!g.hasNode(source) && !g.hasNode(target))) return;
      if (!g.hasNode(source)) g.addNode(source, { ...full.getNodeAttributes(source) });
      if (!g.hasNode(target)) g.addNode(target, { ...full.getNodeAttributes(target) });
      g.addEdgeWithKey(key, source, target, { ...attributes });
    });
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
    this.colorGroups(result);
    Object.assign(this.container.dataset, {
      colored: 'true', lowVoltage: String(low), highVoltage: String(high), overloaded: String(over), deenergized: String(dark),
      flowArrows: String(arrows), flowsAgainst: String(against),
    });
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
    const shown = values.slice(0, CATEGORY_COLORS.length).map((v) => ({
      label: `${attribute === 'base_kv' ? '' : `${attribute} `}${v}${unit}`, color: colorOf.get(v),
    }));
    return values.length > CATEGORY_COLORS.length ? [...shown, { label: `${values.length - CATEGORY_COLORS.length} more`, color: OTHER_COLOR }] : shown;
  }

  /** Back to the model's own colours (before drawing another result on it): two batched updates (one graph event
   *  each), not one event per element, which is what a case switch on 25,000 elements waits for. */
  reset() {
    for (const i of [...this.reversed]) this.orient(i, false);
    this.graph.updateEachNodeAttributes((_node, a) => (a.color === a.base ? a : { ...a, color: a.base }), { attributes: ['color'] });
    this.graph.updateEachEdgeAttributes((_edge, a) => (a.color === a.base.color && a.size === a.base.size && a.type !== 'arrow' ? a
      : { ...a, color: a.base.color, size: a.base.size, type: 'line' }), { attributes: ['color', 'size', 'type'] });
    this.groupGraph?.updateEachNodeAttributes((_node, a) => ({ ...a, color: a.base }), { attributes: ['color'] });
    this.groupGraph?.updateEachEdgeAttributes((_edge, a) => ({ ...a, color: a.base.color }), { attributes: ['color'] });
    this.highlighted = undefined;
    this.container.dataset.flowArrows = '0';
  }

  /** One N-1 study case (a row of GET /studies/{id}/cases): its outaged branches marked, the buses it left
   *  de-energized grey, its violations coloured by kind: new or worsened ones strong (overloads red and thick,
   *  voltages blue or orange), the base case's own (pre_existing) muted (CASE_COLORS). */
  drawCase(row) {
    this.reset();
    const dark = new Set(row.islanded?.buses ?? []);
    for (const id of dark) if (this.graph.hasNode(String(id))) this.graph.setNodeAttribute(String(id), 'color', DEENERGIZED_COLOR);
    this.model.branches.forEach((br, i) => {
      const key = `b${i}`;
      if (this.graph.hasEdge(key) && (dark.has(br.from) || dark.has(br.to))) this.graph.setEdgeAttribute(key, 'color', DEENERGIZED_COLOR);
    });
    // the base case's own violations first, muted, so a new or worsened one on the same element draws over them
    let overloaded = 0, fresh = 0, old = 0;
    const violations = row.violations ?? [];
    for (const v of [...violations.filter((x) => x.kind === 'pre_existing'), ...violations.filter((x) => x.kind !== 'pre_existing')]) {
      const isNew = v.kind !== 'pre_existing';
      if (v.type === 'branch_overload' && this.graph.hasEdge(`b${v.element}`)) {
        this.graph.setEdgeAttribute(`b${v.element}`, 'color', isNew ? CASE_COLORS[0].color : CASE_COLORS[3].color);
        this.graph.setEdgeAttribute(`b${v.element}`, 'size', isNew ? 3 : 1.5);
        overloaded++;
      } else if ((v.type === 'low_voltage' || v.type === 'high_voltage') && this.graph.hasNode(String(v.element))) {
        const c = !isNew ? CASE_COLORS[4].color : v.type === 'low_voltage' ? CASE_COLORS[1].color : CASE_COLORS[2].color;
        this.graph.setNodeAttribute(String(v.element), 'color', c);
      } else continue;
      if (isNew) fresh++; else old++;
    }
    const outaged = row.contingency?.branches ?? [];
    for (const l of outaged) {
      const key = `b${l}`;
      if (!this.graph.hasEdge(key)) continue;
      this.graph.setEdgeAttribute(key, 'color', OUTAGE_COLOR);
      this.graph.setEdgeAttribute(key, 'size', 5);
    }
    Object.assign(this.container.dataset, {
      case: row.case_id, caseOutaged: outaged.join(','), caseOverloaded: String(overloaded), caseDeenergized: String(dark.size),
      caseNew: String(fresh), casePreExisting: String(old) });
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
    // on a large network the bus may not be in the graph sigma draws: framed as sigma frames them (the bbox)
    const framed = (n) => {
      if (!this.graph.hasNode(n)) return null;
      if (!this.large) return this.sigma.getNodeDisplayData(n);
      const a = this.graph.getNodeAttributes(n), { x: [x0, x1], y: [y0, y1] } = this.bbox, r = Math.max(x1 - x0, y1 - y0) || 1;
      return { x: 0.5 + (a.x - (x0 + x1) / 2) / r, y: 0.5 + (a.y - (y0 + y1) / 2) / r };
    };
    const at = ends.map(framed).filter(Boolean);
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
