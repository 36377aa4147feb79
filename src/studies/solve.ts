// The study engine's entry points (see types.ts for the whole interface):
//   solveStudyBase(pool, network, plan, hooks)                 -> StudyBaseSummary
//   solveStudyChunk(pool, network, plan, start, end, hooks)    -> StudyChunk
// Here: the network packed once per (model, plan) like a power flow (pack.ts), the
// chunk's cases encoded as one Float64Array (layout: assembly/study/abi.ts), one
// Piscina task per chunk (typed arrays transferred both ways), and the worker's raw
// records decoded into the StudyChunk columns with bus ids and branch positions.
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import { packNetwork, type PackedNetwork } from '../powerflow/pack.js';
import { expandDcLines } from '../powerflow/dcline.js';
import { DEFAULT_SOLVE_OPTIONS, type SolveOptions } from '../powerflow/types.js';
import { studyCaseAt } from './plan.js';
import {
  CASE, CASE_FIELDS, CORR, MON_BR, MON_BUS, monitoredPerRecord, REC, SCEN, SCEN_FIELDS, SEC, SGEN, SIN, studySections, VIOL,
  VIOL_FIELDS, type StudyWorkerResult,
} from './abi.js';
import { caseMetricsAt } from './rows.js';
import { solveIslandedCases } from './islanded.js';
import { acLinearScreen, mergeScreened, screenCases, type ScreenedCase } from './screening.js';
import type { KeptCasesTask, StudyTaskResult } from './screenRule.js';
import { baseSolution } from './baseCase.js';
import { baseValuesOf, judgeViolations } from './violations.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import {
  CASE_CODE, type StudyBaseSummary, type StudyChunk, type StudyChunkHooks, type StudyPlan,
} from './types.js';

/** The packed network and the index maps a plan's chunks share. */
interface StudyNetwork {
  packed: PackedNetwork;
  branchSlot: Int32Array;   // branch position -> internal index, -1 when not in the solve
  genSlot: Int32Array;      // generator position -> internal index
  busPos: Map<number, number>; // bus id -> position
  /** the fixed sections, SEC.RATE to SEC.MON_BUS (rateA, vmin, vmax, generator vg, monitored branches and buses) */
  fixed: Float64Array;
}

const studyNetworks = new WeakMap<StudyPlan, { network: NetworkModel; sn: StudyNetwork }>();

function studyNetwork(model: NetworkModel, plan: StudyPlan): StudyNetwork {
  const hit = studyNetworks.get(plan);
  if (hit && hit.network === model) return hit.sn;
  // MATPOWER DC lines take part as their generator pairs, appended after the network's generators (src/powerflow/dcline.ts)
  const network = expandDcLines(model)?.model ?? model;
  const o: SolveOptions = {
    ...DEFAULT_SOLVE_OPTIONS, method: plan.options.method, tolerance: plan.options.tolerance, maxIterations: plan.options.maxIterations,
  };
  const packed = packNetwork(network, o); // PowerFlowInputError for a network no power flow could solve
  const branchSlot = new Int32Array(network.branches.length).fill(-1);
  packed.branchOrder.forEach((pos, l) => { branchSlot[pos] = l; });
  const genSlot = new Int32Array(network.generators.length).fill(-1);
  packed.genOrder.forEach((pos, g) => { genSlot[pos] = g; });
  const busPos = new Map<number, number>();
  network.buses.forEach((b, k) => busPos.set(b.id, k));
  const { nb, nl } = packed;
  const mb = plan.monitor.branches, mu = plan.monitor.buses;
  const ng = packed.ng;
  // where the fixed sections sit in any chunk's buffer of this plan, relative to the first
  const header = new Float64Array(SIN.HEADER);
  header[SIN.NMONBR] = mb.length;
  header[SIN.NMONBUS] = mu.length;
  const sec = studySections(header, nb, nl, ng);
  const at = (k: number) => sec.start[k]! - sec.rate;
  const fixed = new Float64Array(at(SEC.MON_BUS + 1));
  for (let l = 0; l < nl; l++) fixed[at(SEC.RATE) + l] = network.branches[packed.branchOrder[l]!]!.rate_a;
  for (let i = 0; i < nb; i++) {
    const b = network.buses[packed.busOrder[i]!]!;
    fixed[at(SEC.VMIN) + i] = b.vmin;
    fixed[at(SEC.VMAX) + i] = b.vmax;
  }
  for (let g = 0; g < ng; g++) fixed[at(SEC.VG) + g] = network.generators[packed.genOrder[g]!]!.vg;
  mb.forEach((pos, q) => { fixed[at(SEC.MON_BR) + q] = branchSlot[pos]!; });
  mu.forEach((id, q) => { fixed[at(SEC.MON_BUS) + q] = packed.busIndex[busPos.get(id)!]!; });
  const sn = { packed, branchSlot, genSlot, busPos, fixed };
  studyNetworks.set(plan, { network: model, sn });
  return sn;
}

