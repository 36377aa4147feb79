// A DC-OPF whose costs are all linear (polynomials of degree ≤ 1, piecewise-linear curves) is a linear
// programme. MATPOWER hands those to GLPK rather than MIPS. gridops solves them with MIPS and Mehrotra's
// predictor–corrector (assembly/opf/mips.ts: MIPS's fixed centring crawled on the degenerate case2383wp and
// stopped at its iteration limit); an LP that still does not converge in LP_MIPS_ITERATIONS goes to
// HiGHS (npm `highs`, the solver compiled to WebAssembly), in the same worker, on the model the wasm
// core builds (assembly/opf/entry.ts opfLpBuild: the same rows as the DC-OPF's QP), and the core writes
// the results from its solution exactly as it writes MIPS's.
//
// Multipliers: HiGHS reports row duals y and reduced costs d with c − Aᵀy − d = 0 (minimisation), so the
// multiplier of a row's lower side is max(y, 0) and of its upper side max(−y, 0); the same for columns with
// d. LMPs are then −y of the power-balance rows (per baseMVA), as MIPS's λ.
import * as highsPackage from 'highs';
import type { Highs } from 'highs';
import type { PowerFlowEngine } from '../engine/solverInstance.js';
import { performance } from 'node:perf_hooks';
import { LP, OUT, STATUS } from './abi.js';

let highs: Promise<Highs> | undefined;
// highs ships CommonJS types beside its ES module: under NodeNext the loader is the ES module's default
// export, which the types see one level down.
const loadHighs = ((highsPackage as unknown as { default: unknown }).default as { default?: unknown }).default as (() => Promise<Highs>) | undefined
  ?? ((highsPackage as unknown as { default: () => Promise<Highs> }).default);

/** HiGHS model status codes (highs.constants.modelStatus) this module distinguishes. */
const OPTIMAL = 7, INFEASIBLE = 8;

export interface LpRun { output: Float64Array; iterations: number; objective: number }

/** HiGHS's model status after a run; a run HiGHS itself reports as an error (it throws: IPX ends
 *  "imprecise" on case2869pegase's and case9241pegase's LPs without crossover) counts as not optimal. */
function run(model: ReturnType<Highs['createModel']>): number {
  try {
    model.run();
  } catch {
    return -1;
  }
  return model.getModelStatus();
}

/** Solves the input's DC-OPF as an LP when it is one; undefined when it is not (MIPS then) or when HiGHS
 *  ends without an answer (MIPS's stands then). */
export async function solveOpfLp(engine: PowerFlowEngine, input: Float64Array, timeLimitS: number): Promise<LpRun | undefined> {
  const d = engine.buildOpfLp(input);
  if (!d) return undefined;
  const h = await (highs ??= loadHighs());
  const nx = d[LP.NX]!, nA = d[LP.NA]!, nnz = d[LP.NNZ]!, constant = d[LP.CONSTANT]!;
  let o = LP.HEADER;
  const take = (n: number) => { const v = d.subarray(o, o + n); o += n; return v; };
  const c = take(nx), xmin = take(nx), xmax = take(nx), l = take(nA), u = take(nA);
  const Ap = take(nA + 1), Aj = take(nnz), Ax = take(nnz);
  // rows may repeat a column (a bus's own angle once per branch): HiGHS wants each once, summed
  const starts = new Int32Array(nA + 1), indices = new Int32Array(nnz), values = new Float64Array(nnz);
  const at = new Int32Array(nx).fill(-1);
  let k = 0;
  for (let r = 0; r < nA; r++) {
    const first = k;
    for (let p = Ap[r]!; p < Ap[r + 1]!; p++) {
      const j = Aj[p]!;
      if (at[j]! >= first) { values[at[j]!] += Ax[p]!; continue; }
      at[j] = k; indices[k] = j; values[k] = Ax[p]!; k++;
    }
    starts[r + 1] = k;
  }
  const inf = h.infinity;
  const finite = (v: Float64Array) => Float64Array.from(v, (x) => (x === Infinity ? inf : x === -Infinity ? -inf : x));
  const model = h.createModel({
    numCols: nx, numRows: nA, offset: constant, colCost: c, colLower: finite(xmin), colUpper: finite(xmax),
    rowLower: finite(l), rowUpper: finite(u),
    matrix: { format: 'csr', numRows: nA, numCols: nx, starts, indices: indices.subarray(0, k), values: values.subarray(0, k) },
  });
  try {
    // HiGHS's interior point without crossover first: on case2383wp 82–96 ms against 270–480 ms for its default
    // (dual simplex) on this machine; the prices of an interior optimum are MIPS's kind. The simplex only when the
    // interior point does not end optimal.
    const started = performance.now();
    model.options.set({ output_flag: false, time_limit: timeLimitS, solver: 'ipm', run_crossover: 'off' });
    let status = run(model);
    let iterations = Number(model.info.get('ipm_iteration_count') ?? 0);
    if (status !== OPTIMAL) {
      model.options.set({ solver: 'choose', run_crossover: 'on', time_limit: Math.max(timeLimitS - (performance.now() - started) / 1000, 0.01) });
      status = run(model);
      iterations += Number(model.info.get('simplex_iteration_count') ?? 0);
    }
    // neither ended optimal: MIPS's own (unconverged) answer stands, as it would without an LP solver
    if (status !== OPTIMAL && status !== INFEASIBLE) return undefined;
    const objective = model.getObjectiveValue();
    const sol = model.getSolution();
    const rows = nx + nA;
    const s = new Float64Array(nx + 2 * rows);
    s.set(sol.colValue, 0);
    for (let j = 0; j < nx; j++) { const dj = sol.colDual[j]!; s[nx + j] = Math.max(dj, 0); s[nx + rows + j] = Math.max(-dj, 0); }
    for (let r = 0; r < nA; r++) { const y = sol.rowDual[r]!; s[nx + nx + r] = Math.max(y, 0); s[nx + rows + nx + r] = Math.max(-y, 0); }
    const code = status === OPTIMAL ? STATUS.CONVERGED : STATUS.FAILED;
    const output = engine.finishOpfLp(s, code, iterations, objective);
    // unpackOpf tells infeasible from diverged by the feasibility measure
    output[OUT.FEAS] = status === INFEASIBLE ? 1 : 0;
    return { output, iterations, objective };
  } finally {
    model.dispose();
  }
}
