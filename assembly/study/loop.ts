// A study in the core: one base solve, then many cases (outages, scenarios, or
// both) solved in a loop on the base topology (lightsim2grid's ContingencyAnalysis /
// TimeSerie idea):
//  - a branch outage edits the values of the four Ybus entries the branch stamps
//    (and of their column-order copy) and puts the saved values back afterwards,
//    bit for bit: the Ybus / Jacobian pattern and the symbolic LU analysis are
//    those of the base topology, never rebuilt;
//  - connectivity first: union-find over the remaining branches; more components
//    than the base case = islanded, reported (cut-off buses, their load and
//    generation), not solved;
//  - a generator outage moves the scheduled injections; a pv bus left without
//    generators is solved as pq (a different Jacobian pattern: such type sets get
//    their own topology, analysed once and kept for the study); a reference bus
//    left without generators is `slack lost`, not solved (as the MATPOWER reference);
//  - contingencies start from the base solution (warm start); a scenario starts
//    like a power flow (the packed start point), and a scenario's contingencies
//    from that scenario's own solution.
// Nothing is allocated per case (the violation buffer grows by doubling, rarely).
import { Topology, PV, REF } from '../topology';
import { polarToRect } from '../mismatch';
import { makeYbus } from '../ybus';
import { newtonpf, iterations as nrIterations } from '../newtonpf';
import { factorBWithout, fdIterate, iterations as fdIterations } from '../fdpf';
import { progress } from '../progress';
import { components, cutOff } from '../islands';
import { caseMetrics, flowModel, monitored, resetViolations, violationCount } from './metrics';
import { dcCase } from './dc';
import { enforceQLimits, QLIM_NONE, QLIM_INFEASIBLE, slackMoved, resetSlackMoved } from './qLimits';
import { STATUS_CANCELLED, STATUS_CONVERGED, METHOD_DC, METHOD_FDXB } from '../layout';
import {
  SIN_NCASES, SIN_LIMIT, SIN_NMONBR, SIN_NMONBUS, SIN_NSCEN, SIN_NOUT, SIN_NCORR, SIN_HEADER, CASE_FIELDS, SCEN_FIELDS,
  REC_CODE, REC_ITER, REC_FIELDS, REC_NISL, REC_ISL_LOAD, REC_ISL_GEN, REC_MINV, REC_MAXV, REC_MAXLOAD,
  REC_MINV_BUS, REC_MAXV_BUS, REC_MAXLOAD_BR, CODE_ISLANDED, CODE_SLACK_LOST, CODE_QLIM_INFEASIBLE, SIN_QLIM, SIN_ISOLATE,
} from './layout';
import { BUS_ISLAND, BUS_PD, BUS_QD, BUS_VA0, BUS_VM0, GEN_PG, GEN_QG } from '../layout';

export let records = new StaticArray<f64>(0);
export let islands = new StaticArray<f64>(0);
export let islandCount: i32 = 0;
export let monitorValues = new StaticArray<f64>(0);
export let casesDone: i32 = 0;

