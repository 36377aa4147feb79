// The calculations of the network view and their latest answers: power flow (async, followed live), N-1
// study, OPF (plain or N-1 secure), a branch's PTDF, a state estimate. Each answer is also drawn (graph.js NetworkDrawing).
import { useState } from '/console/vendor/preact-htm.js';
import { api, ApiError } from '/console/api.js';
import { followTask } from '/console/follow.js';
import { orderCases } from '/console/components/study-cases.js';

/** settings: { method, tolerance, maxIterations, islanding, contingencies, limit, opfMethod, secure } from
 *  RunControls; for 'ptdf', { branch } (an index). progress is undefined when nothing runs. */
export function useNetworkRuns(id, drawing, setError) {
  const [result, setResult] = useState(null);
  const [study, setStudy] = useState(null);
  const [opf, setOpf] = useState(null);
  const [ptdf, setPtdf] = useState(null);
  const [se, setSe] = useState(null);
  const [progress, setProgress] = useState(undefined);
  // what the drawing shows now (its legend follows): powerflow, study, ptdf, opf, category or estimate
  const [drawn, setDrawn] = useState(null);
  // calculations ended in this view (the dashboard reloads on each)
  const [ended, setEnded] = useState(0);

  const powerFlow = async (s) => {
    const q = await api('POST', `/api/v1/networks/${id}/powerflow`, {
      method: s.method, async: true, tolerance: Number(s.tolerance), max_iterations: Number(s.maxIterations), islanding: s.islanding,
    });
    const t = await followTask(q.data.task_id, setProgress, id);
    if (t.status !== 'completed') throw new Error(t.error?.message ?? `the power flow ended ${t.status}`);
    const full = (await api('GET', `/api/v1/tasks/${q.data.task_id}?include=result`)).data.result;
    setResult(full); drawing.current?.color(full); setDrawn('powerflow');
  };
  const contingencyStudy = async (s) => {
    const q = await api('POST', `/api/v1/networks/${id}/studies`, {
      kind: 'contingency', contingencies: s.contingencies, method: s.method, tolerance: Number(s.tolerance), max_iterations: Number(s.maxIterations),
      loading_limit_percent: Number(s.limit),
    });
    const st = await followTask(q.data.task_id, setProgress, id, q.data.study_id);
    if (st.status !== 'completed') throw new Error(`the study ended ${st.status}`);
    const cases = await api('GET', `/api/v1/studies/${q.data.study_id}/cases?sort=-max_loading_percent&page_size=100`);
    // the first case of the table drawn: new or worsened violations before the base case's own
    const worst = orderCases(cases.data).find((c) => c.status === 'converged' && c.contingency?.branches?.length);
    setStudy({ id: q.data.study_id, summary: st, cases: cases.data, shown: worst?.case_id ?? null });
    if (worst) { drawing.current?.drawCase(worst); setDrawn('study'); }
  };
  // the selected branch's PTDF: which injections load it, and by how much (docs/sensitivities.md)
  const branchPtdf = async ({ branch }) => {
    const r = await api('POST', `/api/v1/networks/${id}/sensitivities`, { kind: 'ptdf', branches: [branch] });
    const values = r.data.values[0];
    const order = values.map((v, j) => [v, r.data.columns[j]]).sort((a, b) => Math.abs(b[0]) - Math.abs(a[0]));
    setPtdf({ branch, top: order.slice(0, 5) });
    drawing.current?.colorPtdf(branch, r.data.columns, values);
    setDrawn('ptdf');
  };
  const optimalPowerFlow = async (s) => {
    // the security-constrained OPF is a DC-OPF: "N-1 secure" sends method dc with security
    const body = s.secure ? { method: 'dc', security: { contingencies: 'n-1-branches' } } : { method: s.opfMethod, islanding: s.islanding };
    const r = await api('POST', `/api/v1/networks/${id}/opf`, body);
    drawing.current?.color(r.data);
    const priceBins = drawing.current?.colorPrices(r.data) ?? [];
    setOpf({ ...r.data, priceBins });
    setDrawn('opf');
  };
  /** Draws one case of the study on the network (its outage, overloads and de-energized part). */
  const showCase = (row) => {
    drawing.current?.drawCase(row);
    drawing.current?.container.scrollIntoView({ block: 'start' }); // the table is below the drawing
    setStudy((st) => (st ? { ...st, shown: row.case_id } : st));
    setDrawn('study');
  };
  // a state estimate from the network's stored measurements, or inline ones pasted as JSON (a list or {measurements})
  const stateEstimation = async ({ text }) => {
    let body = {};
    if (text.trim()) {
      let parsed;
      try { parsed = JSON.parse(text); } catch (e) {
        throw new ApiError(400, { error: { code: 'INVALID_FIELD', message: `the measurements are not JSON (${e.message})` } });
      }
      body = { measurements: Array.isArray(parsed) ? parsed : parsed?.measurements };
    }
    const r = (await api('POST', `/api/v1/networks/${id}/state-estimation`, body)).data;
    setSe(r);
    if (r.status !== 'converged') return;
    // drawn as after a power flow: the estimated voltages, and the flows they give, by branch index
    const branches = [];
    for (const b of r.branches ?? []) branches[b.index] = b;
    drawing.current?.color({ buses: r.buses, branches: Array.from(branches, (b) => b ?? {}) });
    setDrawn('estimate');
  };
  const RUNS = { powerflow: powerFlow, study: contingencyStudy, ptdf: branchPtdf, opf: optimalPowerFlow, se: stateEstimation };

  const run = async (what, settings) => {
    setError(null); setProgress(0);
    try { await RUNS[what](settings); } catch (e) { setError(e); } finally { setProgress(undefined); setEnded((n) => n + 1); }
  };
  /** Buses coloured by a category of the model (area, zone, base_kv): the legend's entries. */
  const [categories, setCategories] = useState(null);
  const colorBy = (attribute) => {
    setCategories({ attribute, entries: drawing.current?.colorBy(attribute) ?? [] });
    setDrawn('category');
  };
  return { result, study, opf, ptdf, se, progress, run, showCase, drawn, ended, categories, colorBy };
}