/** The study buffer of cases [start, end). */
function encodeChunk(network: NetworkModel, plan: StudyPlan, sn: StudyNetwork, start: number, end: number): Float64Array {
  const n = end - start;
  const { packed } = sn;
  const slots = new Map<number, number>(); // scenario -> slot in this chunk
  const outages: number[] = [];
  const cases = new Float64Array(CASE_FIELDS * n);
  for (let k = start; k < end; k++) {
    const { scenario, contingency } = studyCaseAt(plan, k);
    const c = CASE_FIELDS * (k - start);
    let slot = -1;
    if (scenario !== null) {
      slot = slots.get(scenario) ?? -1;
      if (slot < 0) slots.set(scenario, slot = slots.size);
    }
    cases[c + CASE.SCEN] = slot;
    cases[c + CASE.OUT_START] = outages.length;
    if (contingency !== null) {
      const ct = plan.contingencies[contingency]!;
      for (const b of ct.branches) outages.push(sn.branchSlot[b]!);
      for (const g of ct.generators) outages.push(sn.genSlot[g]!);
      cases[c + CASE.NBR] = ct.branches.length;
      cases[c + CASE.NGEN] = ct.generators.length;
    }
  }
  // scenario slots: load scale, load corrections (bus, dP, dQ) and generator set points
  const scen = new Float64Array(SCEN_FIELDS * slots.size);
  const corr: number[] = [], sgen: number[] = [];
  const sc = plan.scenarios;
  for (const [s, slot] of slots) {
    const scale = sc!.loadScale ? sc!.loadScale[s]! : 1;
    const e = SCEN_FIELDS * slot;
    scen[e + SCEN.SCALE] = scale;
    scen[e + SCEN.CORR_START] = corr.length / CORR.FIELDS;
    for (const ld of sc!.loads) {
      const load = network.loads[ld.index]!;
      const bus = packed.busIndex[sn.busPos.get(load.bus)!]!;
      const q = ld.q ? ld.q[s]! : scale * (load.mvar ?? 0);
      // CORR.BUS, CORR.DP, CORR.DQ
      corr.push(bus, ld.p[s]! - scale * load.mw, q - scale * (load.mvar ?? 0));
    }
    scen[e + SCEN.NCORR] = corr.length / CORR.FIELDS - scen[e + SCEN.CORR_START]!;
    scen[e + SCEN.SGEN_START] = sgen.length / SGEN.FIELDS;
    for (const g of sc!.generators) sgen.push(sn.genSlot[g.index]!, g.p[s]!); // SGEN.GEN, SGEN.PG
    scen[e + SCEN.NSGEN] = sgen.length / SGEN.FIELDS - scen[e + SCEN.SGEN_START]!;
  }
  const fixed = sn.fixed;
  // the estimate's per-branch triggers in internal order (SEC.TRIGGER)
  const trigger = plan.estimateSharpen ? Float64Array.from(packed.branchOrder, (pos) => plan.estimateSharpen!.trigger[pos]!) : new Float64Array(0);
  const header = new Float64Array(SIN.HEADER); // first: it sizes the sections
  header[SIN.NCASES] = n;
  header[SIN.LIMIT] = plan.loadingLimitPercent;
  header[SIN.NMONBR] = plan.monitor.branches.length;
  header[SIN.NMONBUS] = plan.monitor.buses.length;
  header[SIN.NSCEN] = slots.size;
  header[SIN.NOUT] = outages.length;
  header[SIN.NCORR] = corr.length / CORR.FIELDS;
  header[SIN.NSGEN] = sgen.length / SGEN.FIELDS;
  header[SIN.QLIM] = plan.options.enforceQLimits ? 1 : 0;
  header[SIN.WARM_PREVIOUS] = plan.warmStart === 'previous' ? 1 : 0;
  header[SIN.ESTIMATE_IT] = plan.estimateIterations ?? 0;
  header[SIN.ESTIMATE_REFACTOR] = plan.estimateRefactor ? 1 : 0;
  const sharpen = plan.estimateSharpen;
  if (sharpen) {
    header[SIN.ESTIMATE_SHARPEN] = sharpen.iterations;
    header[SIN.ESTIMATE_CHANGE] = sharpen.change;
    header[SIN.ESTIMATE_POINTS] = sharpen.points;
  }
  // islanding isolate: the core solves splitting outages itself where it can (Newton, no Q limits); ./islanded.ts the rest
  header[SIN.ISOLATE] = plan.islanding === 'isolate' ? 1 : 0;
  const sec = studySections(header, packed.nb, packed.nl, packed.ng);
  const study = new Float64Array(sec.end);
  study.set(header, 0);
  const parts: [number, ArrayLike<number>][] = [
    [SEC.RATE, fixed], [SEC.CASES, cases], [SEC.OUTAGES, outages], [SEC.SCEN, scen], [SEC.CORR, corr], [SEC.SGEN, sgen], [SEC.TRIGGER, trigger],
  ];
  for (const [k, part] of parts) {
    // fixed spans SEC.RATE .. SEC.MON_BUS; every other part is exactly its section
    const last = k === SEC.RATE ? SEC.MON_BUS : k;
    if (part.length !== sec.start[last + 1]! - sec.start[k]!) throw new Error(`study section ${k}: ${part.length} values for its length`);
    study.set(part, sec.start[k]!);
  }
  return study;
}