// per-study scratch, sized when the base topology changes
let scratchFor: Topology | null = null;
let brOut = new StaticArray<u8>(0);
let genOut = new StaticArray<u8>(0);
let parent = new StaticArray<i32>(0);
let mark = new StaticArray<u8>(0);
let baseVm = new StaticArray<f64>(0);
let baseVa = new StaticArray<f64>(0);
let scenVm = new StaticArray<f64>(0);
let scenVa = new StaticArray<f64>(0);
let pd = new StaticArray<f64>(0);
let qd = new StaticArray<f64>(0);
let pg = new StaticArray<f64>(0);
let qg = new StaticArray<f64>(0);         // the scenario's generator Q (MVAr)
let pgCase = new StaticArray<f64>(0);     // the case's set points: the scenario's, then the Q-limit loop's
let qgCase = new StaticArray<f64>(0);
let refVa = new StaticArray<f64>(0);      // a case's slack angles before its Q-limit loop (NaN: not a slack)
let gensAt = new StaticArray<i32>(0);
let types = new StaticArray<i32>(0);
let saved = new StaticArray<f64>(64);     // (position, re, im) of edited Ybus entries
let typed = new Array<Topology>();        // topologies of changed bus types (generator outages)
let typedHash: u64 = 0;                   // Ybus parameter hash the typed topologies were made for
let dc = false;                           // DC study (./dc.ts) instead of Newton-Raphson
let fd = false;                           // fast-decoupled (XB) study
let dcBusOff = 0, dcBrOff = 0;
// B' / B'' of which topology and outage the factors hold: a scenario case on the intact network
// reuses the intact factors; an outage case refactors on the base pattern (fdpf.ts factorBWithout)
let fdTopo: Topology | null = null;
let fdIntact = false;
let qlim = false;                         // enforce generator Q limits (./qLimits.ts)
let isolate = false;                      // splitting outages solved on what stays energized (Topology.pinned)
// the outcome of solveLimited: the topology the case ended on (its bus types), its Ybus entries
// edited for the outage, and the iterations of all its runs
let caseTopo: Topology | null = null;
let caseSaved = 0;
let caseIterations = 0;

function sizeScratch(topo: Topology, ng: i32): void {
  if (typedHash != topo.yHash) { typed = new Array<Topology>(); typedHash = topo.yHash; }
  if (scratchFor === topo && genOut.length == ng) return;
  const nb = topo.nb, nl = topo.nl;
  brOut = new StaticArray<u8>(nl);
  genOut = new StaticArray<u8>(ng);
  parent = new StaticArray<i32>(nb);
  mark = new StaticArray<u8>(nb);
  baseVm = new StaticArray<f64>(nb); baseVa = new StaticArray<f64>(nb);
  scenVm = new StaticArray<f64>(nb); scenVa = new StaticArray<f64>(nb);
  pd = new StaticArray<f64>(nb); qd = new StaticArray<f64>(nb);
  pg = new StaticArray<f64>(ng); qg = new StaticArray<f64>(ng);
  pgCase = new StaticArray<f64>(ng); qgCase = new StaticArray<f64>(ng);
  refVa = new StaticArray<f64>(nb);
  gensAt = new StaticArray<i32>(nb);
  types = new StaticArray<i32>(nb);
  typed = new Array<Topology>();
  scratchFor = topo;
}

/** Saves then removes branch l's four stamps from the Ybus values (and the column-order copy). */
function removeBranch(topo: Topology, l: i32, nSaved: i32): i32 {
  const need = 3 * (nSaved + 4);
  if (need > saved.length) {
    const grown = new StaticArray<f64>(2 * need);
    memory.copy(changetype<usize>(grown), changetype<usize>(saved), <usize>(3 * nSaved) << 3);
    saved = grown;
  }
  const yRe = topo.yRe, yIm = topo.yIm, yT = topo.yT, yTr = topo.yTr, brY = topo.brY;
  for (let k = 0; k < 4; k++) {
    const p = k == 0 ? unchecked(topo.pFF[l]) : k == 1 ? unchecked(topo.pFT[l]) : k == 2 ? unchecked(topo.pTF[l]) : unchecked(topo.pTT[l]);
    const s = 3 * nSaved++;
    unchecked(saved[s] = <f64>p);
    unchecked(saved[s + 1] = yRe[p]);
    unchecked(saved[s + 2] = yIm[p]);
    const re = unchecked(yRe[p]) - unchecked(brY[8 * l + 2 * k]);
    const im = unchecked(yIm[p]) - unchecked(brY[8 * l + 2 * k + 1]);
    unchecked(yRe[p] = re);
    unchecked(yIm[p] = im);
    const q = unchecked(yTr[p]);
    unchecked(yT[2 * q] = re);
    unchecked(yT[2 * q + 1] = im);
  }
  return nSaved;
}

