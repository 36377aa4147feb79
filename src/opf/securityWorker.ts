// The solver-thread side of the security-constrained DC-OPF (./security.ts packs the task, workers/solver.ts runs
// it): constraint generation, whole, on one solver thread, so no step of it holds the API's event loop.
//
//   1. which listed outages split the network (a multi-branch outage by a union-find without its branches;
//      single bridges are flagged by the caller), excluded;
//   2. LODF(m, k) for the monitored rows (and the branches of multi-branch outages) and every outaged branch,
//      from the core's flow shifts (assembly/sensitivity.ts) in bounded chunks;
//   3. per multi-branch outage K (k branches): W = (I − L_KK°)⁻¹, one k×k factorisation (k³), so a round costs
//      y = W f_K (k²) and f'_m = f_m + L_mK y (k per monitored branch) instead of O(n⁴) per outage;
//   4. rounds: the DC-OPF (./worker.ts, the same solver as every OPF) with the rows added so far; the violated
//      post-contingency flows, worst first, become the next rows; until none is violated.
// The first round needs no post-contingency row: it is solved before steps 1-3, and every round's progress is
// posted on the pool's live channel as the round ends (the task's progress events, round by round).
// The stop flag ([0] non-zero: cancel 1 or timeout 2, set by the caller's timer or cancel) is read between
// rounds, between chunks and between outages of a scan; timeLimitMs is checked here too.
import { performance } from 'node:perf_hooks';
import type { PowerFlowEngine } from '../engine/solverInstance.js';
import type { ThreadJob } from '../engine/jobControl.js';
import type { JobSlots } from '../engine/kinds.js';
import { connectedComponents } from '../lib/graph.js';
import { BR, BUS_FIELDS, IN, OUT, OUT_BR_FIELDS, OUT_BUS_FIELDS, OUT_GEN_FIELDS, STATUS } from './abi.js';
import { PROGRESS_FIELDS, runOpfTask } from './worker.js';

/** What src/opf/security.ts hands pool.run('scopf', ...); the job's stop and live route come with it (JobSlots). */
export interface ScopfPayload {
  /** the packed DC-OPF (./pack.ts), without extra rows */
  opf: Float64Array;
  /** the packed DC power flow of the same model (the sensitivities' input, src/powerflow/pack.ts) */
  dc: Float64Array;
  /** branches in dc's numbering (the length of one flow shift) */
  dcBranches: number;
  /** per OPF-internal branch: its index in dc's numbering (-1: none) */
  sens: Int32Array;
  /** per OPF-internal branch: the post-contingency limit in MW, 0 when the branch is not monitored */
  limit: Float64Array;
  /** outage c has OPF-internal branches outageBranches[outageStart[c] .. outageStart[c + 1]) */
  outageStart: Int32Array;
  outageBranches: Int32Array;
  /** per outage: 1 when the caller knows it splits the network (a single bridge) */
  bridge: Uint8Array;
  timeLimitMs: number;
}

export interface ScopfWorkerResult {
  /** 'done': output holds the last round; 'singular': the DC susceptance matrix is singular; 'stopped': the flag or the time */
  end: 'done' | 'singular' | 'stopped';
  /** the last round's OPF output, then every round's progress rows (PROGRESS_FIELDS each), then their count */
  output: Float64Array;
  rounds: number;
  /** outages (positions in the task's list) that split the network, or whose k×k system is singular */
  excluded: Int32Array;
  /** the rows added, in order: outage position, OPF-internal monitored branch, coefficients at coefStart[q].. */
  addedOutage: Int32Array;
  addedBranch: Int32Array;
  coefStart: Int32Array;
  coefs: Float64Array;
}

/** A post-contingency flow above its limit by more than this (MW) is a violation: above MIPS's feasibility
 *  tolerance (5e-6 p.u.), so a row just added is not found violated again. */
const VIOLATION_MW = 1e-3;
export const MAX_ROUNDS = 30;
const ROWS_PER_ROUND = 200;
/** Flow-shift values one core call computes (16 MB): the wasm memory stays small whatever the outage count. */
const SHIFT_CHUNK_VALUES = 1 << 21;