function monitorPerCase(plan: StudyPlan): number {
  return monitoredPerRecord(plan.monitor.branches.length, plan.monitor.buses.length);
}

/** What a solver thread is handed for cases [start, end): the packed network, the study buffer and the monitored
 *  values per record (a test runs it on an engine of its own). */
export function studyChunkTask(network: NetworkModel, plan: StudyPlan, start: number, end: number) {
  const sn = studyNetwork(network, plan);
  return { sn, input: sn.packed.input.slice(), study: encodeChunk(network, plan, sn, start, end), monitorPerCase: monitorPerCase(plan) };
}

async function run(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number, hooks: StudyChunkHooks) {
  const { sn, input, study, monitorPerCase: perCase } = studyChunkTask(network, plan, start, end);
  // a stopped chunk answers with the cases it finished; withdrawn or its thread ended, with none
  let reported = 0;
  const onCasesDone = hooks.onProgress ? (d: number) => { reported = d; hooks.onProgress!(d, end - start); } : undefined;
  const ran = await pool.run('study', { input, study, monitorPerCase: perCase },
    { signal: hooks.signal, onProgress: onCasesDone, answerWhenStopped: true });
  const r = ran.stopped ? noCases() : ran.value;
  if (onCasesDone && r.done > reported) onCasesDone(r.done);
  if (r.done < 0) throw new Error('the power-flow core rejected the packed network (ABI mismatch)');
  return { sn, r };
}

function noCases(): StudyWorkerResult {
  const empty = new Float64Array(0);
  return { done: 0, records: empty, violations: empty, islands: empty, monitor: empty, solveMs: 0 };
}

/** The base case of a plan (record 0 of a chunk), with its monitored values. */
function baseSummary(network: NetworkModel, plan: StudyPlan, sn: StudyNetwork, r: StudyWorkerResult): StudyBaseSummary {
  const chunk = decode(network, sn, r, 0, 0, 0, 1);
  splitMonitored(plan, chunk, r.monitor, 0, 1);
  return {
    status: chunk.code[0] === CASE_CODE.CONVERGED ? 'converged' : 'diverged',
    ...caseMetricsAt(plan, chunk, 0),
    solve_ms: r.solveMs,
  };
}

/** Monitored values of records [first, first + count) into the chunk's two columns. */
function splitMonitored(plan: StudyPlan, chunk: StudyChunk, monitor: Float64Array, first: number, count: number): void {
  const per = monitorPerCase(plan);
  if (per === 0 || count === 0) return;
  const nb = MON_BR.FIELDS * plan.monitor.branches.length, nu = MON_BUS.FIELDS * plan.monitor.buses.length;
  chunk.monitoredBranches = new Float64Array(count * nb);
  chunk.monitoredBuses = new Float64Array(count * nu);
  for (let i = 0; i < count; i++) {
    const o = per * (first + i);
    chunk.monitoredBranches.set(monitor.subarray(o, o + nb), i * nb);
    chunk.monitoredBuses.set(monitor.subarray(o + nb, o + per), i * nu);
  }
}