/** Puts the saved Ybus entries back, last saved first (exact values). */
function restoreYbus(topo: Topology, nSaved: i32): void {
  const yRe = topo.yRe, yIm = topo.yIm, yT = topo.yT, yTr = topo.yTr;
  for (let k = nSaved - 1; k >= 0; k--) {
    const p = <i32>unchecked(saved[3 * k]);
    const re = unchecked(saved[3 * k + 1]), im = unchecked(saved[3 * k + 2]);
    unchecked(yRe[p] = re);
    unchecked(yIm[p] = im);
    const q = unchecked(yTr[p]);
    unchecked(yT[2 * q] = re);
    unchecked(yT[2 * q + 1] = im);
  }
}

/** The topology of the base's branches with bus types `types` (made once per type set in a study). */
function topologyWithTypes(base: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64): Topology {
  const nb = base.nb;
  let same = true;
  for (let i = 0; i < nb; i++) if (unchecked(types[i]) != unchecked(base.type[i])) { same = false; break; }
  if (same) return base;
  for (let k = 0; k < typed.length; k++) {
    const c = unchecked(typed[k]);
    let eq = true;
    for (let i = 0; i < nb; i++) if (unchecked(types[i]) != unchecked(c.type[i])) { eq = false; break; }
    if (eq) return c;
  }
  const ty = new StaticArray<i32>(nb);
  for (let i = 0; i < nb; i++) unchecked(ty[i] = types[i]);
  const topo = new Topology(nb, base.nl, base.f, base.t, ty);
  makeYbus(topo, input, busOff, brOff, baseMVA);
  if (typed.length >= 4) typed.shift(); // each holds a Jacobian LU: keep few
  typed.push(topo);
  return topo;
}

/** Scheduled injections of the current case (pd / qd / pg minus the generators out) into topo. */
function schedule(topo: Topology, input: StaticArray<f64>, genOff: i32, ng: i32, baseMVA: f64): void {
  // the same operations in the same order as index.ts solve(): a scenario equals its own power flow bit for bit
  const nb = topo.nb, pSch = topo.pSch, qSch = topo.qSch;
  for (let i = 0; i < nb; i++) { unchecked(pSch[i] = 0.0); unchecked(qSch[i] = 0.0); }
  for (let g = 0; g < ng; g++) {
    if (unchecked(genOut[g]) != 0) continue;
    const bus = <i32>unchecked(input[genOff + g]);
    unchecked(pSch[bus] += pgCase[g]);
    unchecked(qSch[bus] += qgCase[g]);
  }
  for (let i = 0; i < nb; i++) {
    unchecked(pSch[i] = (pSch[i] - pd[i]) / baseMVA);
    unchecked(qSch[i] = (qSch[i] - qd[i]) / baseMVA);
  }
}

/** Newton-Raphson or fast-decoupled from topo.vm / va, or the DC equations, on the current case's injections. */
function solveCase(topo: Topology, input: StaticArray<f64>, genOff: i32, ng: i32, baseMVA: f64, tol: f64, maxIt: i32, intact: bool): i32 {
  if (dc) return dcCase(topo, input, dcBusOff, dcBrOff, genOff, ng, baseMVA, brOut, genOut, pd, pg);
  schedule(topo, input, genOff, ng, baseMVA);
  if (fd) {
    let factored = true;
    if (!(fdTopo === topo && fdIntact && intact)) {
      factored = factorBWithout(topo, input, dcBusOff, dcBrOff, baseMVA, brOut);
      fdTopo = factored ? topo : null;
      fdIntact = intact;
    }
    return fdIterate(topo, factored, tol, maxIt);
  }
  topo.resetJacobianPivoting(); // every case from the analysed state: rows independent of history and chunking
  return newtonpf(topo, tol, maxIt);
}

/** solveCase on topo (types in `types`, the outage's branches already removed from its Ybus: caseSaved
 *  entries), then, when the study enforces Q limits, MATPOWER's loop: each run warm from the last on
 *  the topology of the new bus types (its Ybus edited for the same outage), iterations summed, the
 *  original slack's angle restored if the slack moved. Sets caseTopo, caseSaved, caseIterations. */