/** LU with partial pivoting of the n×n row-major a, in place; perm receives the row order. False when singular. */
function luFactor(a: Float64Array, perm: Int32Array, n: number): boolean {
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i * n + k]!) > Math.abs(a[p * n + k]!)) p = i;
    if (Math.abs(a[p * n + k]!) < 1e-12) return false;
    if (p !== k) {
      for (let j = 0; j < n; j++) {
        const t = a[k * n + j]!;
        a[k * n + j] = a[p * n + j]!;
        a[p * n + j] = t;
      }
      const t = perm[k]!;
      perm[k] = perm[p]!;
      perm[p] = t;
    }
    const d = a[k * n + k]!;
    for (let i = k + 1; i < n; i++) {
      const f = (a[i * n + k]! /= d);
      if (f === 0) continue;
      for (let j = k + 1; j < n; j++) a[i * n + j] -= f * a[k * n + j]!;
    }
  }
  return true;
}

/** W = A⁻¹ (row-major) from the LU of luFactor: n solves of the factors, n³ in all. */
function inverse(lu: Float64Array, perm: Int32Array, n: number): Float64Array {
  const w = new Float64Array(n * n),
    x = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    for (let i = 0; i < n; i++) x[i] = perm[i] === c ? 1 : 0;
    for (let i = 0; i < n; i++) {
      let s = x[i]!;
      for (let j = 0; j < i; j++) s -= lu[i * n + j]! * x[j]!;
      x[i] = s;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = x[i]!;
      for (let j = i + 1; j < n; j++) s -= lu[i * n + j]! * x[j]!;
      x[i] = s / lu[i * n + i]!;
    }
    for (let i = 0; i < n; i++) w[i * n + c] = x[i]!;
  }
  return w;
}