/**
 * Records [first, first + count) of a worker result (record 0 = base case) as StudyChunk
 * columns for cases [start, start + count).
 */
function decode(network: NetworkModel, sn: StudyNetwork, r: StudyWorkerResult, start: number, first: number,
  violationsBefore: number, count: number, estimate = false): StudyChunk {
  const { packed } = sn;
  const busId = (i: number) => (i < 0 ? -1 : network.buses[packed.busOrder[i]!]!.id);
  const branchPos = (l: number) => (l < 0 ? -1 : packed.branchOrder[l]!);
  const rec = r.records;
  const chunk: StudyChunk = {
    start, end: start + count, cancelled: false,
    code: new Uint8Array(count), iterations: new Uint16Array(count),
    minV: new Float64Array(count), minVBus: new Int32Array(count), maxV: new Float64Array(count), maxVBus: new Int32Array(count),
    maxLoading: new Float64Array(count), maxLoadingBranch: new Int32Array(count),
    violationStart: new Uint32Array(count + 1), violationType: new Uint8Array(0), violationElement: new Int32Array(0),
    violationValue: new Float64Array(0), violationLimit: new Float64Array(0), violationBase: new Float64Array(0), violationKind: new Uint8Array(0),
    islandStart: new Uint32Array(count + 1), islandBuses: new Int32Array(0),
    islandLoadMw: new Float64Array(count), islandGenerationMw: new Float64Array(count),
    monitoredBranches: new Float64Array(0), monitoredBuses: new Float64Array(0),
    solveMs: r.solveMs,
  };
  const estimateStep = estimate ? new Float64Array(count) : undefined;
  if (estimateStep) chunk.estimateStep = estimateStep;
  let nViol = 0, nIsl = 0, islandsBefore = 0;
  for (let j = 0; j < first; j++) islandsBefore += rec[REC.FIELDS * j + REC.NISL]!;
  for (let i = 0; i < count; i++) {
    const o = REC.FIELDS * (first + i);
    chunk.code[i] = rec[o + REC.CODE]!;
    chunk.iterations[i] = rec[o + REC.ITER]!;
    chunk.minV[i] = rec[o + REC.MINV]!;
    chunk.minVBus[i] = busId(rec[o + REC.MINV_BUS]!);
    chunk.maxV[i] = rec[o + REC.MAXV]!;
    chunk.maxVBus[i] = busId(rec[o + REC.MAXV_BUS]!);
    chunk.maxLoading[i] = rec[o + REC.MAXLOAD]!;
    chunk.maxLoadingBranch[i] = branchPos(rec[o + REC.MAXLOAD_BR]!);
    chunk.islandLoadMw[i] = rec[o + REC.ISL_LOAD]!;
    chunk.islandGenerationMw[i] = rec[o + REC.ISL_GEN]!;
    if (estimateStep) estimateStep[i] = rec[o + REC.EST_STEP]!;
    nViol += rec[o + REC.NVIOL]!;
    nIsl += rec[o + REC.NISL]!;
    chunk.violationStart[i + 1] = nViol;
    chunk.islandStart[i + 1] = nIsl;
  }
  chunk.violationType = new Uint8Array(nViol);
  chunk.violationElement = new Int32Array(nViol);
  chunk.violationValue = new Float64Array(nViol);
  chunk.violationLimit = new Float64Array(nViol);
  for (let v = 0; v < nViol; v++) {
    const o = VIOL_FIELDS * (violationsBefore + v);
    const type = r.violations[o + VIOL.TYPE]!;
    chunk.violationType[v] = type;
    const element = r.violations[o + VIOL.ELEMENT]!;
    chunk.violationElement[v] = type === VIOL.OVERLOAD ? branchPos(element) : busId(element);
    chunk.violationValue[v] = r.violations[o + VIOL.VALUE]!;
    chunk.violationLimit[v] = r.violations[o + VIOL.LIMIT]!;
  }
  chunk.islandBuses = Int32Array.from(r.islands.subarray(islandsBefore, islandsBefore + nIsl), busId);
  return chunk;
}