function solveLimited(base: Topology, topo: Topology, input: StaticArray<f64>, s: StaticArray<f64>, busOff: i32, brOff: i32,
  genOff: i32, ng: i32, baseMVA: f64, tol: f64, maxIt: i32, outOff: i32, nBr: i32): i32 {
  for (let g = 0; g < ng; g++) { unchecked(pgCase[g] = pg[g]); unchecked(qgCase[g] = qg[g]); }
  let code = solveCase(topo, input, genOff, ng, baseMVA, tol, maxIt, nBr == 0);
  let its = dc ? 1 : fd ? fdIterations : nrIterations;
  if (qlim && !dc) {
    const nb = topo.nb;
    for (let i = 0; i < nb; i++) unchecked(refVa[i] = topo.type[i] == REF ? topo.va[i] : NaN);
    resetSlackMoved();
    while (code == STATUS_CONVERGED) {
      const step = enforceQLimits(topo, types, input, busOff, genOff, ng, baseMVA, genOut, pgCase, qgCase, pd, qd);
      if (step == QLIM_NONE) break;
      if (step == QLIM_INFEASIBLE) { code = CODE_QLIM_INFEASIBLE; break; }
      const next = topologyWithTypes(base, input, busOff, brOff, baseMVA);
      if (next !== topo) {
        for (let i = 0; i < nb; i++) { unchecked(next.vm[i] = topo.vm[i]); unchecked(next.va[i] = topo.va[i]); }
        restoreYbus(topo, caseSaved);
        caseSaved = 0;
        for (let k = 0; k < nBr; k++) caseSaved = removeBranch(next, <i32>s[outOff + k], caseSaved);
        topo = next;
      }
      code = solveCase(topo, input, genOff, ng, baseMVA, tol, maxIt, nBr == 0);
      its += fd ? fdIterations : nrIterations;
    }
    if (slackMoved) {
      // the original slack keeps its angle (one island per slack, as the Q-limit loop of power flow)
      const islandOff = busOff + BUS_ISLAND * nb;
      for (let i = 0; i < nb; i++) {
        const a = unchecked(refVa[i]);
        if (a != a) continue;
        const shift = unchecked(topo.va[i]) - a, island = unchecked(input[islandOff + i]);
        if (shift == 0.0) continue;
        for (let j = 0; j < nb; j++) if (unchecked(input[islandOff + j]) == island) unchecked(topo.va[j] -= shift);
      }
      polarToRect(topo);
    }
  }
  caseTopo = topo;
  caseIterations = its;
  return code;
}

/** The generators' voltage set points on the voltage-controlled buses (MATPOWER's V0(gbus) = Vg, the
 *  last in-service generator listed): a case under Q limits starts with the model's bus types, so a bus
 *  its start point (a solution) had turned pq is held at its set point again. */
function holdSetPoints(topo: Topology, input: StaticArray<f64>, s: StaticArray<f64>, genOff: i32, ng: i32, vgOff: i32): void {
  for (let g = 0; g < ng; g++) {
    if (unchecked(genOut[g]) != 0) continue;
    const bus = <i32>unchecked(input[genOff + g]);
    const ty = unchecked(types[bus]);
    if (ty == PV || ty == REF) unchecked(topo.vm[bus] = s[vgOff + g]);
  }
}

function clearRecord(r: i32): void {
  for (let k = 0; k < REC_FIELDS; k++) unchecked(records[r + k] = 0.0);
  unchecked(records[r + REC_MINV] = NaN);
  unchecked(records[r + REC_MAXV] = NaN);
  unchecked(records[r + REC_MAXLOAD] = NaN);
  unchecked(records[r + REC_MINV_BUS] = -1.0);
  unchecked(records[r + REC_MAXV_BUS] = -1.0);
  unchecked(records[r + REC_MAXLOAD_BR] = -1.0);
}

/** Runs the study described by s on the packed network in input (base topology `topo`, Ybus made).
 *  Returns the number of cases done (less than asked when cancelled). */