/** live: each round's progress rows, posted as the round ends. */
export async function runScopfTask(
  engine: PowerFlowEngine, task: ScopfPayload & JobSlots, job: ThreadJob, live?: (from: number, rows: Float64Array) => void,
): Promise<ScopfWorkerResult> {
  const started = performance.now();
  const { opf, limit, outageStart, outageBranches } = task;
  const stopped = () => job.stop !== 0 || performance.now() - started > task.timeLimitMs;
  const nb = opf[IN.NB]!,
    nl = opf[IN.NL]!;
  const brOff = IN.HEADER + BUS_FIELDS * nb;
  const from = (l: number) => opf[brOff + BR.F * nl + l]!,
    to = (l: number) => opf[brOff + BR.T * nl + l]!;
  const nOut = outageStart.length - 1;
  const empty = (end: ScopfWorkerResult['end'], rounds = 0): ScopfWorkerResult => ({
    end,
    output: Float64Array.of(0),
    rounds,
    excluded: new Int32Array(0),
    addedOutage: new Int32Array(0),
    addedBranch: new Int32Array(0),
    coefStart: Int32Array.of(0),
    coefs: new Float64Array(0),
  });
  if (job.stoppedBefore || stopped()) return empty('stopped');
  const oBr = OUT.HEADER + OUT_BUS_FIELDS * nb;
  let progress: number[] = [];
  let last = new Float64Array(0);
  let rounds = 0;
  const encoded: number[] = [];
  const addedOutage: number[] = [],
    addedBranch: number[] = [],
    coefStart: number[] = [0],
    coefs: number[] = [];
  const excluded: number[] = [];
  const finish = (end: ScopfWorkerResult['end']): ScopfWorkerResult => {
    const output = new Float64Array(last.length + progress.length + 1);
    output.set(last);
    output.set(progress, last.length);
    output[output.length - 1] = progress.length / PROGRESS_FIELDS;
    return {
      end,
      output,
      rounds,
      excluded: Int32Array.from(excluded).sort(),
      addedOutage: Int32Array.from(addedOutage),
      addedBranch: Int32Array.from(addedBranch),
      coefStart: Int32Array.from(coefStart),
      coefs: Float64Array.from(coefs),
    };
  };
  /** One round: the DC-OPF with the rows added so far; false when it did not converge (the answer then). */
  const round = async (): Promise<boolean> => {
    rounds++;
    const x = Float64Array.from(encoded);
    const input = new Float64Array(opf.length + x.length);
    input.set(opf);
    input.set(x, opf.length);
    input[IN.NXROWS] = addedOutage.length;
    input[IN.XROWS_AT] = opf.length;
    input[IN.TIME_LIMIT_S] = Math.max(0.01, (task.timeLimitMs - (performance.now() - started)) / 1000);
    const full = await runOpfTask(engine, input, job);
    const n = full[full.length - 1]!;
    const outLen = full.length - 1 - PROGRESS_FIELDS * n;
    const rows = full.slice(outLen, outLen + PROGRESS_FIELDS * n);
    live?.(progress.length / PROGRESS_FIELDS, rows);
    progress = progress.concat(Array.from(rows));
    last = full.slice(0, outLen);
    return last[OUT.STATUS] === STATUS.CONVERGED;
  };
  if (!(await round())) return finish(last[OUT.STATUS] === STATUS.CANCELLED ? 'stopped' : 'done');

  // 1. splitting outages
  const kept: number[] = [];
  const intact = connectedComponents(nb, (link) => {
    for (let l = 0; l < nl; l++) link(from(l), to(l));
  }).count;
  const out = new Uint8Array(nl);
  for (let c = 0; c < nOut; c++) {
    if (stopped()) return finish('stopped');
    const a = outageStart[c]!,
      b = outageStart[c + 1]!;
    let splits = task.bridge[c] === 1;
    if (!splits && b - a > 1) {
      for (let q = a; q < b; q++) out[outageBranches[q]!] = 1;
      splits =
        connectedComponents(nb, (link) => {
          for (let l = 0; l < nl; l++) if (!out[l]) link(from(l), to(l));
        }).count > intact;
      for (let q = a; q < b; q++) out[outageBranches[q]!] = 0;
    }
    (splits ? excluded : kept).push(c);
  }

  // 2. LODF columns of the outaged branches over the rows needed
  const monitored: number[] = [];
  for (let l = 0; l < nl; l++) if (limit[l]! > 0) monitored.push(l);
  const rowPos = new Int32Array(nl).fill(-1),
    colPos = new Int32Array(nl).fill(-1);
  let nRows = 0,
    nCols = 0;
  for (const m of monitored) rowPos[m] = nRows++;
  for (const c of kept) {
    const a = outageStart[c]!,
      b = outageStart[c + 1]!;
    for (let q = a; q < b; q++) {
      const k = outageBranches[q]!;
      if (colPos[k]! < 0) colPos[k] = nCols++;
      if (b - a > 1 && rowPos[k]! < 0) rowPos[k] = nRows++;
    }
  }
  const rowsOf = new Int32Array(nRows),
    colsOf = new Int32Array(nCols);
  for (let l = 0; l < nl; l++) {
    if (rowPos[l]! >= 0) rowsOf[rowPos[l]!] = l;
    if (colPos[l]! >= 0) colsOf[colPos[l]!] = l;
  }
  const L = new Float64Array(nCols * nRows); // column of outaged branch k at colPos[k] * nRows
  const nlS = task.dcBranches;
  const per = Math.max(1, Math.floor(SHIFT_CHUNK_VALUES / Math.max(1, nlS)));
  for (let first = 0; first < nCols; first += per) {
    if (stopped()) return finish('stopped');
    const count = Math.min(per, nCols - first);
    const items = new Float64Array(count);
    for (let j = 0; j < count; j++) items[j] = task.sens[colsOf[first + j]!]!;
    const shifts = engine.sensitivity(task.dc, 1, items);
    if (shifts === null) return empty('singular');
    for (let j = 0; j < count; j++) {
      const k = colsOf[first + j]!,
        o = j * nlS,
        col = (first + j) * nRows;
      const denom = 1 - shifts[o + task.sens[k]!]!;
      for (let r = 0; r < nRows; r++) {
        const m = rowsOf[r]!,
          sm = task.sens[m]!;
        L[col + r] = m === k ? -1 : sm < 0 ? 0 : shifts[o + sm]! / denom;
      }
    }
  }
  const lodf = (m: number, k: number) => L[colPos[k]! * nRows + rowPos[m]!]!;

  // 3. W = (I − L_KK°)⁻¹ per multi-branch outage
  const W = new Map<number, Float64Array>();
  const active: number[] = [];
  for (const c of kept) {
    if (stopped()) return finish('stopped');
    const a = outageStart[c]!,
      n = outageStart[c + 1]! - a;
    if (n > 1) {
      const m = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) m[i * n + j] = i === j ? 1 : -lodf(outageBranches[a + i]!, outageBranches[a + j]!);
      const perm = new Int32Array(n);
      if (!luFactor(m, perm, n)) {
        excluded.push(c);
        continue;
      } // singular: splits after all
      W.set(c, inverse(m, perm, n));
    }
    active.push(c);
  }

  // the rows' encoding (assembly/opf/abi.ts): lo, hi, n, then n pairs (internal bus, coefficient), p.u.
  const base = opf[IN.BASEMVA]!;
  const sus = new Float64Array(nl),
    shiftTerm = new Float64Array(nl);
  for (let l = 0; l < nl; l++) {
    const ratio = opf[brOff + BR.RATIO * nl + l]!;
    sus[l] = 1 / opf[brOff + BR.X * nl + l]! / (ratio !== 0 ? ratio : 1);
    shiftTerm[l] = -sus[l]! * opf[brOff + BR.SHIFT * nl + l]!;
  }
  const added = new Set<number>(); // c * nl + m
  const encode = (c: number, m: number, coef: ArrayLike<number>) => {
    const a = outageStart[c]!;
    const terms: number[] = [];
    let constant = 0;
    const addFlow = (l: number, w: number) => {
      terms.push(from(l), w * sus[l]!, to(l), -w * sus[l]!);
      constant += w * shiftTerm[l]!;
    };
    addFlow(m, 1);
    for (let j = 0; j < coef.length; j++) addFlow(outageBranches[a + j]!, coef[j]!);
    const lim = limit[m]! / base;
    encoded.push(-lim - constant, lim - constant, terms.length / 2, ...terms);
    addedOutage.push(c);
    addedBranch.push(m);
    for (let j = 0; j < coef.length; j++) coefs.push(coef[j]!);
    coefStart.push(coefs.length);
  };
  /** c_m = L_mK W: the coefficients of f'_m = f_m + Σ c_j f_kj */
  const coefOf = (c: number, m: number): Float64Array => {
    const a = outageStart[c]!,
      n = outageStart[c + 1]! - a;
    const w = W.get(c);
    if (!w) return Float64Array.of(lodf(m, outageBranches[a]!));
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = lodf(m, outageBranches[a + i]!);
      if (v !== 0) for (let j = 0; j < n; j++) r[j] += v * w[i * n + j]!;
    }
    return r;
  };

  // 4. the scan of each solved round, and the next round with the violated flows as rows
  const flow = new Float64Array(nl);
  const y = new Float64Array(64);
  for (;;) {
    for (let l = 0; l < nl; l++) flow[l] = last[oBr + l]!;
    const found: { c: number; m: number; over: number }[] = [];
    for (const c of active) {
      if (stopped()) return finish('stopped');
      const a = outageStart[c]!,
        k = outageStart[c + 1]! - a;
      const w = W.get(c);
      // y = W f_K: the flows the outaged branches hand over (k = 1: f_k itself)
      if (w)
        for (let i = 0; i < k; i++) {
          let s = 0;
          for (let j = 0; j < k; j++) s += w[i * k + j]! * flow[outageBranches[a + j]!]!;
          y[i] = s;
        }
      else y[0] = flow[outageBranches[a]!]!;
      for (const m of monitored) {
        let post = flow[m]!,
          self = false;
        for (let i = 0; i < k; i++) {
          const b = outageBranches[a + i]!;
          if (b === m) {
            self = true;
            break;
          }
          post += lodf(m, b) * y[i]!;
        }
        if (self) continue;
        const over = Math.abs(post) - limit[m]!;
        if (over > VIOLATION_MW && !added.has(c * nl + m)) found.push({ c, m, over });
      }
    }
    if (found.length === 0 || rounds >= MAX_ROUNDS) return finish('done');
    found.sort((p, q) => q.over - p.over);
    for (const f of found.slice(0, ROWS_PER_ROUND)) {
      added.add(f.c * nl + f.m);
      encode(f.c, f.m, coefOf(f.c, f.m));
    }
    if (stopped()) return finish('stopped');
    if (!(await round())) return finish(last[OUT.STATUS] === STATUS.CANCELLED ? 'stopped' : 'done');
  }
}

/** Where the extra rows' multipliers start in an OPF output of nb buses, nl branches and ng generators. */
export function extraRowsAt(nb: number, nl: number, ng: number): number {
  return OUT.HEADER + OUT_BUS_FIELDS * nb + OUT_BR_FIELDS * nl + OUT_GEN_FIELDS * ng;
}