/** Solves the plan's base case (the network version as stored) on a solver thread. */
export async function solveStudyBase(pool: SolverPool, network: NetworkModel, plan: StudyPlan,
  hooks: { signal?: AbortSignal } = {}): Promise<StudyBaseSummary> {
  const { sn, r } = await run(pool, network, plan, 0, 0, { signal: hooks.signal });
  if (r.records.length === 0) {
    return { status: 'diverged', iterations: 0, max_loading_percent: null, max_loading_branch: null, min_v: null, min_v_bus: null,
      max_v: null, max_v_bus: null, violations: [], reason: 'cancelled', solve_ms: 0 };
  }
  return baseSummary(network, plan, sn, r);
}

/**
 * Solves cases [start, end) of the plan as one task on a solver thread (the base case again first), every
 * violation judged against the base case's power flow (./violations.ts).
 */
export async function solveStudyChunk(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  hooks: StudyChunkHooks = {}): Promise<StudyChunk> {
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= plan.caseCount)) {
    throw new RangeError(`chunk [${start}, ${end}) is not within the plan's ${plan.caseCount} cases`);
  }
  const chunk = await solveCases(pool, network, plan, start, end, hooks);
  if (chunk.violationType.length === 0) return chunk;
  const base = await baseSolution(pool, network, plan, hooks.signal).catch((e) => {
    if (e instanceof PowerFlowInputError) return null; // no base power flow: every violation is new
    throw e;
  });
  return judgeViolations(plan, chunk, baseValuesOf(base, network.branches.length));
}

async function solveCases(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  hooks: StudyChunkHooks): Promise<StudyChunk> {
  // ac_linear: the chunk's estimate and the cases it keeps, one task on a solver thread (./screenRule.ts)
  const s = plan.screening;
  if (s?.method === 'ac_linear' && plan.kind === 'contingency' && s.thresholdPercent > 0) {
    const screen = await acLinearScreen(pool, network, plan, start, end, hooks.signal);
    if (screen) return solveScreened(pool, network, plan, start, end, hooks, screen);
  }
  // DC screening: only the cases the screen keeps are solved in AC (./screening.ts).
  const screened = await screenCases(pool, network, plan, start, end, hooks.signal,
    (estimatePlan) => solveCases(pool, network, estimatePlan, start, end, { signal: hooks.signal }));
  if (screened.size > 0) {
    const kept: number[] = [];
    for (let k = start; k < end; k++) if (!screened.has(k)) kept.push(k);
    const sub = keptPlan(network, plan, start, kept);
    const ac = kept.length > 0 ? await solveCases(pool, network, sub, 0, kept.length, hooks) : emptyChunk();
    return mergeScreened(plan, start, end, kept, ac, screened);
  }
  const { sn, r } = await run(pool, network, plan, start, end, hooks);
  return chunkOf(pool, network, plan, sn, r, start, end - start, hooks.signal);
}

/** The plan of a screened chunk's kept cases (chunk positions k - start), sharing the study's packed network. */
function keptPlan(network: NetworkModel, plan: StudyPlan, start: number, kept: number[]): StudyPlan {
  const sub: StudyPlan = {
    ...plan,
    screening: null,
    contingencies: kept.map((k) => plan.contingencies[studyCaseAt(plan, k).contingency!]!),
    caseCount: kept.length,
  };
  // the kept cases' plan packs as the study's own: share its packed network instead of packing it again per chunk
  studyNetworks.set(sub, { network, sn: studyNetwork(network, plan) });
  return sub;
}

/** The chunk of `count` cases from `start` that a worker result holds (record 0: the base case), with the
 *  splitting outages solved on what stays energized unless islanding is skip (./islanded.ts). */
function chunkOf(pool: SolverPool, network: NetworkModel, plan: StudyPlan, sn: StudyNetwork, r: StudyWorkerResult, start: number,
  count: number, signal: AbortSignal | undefined): Promise<StudyChunk> {
  const done = Math.max(r.done, 0);
  const baseViolations = r.records.length > 0 ? r.records[REC.NVIOL]! : 0;
  const chunk = r.records.length === 0
    ? decode(network, sn, { ...r, records: new Float64Array(REC.FIELDS) }, start, 1, 0, 0)
    : decode(network, sn, r, start, 1, baseViolations, done, plan.estimateSharpen !== undefined);
  chunk.cancelled = done < count;
  splitMonitored(plan, chunk, r.monitor, 1, done);
  return solveIslandedCases(pool, network, plan, chunk, signal);
}