export function runStudy(topo: Topology, input: StaticArray<f64>, s: StaticArray<f64>, busOff: i32, brOff: i32, genOff: i32,
  ng: i32, baseMVA: f64, tol: f64, maxIt: i32, method: i32): i32 {
  const nb = topo.nb, nl = topo.nl;
  sizeScratch(topo, ng);
  dc = method == METHOD_DC; fd = method == METHOD_FDXB; dcBusOff = busOff; dcBrOff = brOff;
  qlim = <i32>s[SIN_QLIM] != 0;
  // Newton only, without the Q-limit loop: the other methods and Q limits solve such cases as power flows (src/studies/islanded.ts)
  isolate = <i32>s[SIN_ISOLATE] != 0 && !dc && !fd && !qlim;
  fdTopo = null; // the cached topology's B factors may hold another parameter set
  flowModel(dc ? input : null, brOff);
  const nCases = <i32>s[SIN_NCASES], limit = s[SIN_LIMIT];
  const nMonBr = <i32>s[SIN_NMONBR], nMonBus = <i32>s[SIN_NMONBUS];
  const nScen = <i32>s[SIN_NSCEN], nOut = <i32>s[SIN_NOUT], nCorr = <i32>s[SIN_NCORR];
  const rateOff = SIN_HEADER, vminOff = rateOff + nl, vmaxOff = vminOff + nb;
  const vgOff = vmaxOff + nb, monBrOff = vgOff + ng, monBusOff = monBrOff + nMonBr;
  const caseOff = monBusOff + nMonBus, outOff = caseOff + CASE_FIELDS * nCases;
  const scenOff = outOff + nOut, corrOff = scenOff + SCEN_FIELDS * nScen, sgenOff = corrOff + 3 * nCorr;
  const monSize = 5 * nMonBr + 2 * nMonBus;

  const nRec = REC_FIELDS * (nCases + 1);
  if (records.length < nRec) records = new StaticArray<f64>(nRec);
  if (monitorValues.length < monSize * (nCases + 1)) monitorValues = new StaticArray<f64>(monSize * (nCases + 1));
  resetViolations();
  islandCount = 0;
  casesDone = 0;

  // base injections, generator counts per bus, base connectivity
  const pdOff = busOff + BUS_PD * nb, qdOff = busOff + BUS_QD * nb, vmOff = busOff + BUS_VM0 * nb, vaOff = busOff + BUS_VA0 * nb;
  for (let i = 0; i < nb; i++) { unchecked(gensAt[i] = 0); unchecked(types[i] = topo.type[i]); }
  for (let g = 0; g < ng; g++) { unchecked(genOut[g] = 0); unchecked(gensAt[<i32>input[genOff + g]]++); }
  for (let l = 0; l < nl; l++) unchecked(brOut[l] = 0);
  const baseComponents = components(nb, nl, topo.f, topo.t, brOut, parent);

  // ---- the base case (record 0): start point of the packed network
  setScenario(-1, input, s, pdOff, qdOff, genOff, ng, scenOff, corrOff, sgenOff);
  const baseOk = solveFromStart(topo, input, vmOff, vaOff, genOff, ng, baseMVA, tol, maxIt, 0, s, rateOff, vminOff, vmaxOff, limit,
    monBrOff, nMonBr, monBusOff, nMonBus, 0);
  if (unchecked(records[REC_CODE]) == <f64>STATUS_CANCELLED) return 0;
  for (let i = 0; i < nb; i++) {
    unchecked(baseVm[i] = baseOk ? topo.vm[i] : input[vmOff + i]);
    unchecked(baseVa[i] = baseOk ? topo.va[i] : input[vaOff + i]);
  }

  let slot = -2;          // scenario slot whose injections are set
  let scenSolved = -2;    // scenario slot whose intact solution is in scenVm / scenVa
  for (let c = 0; c < nCases; c++) {
    const r = REC_FIELDS * (c + 1);
    const d = caseOff + CASE_FIELDS * c;
    const sc = <i32>unchecked(s[d]), o0 = <i32>unchecked(s[d + 1]);
    const nBr = <i32>unchecked(s[d + 2]), nGen = <i32>unchecked(s[d + 3]);
    if (sc != slot) { setScenario(sc, input, s, pdOff, qdOff, genOff, ng, scenOff, corrOff, sgenOff); slot = sc; }
    clearRecord(r);
    const mo = monSize * (c + 1);
    if (nBr + nGen == 0) {
      // a scenario on the intact network: like a power flow
      const ok = solveFromStart(topo, input, vmOff, vaOff, genOff, ng, baseMVA, tol, maxIt, r, s, rateOff, vminOff, vmaxOff, limit,
        monBrOff, nMonBr, monBusOff, nMonBus, mo);
      if (unchecked(records[r + REC_CODE]) == <f64>STATUS_CANCELLED) return c;
      keepScenario(topo, input, ok, vmOff, vaOff);
      scenSolved = sc;
    } else {
      if (sc >= 0 && scenSolved != sc) {
        // the contingencies of a scenario start from its intact solution
        const ok = solveFromStart(topo, input, vmOff, vaOff, genOff, ng, baseMVA, tol, maxIt, -1, s, rateOff, vminOff, vmaxOff, limit,
          monBrOff, nMonBr, monBusOff, nMonBus, -1);
        keepScenario(topo, input, ok, vmOff, vaOff);
        scenSolved = sc;
      }
      const code = solveOutage(topo, input, s, o0, nBr, nGen, sc >= 0, busOff, brOff, genOff, ng, baseMVA, tol, maxIt, baseComponents,
        r, rateOff, vminOff, vmaxOff, limit, monBrOff, nMonBr, monBusOff, nMonBus, mo);
      if (code == STATUS_CANCELLED) return c;
    }
    casesDone = c + 1;
    if (progress(-1, <f64>(c + 1)) != 0) return c + 1;
  }
  return nCases;
}

function keepScenario(topo: Topology, input: StaticArray<f64>, ok: bool, vmOff: i32, vaOff: i32): void {
  for (let i = 0; i < topo.nb; i++) {
    unchecked(scenVm[i] = ok ? topo.vm[i] : input[vmOff + i]);
    unchecked(scenVa[i] = ok ? topo.va[i] : input[vaOff + i]);
  }
}

/** Loads and generation of scenario slot sc (-1: the packed network's). */
function setScenario(sc: i32, input: StaticArray<f64>, s: StaticArray<f64>, pdOff: i32, qdOff: i32, genOff: i32, ng: i32,
  scenOff: i32, corrOff: i32, sgenOff: i32): void {
  const nb = pd.length;
  let scale = 1.0;
  if (sc >= 0) scale = unchecked(s[scenOff + SCEN_FIELDS * sc]);
  for (let i = 0; i < nb; i++) {
    unchecked(pd[i] = scale * input[pdOff + i]);
    unchecked(qd[i] = scale * input[qdOff + i]);
  }
  for (let g = 0; g < ng; g++) { unchecked(pg[g] = input[genOff + GEN_PG * ng + g]); unchecked(qg[g] = input[genOff + GEN_QG * ng + g]); }
  if (sc < 0) return;
  const e = scenOff + SCEN_FIELDS * sc;
  const c0 = <i32>unchecked(s[e + 1]), cn = <i32>unchecked(s[e + 2]);
  for (let k = c0; k < c0 + cn; k++) {
    const b = <i32>unchecked(s[corrOff + 3 * k]);
    unchecked(pd[b] += s[corrOff + 3 * k + 1]);
    unchecked(qd[b] += s[corrOff + 3 * k + 2]);
  }
  const g0 = <i32>unchecked(s[e + 3]), gn = <i32>unchecked(s[e + 4]);
  for (let k = g0; k < g0 + gn; k++) unchecked(pg[<i32>s[sgenOff + 2 * k]] = s[sgenOff + 2 * k + 1]);
}