/** A chunk under the ac_linear screen: its estimate and then the cases the estimate keeps, as one task on a solver
 *  thread (workers/solver.ts); the kept rows are the AC study's, the others `screened` with their estimate. */
async function solveScreened(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  hooks: StudyChunkHooks, screen: NonNullable<Awaited<ReturnType<typeof acLinearScreen>>>): Promise<StudyChunk> {
  const n = end - start;
  const sn = studyNetwork(network, plan);
  const est = studyChunkTask(network, screen.estimatePlan, start, end);
  const candidates = new Uint8Array(n);
  for (const k of screen.candidates) candidates[k - start] = 1;
  // the estimate's violations name branches in its own internal order
  const order = est.sn.packed.branchOrder, rule = screen.rule;
  const kept: KeptCasesTask = {
    input: sn.packed.input.slice(), study: encodeChunk(network, plan, sn, start, end), monitorPerCase: monitorPerCase(plan), candidates,
    rule: { ...rule, trigger: Float64Array.from(order, (pos) => rule.trigger[pos]!), baseLoading: Float64Array.from(order, (pos) => rule.baseLoading[pos]!) },
    nb: sn.packed.nb, nl: sn.packed.nl, ng: sn.packed.ng,
  };
  let reported = 0;
  const onCasesDone = hooks.onProgress ? (d: number) => { reported = d; hooks.onProgress!(d, n); } : undefined;
  const ran = await pool.run('study', { input: est.input, study: est.study, monitorPerCase: est.monitorPerCase, kept },
    { signal: hooks.signal, onProgress: onCasesDone, answerWhenStopped: true });
  const r: StudyTaskResult = ran.stopped ? noCases() : ran.value;
  if (r.done < 0 || (r.kept && r.kept.done < 0)) throw new Error('the power-flow core rejected the packed network (ABI mismatch)');
  const keptAt = r.kept ? Array.from(r.kept.cases, (i) => start + i) : [];
  // stopped before the estimate finished: no case done
  if (!r.kept) return mergeScreened(plan, start, end, [], { ...emptyChunk(), cancelled: true }, new Map());
  const estimate = decode(network, est.sn, r, start, 1, r.records[REC.NVIOL]!, n, true);
  const screened = new Map<number, ScreenedCase>();
  const isKept = new Uint8Array(n);
  for (const k of keptAt) isKept[k - start] = 1;
  for (const k of screen.candidates) {
    const i = k - start;
    if (!isKept[i]) screened.set(k, { maxLoading: estimate.maxLoading[i]!, maxLoadingBranch: estimate.maxLoadingBranch[i]! });
  }
  const sub = keptPlan(network, plan, start, keptAt);
  const ac = keptAt.length > 0 ? await chunkOf(pool, network, sub, sn, r.kept, 0, keptAt.length, hooks.signal) : emptyChunk();
  if (onCasesDone && ac.end - ac.start > reported) onCasesDone(ac.end - ac.start);
  return mergeScreened(plan, start, end, keptAt, ac, screened);
}

function emptyChunk(): StudyChunk {
  return {
    start: 0,
    end: 0,
    cancelled: false,
    code: new Uint8Array(0),
    iterations: new Uint16Array(0),
    minV: new Float64Array(0),
    minVBus: new Int32Array(0),
    maxV: new Float64Array(0),
    maxVBus: new Int32Array(0),
    maxLoading: new Float64Array(0),
    maxLoadingBranch: new Int32Array(0),
    violationStart: new Uint32Array(1),
    violationType: new Uint8Array(0),
    violationElement: new Int32Array(0),
    violationValue: new Float64Array(0),
    violationLimit: new Float64Array(0),
    violationBase: new Float64Array(0),
    violationKind: new Uint8Array(0),
    islandStart: new Uint32Array(1),
    islandBuses: new Int32Array(0),
    islandLoadMw: new Float64Array(0),
    islandGenerationMw: new Float64Array(0),
    monitoredBranches: new Float64Array(0),
    monitoredBuses: new Float64Array(0),
    solveMs: 0,
  };
}