/** Solves the intact network from the packed start point; r < 0: no record. Returns converged. */
function solveFromStart(topo: Topology, input: StaticArray<f64>, vmOff: i32, vaOff: i32, genOff: i32, ng: i32, baseMVA: f64,
  tol: f64, maxIt: i32, r: i32, s: StaticArray<f64>, rateOff: i32, vminOff: i32, vmaxOff: i32, limit: f64,
  monBrOff: i32, nMonBr: i32, monBusOff: i32, nMonBus: i32, mo: i32): bool {
  for (let i = 0; i < topo.nb; i++) {
    unchecked(topo.vm[i] = input[vmOff + i]); unchecked(topo.va[i] = input[vaOff + i]);
    unchecked(types[i] = topo.type[i]);
  }
  caseSaved = 0;
  const st = solveLimited(topo, topo, input, s, dcBusOff, dcBrOff, genOff, ng, baseMVA, tol, maxIt, 0, 0);
  const solved = caseTopo!;
  if (r >= 0) {
    clearRecord(r);
    unchecked(records[r + REC_CODE] = <f64>st);
    unchecked(records[r + REC_ITER] = <f64>caseIterations);
    if (st == STATUS_CONVERGED) caseMetrics(solved, brOut, s, rateOff, vminOff, vmaxOff, limit, baseMVA, records, r);
    if (mo >= 0) monitored(solved, brOut, s, rateOff, monBrOff, nMonBr, monBusOff, nMonBus, baseMVA, st == STATUS_CONVERGED, monitorValues, mo);
  }
  if (solved !== topo) for (let i = 0; i < topo.nb; i++) { unchecked(topo.vm[i] = solved.vm[i]); unchecked(topo.va[i] = solved.va[i]); }
  return st == STATUS_CONVERGED;
}

function growIslands(n: i32): void {
  if (n <= islands.length) return;
  const grown = new StaticArray<f64>(max(2 * islands.length, n));
  memory.copy(changetype<usize>(grown), changetype<usize>(islands), <usize>islandCount << 3);
  islands = grown;
}

/** One outage case into record r; returns its code. */
function solveOutage(base: Topology, input: StaticArray<f64>, s: StaticArray<f64>, o0: i32, nBr: i32, nGen: i32, fromScenario: bool,
  busOff: i32, brOff: i32, genOff: i32, ng: i32, baseMVA: f64, tol: f64, maxIt: i32, baseComponents: i32,
  r: i32, rateOff: i32, vminOff: i32, vmaxOff: i32, limit: f64, monBrOff: i32, nMonBr: i32, monBusOff: i32, nMonBus: i32, mo: i32): i32 {
  const nb = base.nb, nl = base.nl;
  const vgOff = SIN_HEADER + nl + 2 * nb;
  const outOff = vgOff + ng + nMonBr + nMonBus + CASE_FIELDS * <i32>s[SIN_NCASES] + o0;
  for (let k = 0; k < nBr; k++) unchecked(brOut[<i32>s[outOff + k]] = 1);
  for (let k = 0; k < nGen; k++) unchecked(genOut[<i32>s[outOff + nBr + k]] = 1);
  let code = STATUS_CONVERGED;

  // generators: pv -> pq when the last one goes, slack lost when the reference's last one goes
  for (let i = 0; i < nb; i++) unchecked(types[i] = base.type[i]);
  for (let k = 0; k < nGen; k++) {
    const g = <i32>unchecked(s[outOff + nBr + k]);
    const bus = <i32>unchecked(input[genOff + g]);
    unchecked(gensAt[bus]--);
  }
  for (let k = 0; k < nGen; k++) {
    const bus = <i32>unchecked(input[genOff + <i32>s[outOff + nBr + k]]);
    if (unchecked(gensAt[bus]) > 0) continue;
    if (unchecked(base.type[bus]) == REF) code = CODE_SLACK_LOST;
    else if (unchecked(base.type[bus]) == PV) unchecked(types[bus] = 1);
  }

  // connectivity
  if (code == STATUS_CONVERGED && nBr > 0) {
    const n = components(nb, nl, base.f, base.t, brOut, parent);
    if (n > baseComponents) {
      code = CODE_ISLANDED;
      const cut = cutOff(nb, base.type, parent, mark);
      growIslands(islandCount + cut);
      let load = 0.0, gen = 0.0;
      for (let i = 0; i < nb; i++) {
        if (unchecked(mark[i]) == 0) continue;
        unchecked(islands[islandCount++] = <f64>i);
        load += unchecked(pd[i]);
      }
      for (let g = 0; g < ng; g++) {
        if (unchecked(genOut[g]) == 0 && unchecked(mark[<i32>input[genOff + g]]) != 0) gen += unchecked(pg[g]);
      }
      unchecked(records[r + REC_NISL] = <f64>cut);
      unchecked(records[r + REC_ISL_LOAD] = load);
      unchecked(records[r + REC_ISL_GEN] = gen);
      if (isolate) code = STATUS_CONVERGED; // solved below with the cut-off buses pinned
    }
  }

  let pinnedTopo: Topology | null = null;
  if (code == STATUS_CONVERGED) {
    const topo = dc ? base : topologyWithTypes(base, input, busOff, brOff, baseMVA); // DC: only the reference matters
    if (unchecked(records[r + REC_NISL]) > 0.0) {
      // de-energized buses: out of the equations on the same pattern (Topology.pinned)
      for (let i = 0; i < nb; i++) unchecked(topo.pinned[i] = mark[i]);
      topo.anyPinned = true;
      pinnedTopo = topo;
    }
    caseSaved = 0;
    for (let k = 0; k < nBr; k++) caseSaved = removeBranch(topo, <i32>s[outOff + k], caseSaved);
    const wVm = fromScenario ? scenVm : baseVm, wVa = fromScenario ? scenVa : baseVa;
    for (let i = 0; i < nb; i++) { unchecked(topo.vm[i] = wVm[i]); unchecked(topo.va[i] = wVa[i]); }
    if (qlim && !dc) holdSetPoints(topo, input, s, genOff, ng, vgOff);
    // a voltage-controlled bus that keeps generators: the set point of the last one listed (MATPOWER's V0(gbus) = Vg)
    for (let k = 0; k < nGen; k++) {
      const bus = <i32>unchecked(input[genOff + <i32>s[outOff + nBr + k]]);
      if (unchecked(gensAt[bus]) == 0 || unchecked(types[bus]) == 1) continue;
      for (let g = ng - 1; g >= 0; g--) {
        if (<i32>unchecked(input[genOff + g]) == bus && unchecked(genOut[g]) == 0) { unchecked(topo.vm[bus] = s[vgOff + g]); break; }
      }
    }
    code = solveLimited(base, topo, input, s, busOff, brOff, genOff, ng, baseMVA, tol, maxIt, outOff, nBr);
    const solved = caseTopo!;
    if (pinnedTopo !== null) {
      // a de-energized bus answers v = 0, theta = 0: its branches carry nothing
      for (let i = 0; i < nb; i++) {
        if (unchecked(solved.pinned[i]) == 0) continue;
        unchecked(solved.vm[i] = 0.0); unchecked(solved.va[i] = 0.0);
        unchecked(solved.vr[i] = 0.0); unchecked(solved.vi[i] = 0.0);
      }
    }
    unchecked(records[r + REC_ITER] = <f64>caseIterations);
    if (code == STATUS_CONVERGED) caseMetrics(solved, brOut, s, rateOff, vminOff, vmaxOff, limit, baseMVA, records, r);
    monitored(solved, brOut, s, rateOff, monBrOff, nMonBr, monBusOff, nMonBus, baseMVA, code == STATUS_CONVERGED, monitorValues, mo);
    restoreYbus(solved, caseSaved);
    if (pinnedTopo !== null) {
      for (let i = 0; i < nb; i++) unchecked(pinnedTopo.pinned[i] = 0);
      pinnedTopo.anyPinned = false;
    }
  } else {
    monitored(base, brOut, s, rateOff, monBrOff, nMonBr, monBusOff, nMonBus, baseMVA, false, monitorValues, mo);
  }
  unchecked(records[r + REC_CODE] = <f64>code);

  for (let k = 0; k < nBr; k++) unchecked(brOut[<i32>s[outOff + k]] = 0);
  for (let k = 0; k < nGen; k++) {
    const g = <i32>unchecked(s[outOff + nBr + k]);
    unchecked(genOut[g] = 0);
    unchecked(gensAt[<i32>input[genOff + g]]++);
  }
  return code;
}

export function violationsDone(): i32 { return violationCount; }
