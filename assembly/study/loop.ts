// A study in the core: one base solve, then many cases (outages, scenarios, or
// both) solved in a loop on the base topology (lightsim2grid's ContingencyAnalysis /
// TimeSerie idea):
//  - a branch outage edits the values of the four Ybus entries the branch stamps
//    (and of their column-order copy) and puts the saved values back afterwards,
//    bit for bit: the Ybus / Jacobian pattern and the symbolic LU analysis are
//    those of the base topology, never rebuilt;
//  - connectivity first: union-find over the remaining branches; more components
//    than the base case = islanded, reported (cut-off buses, their load and
//    generation), not solved; a single-branch outage searches only when the branch
//    is a bridge (found once per topology, islands.ts findBridges);
//  - a generator outage moves the scheduled injections; a pv bus left without
//    generators is solved as pq (a different Jacobian pattern: such type sets get
//    their own topology, analysed once and kept for the study); a reference bus
//    left without generators is `slack lost`, not solved (as the MATPOWER reference);
//  - contingencies start from the base solution (warm start); a scenario starts
//    like a power flow (the packed start point), and a scenario's contingencies
//    from that scenario's own solution.
// Nothing is allocated per case (the violation buffer grows by doubling, rarely).
import { Topology, PV, REF } from '../topology';
import { polarToRect, wrapAll, injections, mismatchFD, mismatchFDBus, mismatchFDNorms } from '../mismatch';
import { branchFlow } from '../branchFlow';
import { makeYbus } from '../ybus';
import { newtonpf } from '../newtonpf';
import { SolveResult } from '../solveResult';
import { factorBWithout, fdIterate } from '../fdpf';
import { progress } from '../progress';
import { components, cutOff, findBridges } from '../islands';
import { caseMetrics, monitored, branchLoadings, FlowModel, ScreenListing } from './metrics';
import { StudyResults } from './results';
import { dcCase } from './dc';
import { QLimitLoop, QLIM_NONE, QLIM_INFEASIBLE } from './qLimits';
import { BranchOutageCompensation } from './compensation';
import { STATUS_CANCELLED, STATUS_CONVERGED, STATUS_MAXIT, METHOD_DC, METHOD_FDXB } from '../abi';
import {
  CASE_FIELDS, SCEN_FIELDS, REC_CODE, REC_ITER, REC_FIELDS, REC_NISL, REC_ISL_LOAD, REC_ISL_GEN,
  CODE_ISLANDED, CODE_SLACK_LOST, CODE_QLIM_INFEASIBLE, SIN_QLIM, SIN_ISOLATE, SIN_WARM_PREVIOUS,
  SIN_ESTIMATE_IT, SIN_ESTIMATE_REFACTOR, SIN_ESTIMATE_SHARPEN, SIN_ESTIMATE_CHANGE, SIN_ESTIMATE_POINTS, REC_EST_STEP,
  CASE_SCEN, CASE_OUT_START, CASE_NBR, CASE_NGEN, SCEN_SCALE, SCEN_CORR_START, SCEN_NCORR, SCEN_SGEN_START, SCEN_NSGEN,
  CORR_BUS, CORR_DP, CORR_DQ, CORR_FIELDS, SGEN_GEN, SGEN_PG, SGEN_FIELDS,
  REC_MINV, REC_MINV_BUS, REC_MAXV, REC_MAXV_BUS, REC_MAXLOAD, REC_MAXLOAD_BR, REC_NVIOL, VIOL_OVERLOAD,
} from './abi';
import { StudySections } from './sections';
import { getf, ptr } from '../sparse/raw';
import { BUS_ISLAND, BUS_PD, BUS_QD, BUS_VA0, BUS_VM0, GEN_PG, GEN_QG, IN_METHOD } from '../abi';

/** nearTrigger()'s answers (NEAR_UNRECORDED: none near, the record left to caseMetrics: too many listed). */
const NEAR_NONE: i32 = 0, NEAR_MARGIN: i32 = 1, AT_TRIGGER: i32 = 2, NEAR_UNRECORDED: i32 = 3;
/** Branches nearTrigger lists itself for an outage that comes near no trigger (more: caseMetrics lists them). */
const LISTED_ROOM: i32 = 64;

/** One study's state between its cases: the scratch sized for the base topology, the method and its
 *  options, the case being solved, and the results (./results.ts). One instance per wasm instance
 *  (index.ts); nothing here is allocated per case. */
export class StudyWorkspace {
  readonly results: StudyResults = new StudyResults();
  private qLimits: QLimitLoop = new QLimitLoop();
  private flows: FlowModel = new FlowModel();
  private listing: ScreenListing = new ScreenListing();

  // per-study scratch, sized when the base topology changes
  private scratchFor: Topology | null = null;
  private brOut: StaticArray<u8> = new StaticArray<u8>(0);
  private bridge: StaticArray<u8> = new StaticArray<u8>(0);     // 1: the branch's outage alone splits the network (findBridges)
  private genOut: StaticArray<u8> = new StaticArray<u8>(0);
  private parent: StaticArray<i32> = new StaticArray<i32>(0);
  private mark: StaticArray<u8> = new StaticArray<u8>(0);
  private baseVm: StaticArray<f64> = new StaticArray<f64>(0);
  private baseVa: StaticArray<f64> = new StaticArray<f64>(0);
  private scenVm: StaticArray<f64> = new StaticArray<f64>(0);
  private scenVa: StaticArray<f64> = new StaticArray<f64>(0);
  private pd: StaticArray<f64> = new StaticArray<f64>(0);
  private qd: StaticArray<f64> = new StaticArray<f64>(0);
  private pg: StaticArray<f64> = new StaticArray<f64>(0);
  private qg: StaticArray<f64> = new StaticArray<f64>(0);       // the scenario's generator Q (MVAr)
  private pgCase: StaticArray<f64> = new StaticArray<f64>(0);   // the case's set points: the scenario's, then the Q-limit loop's
  private qgCase: StaticArray<f64> = new StaticArray<f64>(0);
  private refVa: StaticArray<f64> = new StaticArray<f64>(0);    // a case's slack angles before its Q-limit loop (NaN: not a slack)
  private gensAt: StaticArray<i32> = new StaticArray<i32>(0);
  private types: StaticArray<i32> = new StaticArray<i32>(0);
  private saved: StaticArray<f64> = new StaticArray<f64>(64);   // (position, re, im) of edited Ybus entries
  private typed: Array<Topology> = new Array<Topology>();       // topologies of changed bus types (generator outages)
  private typedHash: u64 = 0;                                   // Ybus parameter hash the typed topologies were made for
  // the method and options of the study being run
  private dc: bool = false;                                     // DC study (./dc.ts) instead of Newton-Raphson
  private fd: bool = false;                                     // fast-decoupled (XB) study
  // B' / B'' of which topology and outage the factors hold: a scenario case on the intact network
  // reuses the intact factors; an outage case refactors on the base pattern (fdpf.ts factorBWithout)
  private fdTopo: Topology | null = null;
  private fdIntact: bool = false;
  private fdGeneration: i32 = -1;        // fdTopo's DecoupledSystem.generation when this workspace factorised it
  private baseReused: bool = false;      // this run's base state is the last run's (solveBase: same topology and input)
  private qlim: bool = false;                                   // enforce generator Q limits (./qLimits.ts)
  private isolate: bool = false;                                // splitting outages solved on what stays energized (Topology.pinned)
  // warm_start "previous": a scenario starts from the scenario before it in this chunk, when that one converged
  private warmPrevious: bool = false;
  /** > 0: outage cases are estimates of this many iterations (SIN_ESTIMATE_IT) */
  private estimateIt: i32 = 0;
  // an estimate's single-branch outage is solved on the intact B' / B'' factors, compensated (./compensation.ts);
  // estimateRefactor: refactorised instead (SIN_ESTIMATE_REFACTOR, the test's reference)
  private compensation: BranchOutageCompensation = new BranchOutageCompensation();
  private estimateRefactor: bool = false;
  private caseBranch: i32 = -1;                                 // the one branch out of the case being solved, else -1
  private caseCompensated: bool = false;                        // the last fdIterate ran on the compensated intact factors
  // an estimate iterates on when its first iteration comes near a trigger (SIN_ESTIMATE_SHARPEN, sharpen())
  private sharpenIt: i32 = 0;
  private sharpenChange: f64 = 0.0;
  private sharpenPoints: f64 = 0.0;
  private triggerOff: i32 = 0;
  private baseLoad: StaticArray<f64> = new StaticArray<f64>(0);  // loading % of the base state, NaN unrated
  private prevLoad: StaticArray<f64> = new StaticArray<f64>(0);  // of the iterate before the current one
  private curLoad: StaticArray<f64> = new StaticArray<f64>(0);
  private listed: StaticArray<i32> = new StaticArray<i32>(LISTED_ROOM); // nearTrigger's listing
  private previousOk: bool = false;
  // the intact network's base state with its trigonometry and injections (V, cos / sin, S = V conj(Ybus V)): an
  // estimate's single-branch outage starts from them with the branch's own flows taken out (startFromBase)
  private baseStart: StaticArray<f64> = new StaticArray<f64>(0);
  // its fast-decoupled mismatch (rhsP, rhsQ): an outage's differs at its branch's two end buses only
  private baseMisP: StaticArray<f64> = new StaticArray<f64>(0);
  private baseMisQ: StaticArray<f64> = new StaticArray<f64>(0);
  private caseFromBase: bool = false;                           // the outage case starts from the base state
  // the topology whose pSch / qSch hold the current scenario's injections with every generator in (schedule() skipped
  // for the next branch-only outage on it), else null
  private scheduledFor: Topology | null = null;
  private branchesOnly: bool = false;                           // the case being solved outages branches only, no Q limits
  private mismatchPending: bool = false;                        // the estimate's fdIterate skipped its final mismatch
  // the outcome of solveLimited: the topology the case ended on (its bus types), its Ybus entries
  // edited for the outage, and the iterations of all its runs
  private caseTopo: Topology | null = null;
  private caseSaved: i32 = 0;
  private caseIterations: i32 = 0;
  private solveResult: SolveResult = new SolveResult();
  // the run's buffers and network (set once by run(), read by every case): the packed network, the study buffer and
  // its sections (./sections.ts), the packed sections' offsets, the solve options
  readonly sections: StudySections = new StudySections();
  private input: StaticArray<f64> = new StaticArray<f64>(0);
  private s: StaticArray<f64> = new StaticArray<f64>(0);
  private busOff: i32 = 0;
  private brOff: i32 = 0;
  private genOff: i32 = 0;
  private ng: i32 = 0;
  private vmOff: i32 = 0;                                       // the packed start point (BUS_VM0, BUS_VA0)
  private vaOff: i32 = 0;
  private baseMVA: f64 = 0.0;
  private tol: f64 = 0.0;
  private maxIt: i32 = 0;
  private baseComponents: i32 = 0;                              // connected components of the intact network
  // The Newton base solve of the last run: a study's chunks (and a screened chunk's estimate and kept cases) each
  // solve the same base case from the same packed network, to the same state bit for bit; a run on the same
  // topology and input (the method aside: an estimate's base is Newton too) takes that state instead of solving again.
  private keptInput: StaticArray<f64> = new StaticArray<f64>(0);
  private keptTopo: Topology | null = null;
  private keptHash: u64 = 0;
  private keptState: StaticArray<f64> = new StaticArray<f64>(0); // vm, va, vr, vi as the solve left them
  private keptCode: i32 = -1;                                    // -1: nothing kept
  private keptIterations: i32 = 0;

  sizeScratch(topo: Topology, ng: i32): void {
    if (this.typedHash != topo.yHash) { this.typed = new Array<Topology>(); this.typedHash = topo.yHash; }
    if (this.scratchFor === topo && this.genOut.length == ng) return;
    const nb = topo.nb, nl = topo.nl;
    this.brOut = new StaticArray<u8>(nl);
    this.bridge = new StaticArray<u8>(nl);
    findBridges(nb, nl, topo.f, topo.t, this.bridge);
    this.genOut = new StaticArray<u8>(ng);
    this.parent = new StaticArray<i32>(nb);
    this.mark = new StaticArray<u8>(nb);
    this.baseVm = new StaticArray<f64>(nb); this.baseVa = new StaticArray<f64>(nb);
    this.scenVm = new StaticArray<f64>(nb); this.scenVa = new StaticArray<f64>(nb);
    this.pd = new StaticArray<f64>(nb); this.qd = new StaticArray<f64>(nb);
    this.pg = new StaticArray<f64>(ng); this.qg = new StaticArray<f64>(ng);
    this.pgCase = new StaticArray<f64>(ng); this.qgCase = new StaticArray<f64>(ng);
    this.refVa = new StaticArray<f64>(nb);
    this.gensAt = new StaticArray<i32>(nb);
    this.types = new StaticArray<i32>(nb);
    this.baseStart = new StaticArray<f64>(8 * nb);
    this.baseMisP = new StaticArray<f64>(nb); this.baseMisQ = new StaticArray<f64>(nb);
    this.baseLoad = new StaticArray<f64>(nl); this.prevLoad = new StaticArray<f64>(nl); this.curLoad = new StaticArray<f64>(nl);
    this.typed = new Array<Topology>();
    this.scratchFor = topo;
  }

  /** Saves then removes branch l's four stamps from the Ybus values (and the column-order copy). */
  removeBranch(topo: Topology, l: i32, nSaved: i32): i32 {
    const need = 3 * (nSaved + 4);
    if (need > this.saved.length) {
      const grown = new StaticArray<f64>(2 * need);
      memory.copy(changetype<usize>(grown), changetype<usize>(this.saved), <usize>(3 * nSaved) << 3);
      this.saved = grown;
    }
    const yRe = topo.yRe, yIm = topo.yIm, yT = topo.yT, yTr = topo.yTr, brY = topo.brY;
    for (let k = 0; k < 4; k++) {
      const p = k == 0 ? unchecked(topo.pFF[l]) : k == 1 ? unchecked(topo.pFT[l]) : k == 2 ? unchecked(topo.pTF[l]) : unchecked(topo.pTT[l]);
      const s = 3 * nSaved++;
      unchecked(this.saved[s] = <f64>p);
      unchecked(this.saved[s + 1] = yRe[p]);
      unchecked(this.saved[s + 2] = yIm[p]);
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

  /** Puts the saved Ybus entries back, the last saved first (exact values). */
  restoreYbus(topo: Topology, nSaved: i32): void {
    const yRe = topo.yRe, yIm = topo.yIm, yT = topo.yT, yTr = topo.yTr;
    for (let k = nSaved - 1; k >= 0; k--) {
      const p = <i32>unchecked(this.saved[3 * k]);
      const re = unchecked(this.saved[3 * k + 1]), im = unchecked(this.saved[3 * k + 2]);
      unchecked(yRe[p] = re);
      unchecked(yIm[p] = im);
      const q = unchecked(yTr[p]);
      unchecked(yT[2 * q] = re);
      unchecked(yT[2 * q + 1] = im);
    }
  }

  /** The topology of the base's branches with bus types `this.types` (made once per type set in a study). */
  topologyWithTypes(base: Topology): Topology {
    const nb = base.nb, bytes = <usize>nb << 2, types = ptr(this.types);
    // every case asks (a branch outage's types are the base's): a compare of raw memory, not a loop of array reads
    if (memory.compare(types, ptr(base.type), bytes) == 0) return base;
    for (let k = 0; k < this.typed.length; k++) {
      const c = unchecked(this.typed[k]);
      if (memory.compare(types, ptr(c.type), bytes) == 0) return c;
    }
    const ty = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) unchecked(ty[i] = this.types[i]);
    const topo = new Topology(nb, base.nl, base.f, base.t, ty);
    makeYbus(topo, this.input, this.busOff, this.brOff, this.baseMVA);
    if (this.typed.length >= 4) this.typed.shift(); // each holds a Jacobian LU: keep few
    this.typed.push(topo);
    return topo;
  }

  /** Scheduled injections of the current case (this.pd / this.qd / this.pg minus the generators out) into topo. */
  schedule(topo: Topology): void {
    // the same operations in the same order as index.ts solve(): a scenario equals its own power flow bit for bit
    const input = this.input, genOff = this.genOff, ng = this.ng, baseMVA = this.baseMVA;
    const nb = topo.nb, pSch = topo.pSch, qSch = topo.qSch;
    for (let i = 0; i < nb; i++) { unchecked(pSch[i] = 0.0); unchecked(qSch[i] = 0.0); }
    for (let g = 0; g < ng; g++) {
      if (unchecked(this.genOut[g]) != 0) continue;
      const bus = <i32>unchecked(input[genOff + g]);
      unchecked(pSch[bus] += this.pgCase[g]);
      unchecked(qSch[bus] += this.qgCase[g]);
    }
    for (let i = 0; i < nb; i++) {
      unchecked(pSch[i] = (pSch[i] - this.pd[i]) / baseMVA);
      unchecked(qSch[i] = (qSch[i] - this.qd[i]) / baseMVA);
    }
  }

  /** Newton-Raphson or fast-decoupled from topo.vm / va, or the DC equations, on the current case's injections, at
   *  most maxIt iterations (an estimate's own count, else the study's); intact: no branch out. */
  solveCase(topo: Topology, maxIt: i32, intact: bool): i32 {
    const input = this.input, busOff = this.busOff, brOff = this.brOff, baseMVA = this.baseMVA, tol = this.tol;
    if (this.dc) return dcCase(topo, input, busOff, brOff, this.genOff, this.ng, baseMVA, this.brOut, this.genOut, this.pd, this.pg);
    // a branch outage's injections are those of the last one on this topology and scenario: O(nb + ng) saved per case
    if (!(this.branchesOnly && this.scheduledFor === topo)) this.schedule(topo);
    this.scheduledFor = this.branchesOnly ? topo : null;
    if (this.fd) {
      this.caseCompensated = false;
      this.mismatchPending = false;
      const l = this.estimateIt > 0 && !this.estimateRefactor && !this.qlim ? this.caseBranch : -1;
      const onIntact = intact || l >= 0;
      let factored = true;
      if (!(this.fdTopo === topo && this.fdIntact && onIntact)) {
        factored = factorBWithout(topo, input, busOff, brOff, baseMVA, onIntact ? null : this.brOut);
        this.fdTopo = factored ? topo : null;
        this.fdIntact = onIntact;
        this.fdGeneration = topo.decoupled().generation;
      }
      if (l >= 0) {
        const c = this.compensation;
        this.caseCompensated = factored && c.prepare(topo, input, brOff, l);
        if (this.caseCompensated) {
          const resume = this.caseFromBase && topo === this.scratchFor;
          if (resume) this.startFromBase(topo, l);
          // the mismatch after the last half-step only matters to iterate on (sharpen() evaluates it then)
          this.mismatchPending = this.sharpenIt > 1;
          return fdIterate(topo, true, tol, maxIt, this.solveResult, c.bp, c.bpp, resume, !this.mismatchPending);
        }
        // singular without the branch to working precision: the refactorised path decides
        factored = factorBWithout(topo, input, busOff, brOff, baseMVA, this.brOut);
        this.fdTopo = factored ? topo : null;
        this.fdIntact = false;
      }
      return fdIterate(topo, factored, tol, maxIt, this.solveResult);
    }
    topo.newton().resetPivoting(); // every case from the analysed state: rows independent of history and chunking
    return newtonpf(topo, tol, maxIt, this.solveResult);
  }

  /** After the base solve: the base state (wrapped), its cos / sin and injections on the intact Ybus into baseStart,
   *  by the same operations as fdIterate's start, so that an outage's start differs from one evaluated in full by
   *  its branch's removal alone (round-off). */
  keepBaseStart(topo: Topology): void {
    const nb = topo.nb;
    for (let i = 0; i < nb; i++) { unchecked(topo.vm[i] = this.baseVm[i]); unchecked(topo.va[i] = this.baseVa[i]); }
    wrapAll(topo);
    for (let i = 0; i < nb; i++) {
      NativeMath.sincos(unchecked(topo.va[i]));
      const cs = NativeMath.sincos_cos, sn = NativeMath.sincos_sin, m = unchecked(topo.vm[i]);
      unchecked(topo.cosVa[i] = cs); unchecked(topo.sinVa[i] = sn);
      unchecked(topo.vr[i] = m * cs); unchecked(topo.vi[i] = m * sn);
    }
    injections(topo);
    const parts: StaticArray<f64>[] = [topo.vm, topo.va, topo.vr, topo.vi, topo.cosVa, topo.sinVa, topo.sr, topo.si];
    for (let k = 0; k < 8; k++) {
      memory.copy(changetype<usize>(this.baseStart) + (<usize>(k * nb) << 3), changetype<usize>(parts[k]), <usize>nb << 3);
    }
    const sys = topo.decoupled();
    mismatchFD(topo, sys);
    memory.copy(changetype<usize>(this.baseMisP), changetype<usize>(sys.rhsP), <usize>topo.nR << 3);
    memory.copy(changetype<usize>(this.baseMisQ), changetype<usize>(sys.rhsQ), <usize>topo.nQ << 3);
  }

  /** An estimate's start for the outage of branch l (already out of the Ybus): the base state of keepBaseStart
   *  with the branch's flows taken out of its end buses' injections, and its mismatch (fdIterate's resume). The
   *  injections' other terms are those of the base state: a full evaluation (O(nnz)) would give them again; so are
   *  the other buses' mismatch entries (the base mismatch, the two end buses' evaluated again, the norms scanned). */
  startFromBase(topo: Topology, l: i32): void {
    const nb = topo.nb;
    const parts: StaticArray<f64>[] = [topo.vm, topo.va, topo.vr, topo.vi, topo.cosVa, topo.sinVa, topo.sr, topo.si];
    for (let k = 0; k < 8; k++) {
      memory.copy(changetype<usize>(parts[k]), changetype<usize>(this.baseStart) + (<usize>(k * nb) << 3), <usize>nb << 3);
    }
    const flow = this.flows.flow;
    branchFlow(topo, l, flow); // the stamps are still in topo.brY: S_f = V_f conj(I_f) of the branch alone
    const a = unchecked(topo.f[l]), b = unchecked(topo.t[l]);
    unchecked(topo.sr[a] -= flow[0]); unchecked(topo.si[a] -= flow[1]);
    unchecked(topo.sr[b] -= flow[2]); unchecked(topo.si[b] -= flow[3]);
    const sys = topo.decoupled();
    memory.copy(changetype<usize>(sys.rhsP), changetype<usize>(this.baseMisP), <usize>topo.nR << 3);
    memory.copy(changetype<usize>(sys.rhsQ), changetype<usize>(this.baseMisQ), <usize>topo.nQ << 3);
    mismatchFDBus(topo, sys, a);
    mismatchFDBus(topo, sys, b);
    mismatchFDNorms(topo, sys);
  }

  /** solveCase on topo (this.types in `this.types`, the outage's branches already removed from its Ybus: this.caseSaved
   *  entries), then, when the study enforces Q limits, MATPOWER's loop: each run warm from the last on
   *  the topology of the new bus types (its Ybus edited for the same outage), iterations summed, the
   *  original slack's angle restored if the slack moved. The outage's nBr branches are at outOff of the study buffer;
   *  maxIt as solveCase. Sets this.caseTopo, this.caseSaved, this.caseIterations. */
  solveLimited(base: Topology, topo: Topology, maxIt: i32, outOff: i32, nBr: i32): i32 {
    const input = this.input, s = this.s, busOff = this.busOff, genOff = this.genOff, ng = this.ng, baseMVA = this.baseMVA;
    for (let g = 0; g < ng; g++) { unchecked(this.pgCase[g] = this.pg[g]); unchecked(this.qgCase[g] = this.qg[g]); }
    let code = this.solveCase(topo, maxIt, nBr == 0);
    let its = this.dc ? 1 : this.solveResult.iterations;
    if (this.qlim && !this.dc) {
      const nb = topo.nb;
      for (let i = 0; i < nb; i++) unchecked(this.refVa[i] = topo.type[i] == REF ? topo.va[i] : NaN);
      this.qLimits.begin();
      while (code == STATUS_CONVERGED) {
        const step = this.qLimits.step(topo, this.types, input, busOff, genOff, ng, baseMVA, this.genOut, this.pgCase, this.qgCase, this.pd, this.qd);
        if (step == QLIM_NONE) break;
        if (step == QLIM_INFEASIBLE) { code = CODE_QLIM_INFEASIBLE; break; }
        const next = this.topologyWithTypes(base);
        if (next !== topo) {
          for (let i = 0; i < nb; i++) { unchecked(next.vm[i] = topo.vm[i]); unchecked(next.va[i] = topo.va[i]); }
          this.restoreYbus(topo, this.caseSaved);
          this.caseSaved = 0;
          for (let k = 0; k < nBr; k++) this.caseSaved = this.removeBranch(next, <i32>s[outOff + k], this.caseSaved);
          topo = next;
        }
        code = this.solveCase(topo, maxIt, nBr == 0);
        its += this.solveResult.iterations;
      }
      if (this.qLimits.slackMoved) {
        // the original slack keeps its angle (one island per slack, as the Q-limit loop of power flow)
        const islandOff = busOff + BUS_ISLAND * nb;
        for (let i = 0; i < nb; i++) {
          const a = unchecked(this.refVa[i]);
          if (a != a) continue;
          const shift = unchecked(topo.va[i]) - a, island = unchecked(input[islandOff + i]);
          if (shift == 0.0) continue;
          for (let j = 0; j < nb; j++) if (unchecked(input[islandOff + j]) == island) unchecked(topo.va[j] -= shift);
        }
        polarToRect(topo);
      }
    }
    this.caseTopo = topo;
    this.caseIterations = its;
    return code;
  }

  /** After an estimate's first iteration (loadings into prevLoad): does some rated branch come within the screen's
   *  first margin of its trigger (src/studies/screening.ts), i.e. would one iteration alone keep the case?
   *  NEAR_NONE: no; NEAR_MARGIN: within the margin; AT_TRIGGER: some branch's estimate is at or over its trigger
   *  already, with no margin at all (the case is kept without iterating on: docs/studies.md "Screening", rule 2).
   *  NEAR_NONE also writes the case's record r as caseMetrics would (the largest loading, the branches within the
   *  listing's margin), from the same pass over the branches: most outages end here (1,495 of case2383wp's 2,252). */
  nearTrigger(topo: Topology, r: i32): i32 {
    const s = this.s, rateOff = this.sections.rate;
    branchLoadings(topo, this.flows, this.brOut, s, rateOff, this.baseMVA, this.prevLoad);
    const nl = topo.nl, k = this.sharpenChange, pts = this.sharpenPoints;
    // raw element access (../sparse/raw.ts): every branch of every outage
    const prev = ptr(this.prevLoad), base = ptr(this.baseLoad), sp = ptr(s), bo = ptr(this.brOut), triggerOff = this.triggerOff;
    const listed = ptr(this.listed), room = this.listed.length;
    let near = NEAR_NONE, maxLoad = NaN, maxBr = -1, nListed = 0;
    for (let l = 0; l < nl; l++) {
      const rate = getf(sp, rateOff + l);
      if (rate <= 0.0 || load<u8>(bo + <usize>l) != 0) continue;
      const ld = getf(prev, l), trig = getf(sp, triggerOff + l), from = getf(base, l);
      // caseMetrics's largest loading and ScreenListing.couldKeep (from the base, the first margin), term for term
      if (maxBr < 0 || ld > maxLoad) { maxLoad = ld; maxBr = l; }
      if (!(ld + k * Math.abs(ld - from) + pts + 0.01 < trig) || from != from) {
        if (nListed < room) store<i32>(listed + (<usize>nListed << 2), l);
        nListed++;
      }
      if (ld != ld) continue;
      if (!(ld < trig)) return AT_TRIGGER;
      if (!(ld + k * Math.abs(ld - from) + pts < trig)) near = NEAR_MARGIN;
    }
    if (near != NEAR_NONE || nListed > room) return near == NEAR_NONE ? NEAR_UNRECORDED : near;
    const res = this.results, rec = res.records, limit = this.sections.limit;
    const first = res.violationCount;
    for (let q = 0; q < nListed; q++) {
      const l = load<i32>(listed + (<usize>q << 2));
      res.pushViolation(VIOL_OVERLOAD, l, getf(prev, l), limit);
    }
    unchecked(rec[r + REC_MINV] = NaN); unchecked(rec[r + REC_MINV_BUS] = -1.0);
    unchecked(rec[r + REC_MAXV] = NaN); unchecked(rec[r + REC_MAXV_BUS] = -1.0);
    unchecked(rec[r + REC_MAXLOAD] = maxLoad); unchecked(rec[r + REC_MAXLOAD_BR] = <f64>maxBr);
    unchecked(rec[r + REC_NVIOL] = <f64>(res.violationCount - first));
    return NEAR_NONE;
  }

  /** Iterates an estimate on (one decoupled iteration at a time, on the same factors and update) until its loading
   *  step contracts: the largest change of a rated branch's loading in an iteration at most half the one before,
   *  so that (the iteration converging at least that fast) what is left to move is at most the last step. The
   *  step goes to REC_EST_STEP (Infinity: no contraction within SIN_ESTIMATE_SHARPEN iterations); prevLoad ends
   *  as the iterate before the state reached. r: the case's record. Returns the iteration's status. */
  sharpen(topo: Topology, r: i32): i32 {
    const s = this.s, rateOff = this.sections.rate, baseMVA = this.baseMVA, tol = this.tol;
    let last = maxChange(this.prevLoad, this.baseLoad), code = STATUS_MAXIT;
    const c = this.compensation;
    if (this.mismatchPending) { injections(topo); mismatchFD(topo, topo.decoupled()); }
    for (let it = 1; it < this.sharpenIt; it++) {
      // from the state and mismatch the last iteration left (resume): no evaluation of them again
      code = this.caseCompensated ? fdIterate(topo, true, tol, 1, this.solveResult, c.bp, c.bpp, true)
        : fdIterate(topo, true, tol, 1, this.solveResult, null, null, true);
      this.caseIterations += this.solveResult.iterations;
      if (code != STATUS_CONVERGED && code != STATUS_MAXIT) return code;
      branchLoadings(topo, this.flows, this.brOut, s, rateOff, baseMVA, this.curLoad);
      const step = maxChange(this.curLoad, this.prevLoad);
      const swap = this.prevLoad; this.prevLoad = this.curLoad; this.curLoad = swap;
      // the iterate before the state reached is the other buffer now
      // contracted: done when the step no longer decides, i.e. the case is kept even with nothing left to move, or
      // dropped with what is left bounded by the step; else iterate on while iterations remain
      if ((step <= 0.5 * last && this.settled(step)) || code == STATUS_CONVERGED || (step <= 0.5 * last && it == this.sharpenIt - 1)) {
        const held = this.prevLoad; this.prevLoad = this.curLoad; this.curLoad = held;
        unchecked(this.results.records[r + REC_EST_STEP] = step);
        return code;
      }
      last = step;
    }
    const held = this.prevLoad; this.prevLoad = this.curLoad; this.curLoad = held;
    unchecked(this.results.records[r + REC_EST_STEP] = Infinity);
    return code;
  }

  /** With the loadings of the state reached in prevLoad and of the iterate before in curLoad: whether the last
   *  step no longer changes the screen's verdict (src/studies/screening.ts): some branch comes within the margin
   *  of its trigger without it, or none does with it. */
  settled(step: f64): bool {
    const s = this.s, nl = this.prevLoad.length, k = this.sharpenChange, pts = this.sharpenPoints;
    const prev = ptr(this.prevLoad), cur = ptr(this.curLoad), sp = ptr(s), triggerOff = this.triggerOff;
    let anyWith = false;
    for (let l = 0; l < nl; l++) {
      const ld = getf(prev, l);
      if (ld != ld) continue;
      const near = ld + k * Math.abs(ld - getf(cur, l)) + pts, trig = getf(sp, triggerOff + l);
      if (!(near < trig)) return true;
      if (!(near + step < trig)) anyWith = true;
    }
    return !anyWith;
  }

  /** The generators' voltage set points on the voltage-controlled buses (MATPOWER's V0(gbus) = Vg, the
   *  last in-service generator listed): a case under Q limits starts with the model's bus types, so a bus
   *  its start point (a solution) had turned pq is held at its set point again. */
  holdSetPoints(topo: Topology): void {
    const input = this.input, s = this.s, genOff = this.genOff, ng = this.ng, vgOff = this.sections.vg;
    for (let g = 0; g < ng; g++) {
      if (unchecked(this.genOut[g]) != 0) continue;
      const bus = <i32>unchecked(input[genOff + g]);
      const ty = unchecked(this.types[bus]);
      if (ty == PV || ty == REF) unchecked(topo.vm[bus] = s[vgOff + g]);
    }
  }


  /** Runs the study described by s on the packed network in input (base topology `topo`, Ybus made).
   *  Returns the number of cases done (less than asked when cancelled). */
  run(topo: Topology, input: StaticArray<f64>, s: StaticArray<f64>, busOff: i32, brOff: i32, genOff: i32,
    ng: i32, baseMVA: f64, tol: f64, maxIt: i32, method: i32): i32 {
    const nb = topo.nb, nl = topo.nl;
    this.sizeScratch(topo, ng);
    this.dc = method == METHOD_DC; this.fd = method == METHOD_FDXB;
    this.qlim = <i32>s[SIN_QLIM] != 0;
    // Newton only, without the Q-limit loop: the other methods and Q limits solve such cases as power flows (src/studies/islanded.ts)
    this.isolate = <i32>s[SIN_ISOLATE] != 0 && !this.dc && !this.fd && !this.qlim;
    this.warmPrevious = <i32>s[SIN_WARM_PREVIOUS] != 0 && !this.dc; // DC has no start point
    this.previousOk = false;
    this.estimateIt = <i32>s[SIN_ESTIMATE_IT];
    this.estimateRefactor = <i32>s[SIN_ESTIMATE_REFACTOR] != 0;
    this.sharpenIt = this.estimateIt > 0 && this.fd && !this.qlim ? <i32>s[SIN_ESTIMATE_SHARPEN] : 0;
    this.sharpenChange = s[SIN_ESTIMATE_CHANGE];
    this.sharpenPoints = s[SIN_ESTIMATE_POINTS];
    // the B factors a last run left: kept below only for the same topology and input, untouched since
    const keptFd = this.fdTopo;
    this.fdTopo = null;
    this.scheduledFor = null;
    this.branchesOnly = false;
    this.flows.input = this.dc ? input : null;
    this.flows.brOff = brOff;
    const sec = this.sections;
    sec.read(s, nb, nl, ng);
    this.input = input; this.s = s;
    this.busOff = busOff; this.brOff = brOff; this.genOff = genOff; this.ng = ng;
    this.vmOff = busOff + BUS_VM0 * nb; this.vaOff = busOff + BUS_VA0 * nb;
    this.baseMVA = baseMVA; this.tol = tol; this.maxIt = maxIt;
    this.triggerOff = sec.trigger;
    const nCases = sec.nCases;

    this.results.begin(nCases, sec.monSize);

    // base injections, generator counts per bus, base connectivity
    for (let i = 0; i < nb; i++) { unchecked(this.gensAt[i] = 0); unchecked(this.types[i] = topo.type[i]); }
    for (let g = 0; g < ng; g++) { unchecked(this.genOut[g] = 0); unchecked(this.gensAt[<i32>input[genOff + g]]++); }
    for (let l = 0; l < nl; l++) unchecked(this.brOut[l] = 0);
    this.baseComponents = components(nb, nl, topo.f, topo.t, this.brOut, this.parent);

    // ---- the base case (record 0): start point of the packed network
    this.setScenario(-1, sec);
    // an estimate starts from the AC base state: its base case is solved with Newton-Raphson as the AC study's is
    // (fast-decoupled need not converge there: case_ACTIVSg10k does not in 100 iterations)
    const fdCases = this.fd;
    if (this.estimateIt > 0) this.fd = false;
    const baseOk = this.solveBase(topo, sec);
    this.fd = fdCases;
    // the same network as the last run (a study's next chunk on this thread): its intact B' / B'' factors stand
    if (this.baseReused && this.fd && keptFd === topo && this.fdIntact && topo.decoupled().generation == this.fdGeneration) this.fdTopo = topo;
    if (unchecked(this.results.records[REC_CODE]) == <f64>STATUS_CANCELLED) return 0;
    // an estimate starts from the base solution: without one, each case is solved in full instead (exact, slower)
    if (!baseOk) this.estimateIt = 0;
    for (let i = 0; i < nb; i++) {
      unchecked(this.baseVm[i] = baseOk ? topo.vm[i] : input[this.vmOff + i]);
      unchecked(this.baseVa[i] = baseOk ? topo.va[i] : input[this.vaOff + i]);
    }
    if (this.estimateIt > 0 && this.sharpenIt > 1) branchLoadings(topo, this.flows, this.brOut, s, sec.rate, baseMVA, this.baseLoad);
    if (this.estimateIt > 0 && this.fd) this.keepBaseStart(topo);

    let slot = -2;          // scenario slot whose injections are set
    let scenSolved = -2;    // scenario slot whose intact solution is in this.scenVm / this.scenVa
    for (let c = 0; c < nCases; c++) {
      const r = REC_FIELDS * (c + 1);
      const d = sec.cases + CASE_FIELDS * c;
      const sc = <i32>unchecked(s[d + CASE_SCEN]);
      const nOut = <i32>unchecked(s[d + CASE_NBR]) + <i32>unchecked(s[d + CASE_NGEN]);
      if (sc != slot) { this.setScenario(sc, sec); slot = sc; }
      this.results.clearRecord(r);
      if (nOut == 0) {
        // a scenario on the intact network: like a power flow
        const ok = this.solveFromStart(topo, r, sec.monSize * (c + 1), this.warmPrevious && this.previousOk, sec);
        if (unchecked(this.results.records[r + REC_CODE]) == <f64>STATUS_CANCELLED) return c;
        this.keepScenario(topo, ok);
        this.previousOk = ok;
        scenSolved = sc;
      } else {
        if (sc >= 0 && scenSolved != sc) {
          // the contingencies of a scenario start from its intact solution
          const ok = this.solveFromStart(topo, -1, -1, this.warmPrevious && this.previousOk, sec);
          this.keepScenario(topo, ok);
          this.previousOk = ok;
          scenSolved = sc;
        }
        const code = this.solveOutage(topo, c, sec);
        if (code == STATUS_CANCELLED) return c;
      }
      this.results.casesDone = c + 1;
      if (progress(-1, <f64>(c + 1)) != 0) return c + 1;
    }
    return nCases;
  }

  /** The base case (record 0) from the packed start point: solveFromStart, or the state the last run's identical
   *  Newton base solve reached (keptInput). Returns converged. */
  solveBase(topo: Topology, sec: StudySections): bool {
    const input = this.input, nb = topo.nb;
    const newton = !this.fd && !this.dc && !this.qlim; // Q limits change bus types: not kept
    const parts: StaticArray<f64>[] = [topo.vm, topo.va, topo.vr, topo.vi];
    this.baseReused = false;
    if (newton && this.keptCode >= 0 && this.keptTopo === topo && this.keptHash == topo.yHash && this.sameInput()) {
      this.baseReused = true;
      for (let k = 0; k < 4; k++) {
        memory.copy(changetype<usize>(parts[k]), changetype<usize>(this.keptState) + (<usize>(k * nb) << 3), <usize>nb << 3);
      }
      this.caseSaved = 0;
      this.caseTopo = topo;
      this.caseIterations = this.keptIterations;
      this.recordIntact(topo, this.keptCode, 0, 0, sec);
      return this.keptCode == STATUS_CONVERGED;
    }
    const ok = this.solveFromStart(topo, 0, 0, false, sec);
    const code = <i32>unchecked(this.results.records[REC_CODE]);
    this.keptCode = -1;
    if (!newton || code == STATUS_CANCELLED) return ok;
    if (this.keptInput.length != input.length) this.keptInput = new StaticArray<f64>(input.length);
    memory.copy(changetype<usize>(this.keptInput), changetype<usize>(input), <usize>input.length << 3);
    if (this.keptState.length != 4 * nb) this.keptState = new StaticArray<f64>(4 * nb);
    for (let k = 0; k < 4; k++) {
      memory.copy(changetype<usize>(this.keptState) + (<usize>(k * nb) << 3), changetype<usize>(parts[k]), <usize>nb << 3);
    }
    this.keptTopo = topo;
    this.keptHash = topo.yHash;
    this.keptCode = code;
    this.keptIterations = this.caseIterations;
    return ok;
  }

  /** The input is keptInput's, IN_METHOD aside. */
  sameInput(): bool {
    const a = this.input, b = this.keptInput, n = a.length;
    if (b.length != n) return false;
    for (let i = 0; i < n; i++) if (i != IN_METHOD && unchecked(a[i]) != unchecked(b[i])) return false;
    return true;
  }

  keepScenario(topo: Topology, ok: bool): void {
    const input = this.input, vmOff = this.vmOff, vaOff = this.vaOff;
    for (let i = 0; i < topo.nb; i++) {
      unchecked(this.scenVm[i] = ok ? topo.vm[i] : input[vmOff + i]);
      unchecked(this.scenVa[i] = ok ? topo.va[i] : input[vaOff + i]);
    }
  }

  /** Loads and generation of scenario slot sc (-1: the packed network's). */
  setScenario(sc: i32, sec: StudySections): void {
    this.scheduledFor = null;
    const input = this.input, s = this.s, genOff = this.genOff, ng = this.ng, nb = this.pd.length;
    const pdOff = this.busOff + BUS_PD * nb, qdOff = this.busOff + BUS_QD * nb;
    const scenOff = sec.scen, corrOff = sec.corr, sgenOff = sec.sgen;
    let scale = 1.0;
    if (sc >= 0) scale = unchecked(s[scenOff + SCEN_FIELDS * sc + SCEN_SCALE]);
    for (let i = 0; i < nb; i++) {
      unchecked(this.pd[i] = scale * input[pdOff + i]);
      unchecked(this.qd[i] = scale * input[qdOff + i]);
    }
    for (let g = 0; g < ng; g++) { unchecked(this.pg[g] = input[genOff + GEN_PG * ng + g]); unchecked(this.qg[g] = input[genOff + GEN_QG * ng + g]); }
    if (sc < 0) return;
    const e = scenOff + SCEN_FIELDS * sc;
    const c0 = <i32>unchecked(s[e + SCEN_CORR_START]), cn = <i32>unchecked(s[e + SCEN_NCORR]);
    for (let k = c0; k < c0 + cn; k++) {
      const q = corrOff + CORR_FIELDS * k;
      const b = <i32>unchecked(s[q + CORR_BUS]);
      unchecked(this.pd[b] += s[q + CORR_DP]);
      unchecked(this.qd[b] += s[q + CORR_DQ]);
    }
    const g0 = <i32>unchecked(s[e + SCEN_SGEN_START]), gn = <i32>unchecked(s[e + SCEN_NSGEN]);
    for (let k = g0; k < g0 + gn; k++) {
      const q = sgenOff + SGEN_FIELDS * k;
      unchecked(this.pg[<i32>s[q + SGEN_GEN]] = s[q + SGEN_PG]);
    }
  }

  /** Solves the intact network from the packed start point; r < 0: no record. Returns converged. */
  solveFromStart(topo: Topology, r: i32, mo: i32, warm: bool, sec: StudySections): bool {
    const input = this.input;
    const vmOff = this.vmOff, vaOff = this.vaOff;
    // from the packed start point, or (warm) from the previous scenario's solution kept in scenVm / scenVa
    const vm0 = warm ? this.scenVm : input, va0 = warm ? this.scenVa : input;
    const vmAt = warm ? 0 : vmOff, vaAt = warm ? 0 : vaOff;
    for (let i = 0; i < topo.nb; i++) {
      unchecked(topo.vm[i] = vm0[vmAt + i]); unchecked(topo.va[i] = va0[vaAt + i]);
      unchecked(this.types[i] = topo.type[i]);
    }
    if (warm && this.qlim) this.holdSetPoints(topo);
    this.caseSaved = 0;
    const st = this.solveLimited(topo, topo, this.maxIt, 0, 0);
    const solved = this.caseTopo!;
    if (r >= 0) this.recordIntact(solved, st, r, mo, sec);
    if (solved !== topo) for (let i = 0; i < topo.nb; i++) { unchecked(topo.vm[i] = solved.vm[i]); unchecked(topo.va[i] = solved.va[i]); }
    return st == STATUS_CONVERGED;
  }


  /** The record r (and monitored values at mo, when mo >= 0) of an intact case solved to `solved` with status st. */
  recordIntact(solved: Topology, st: i32, r: i32, mo: i32, sec: StudySections): void {
    const s = this.s, baseMVA = this.baseMVA;
    this.results.clearRecord(r);
    unchecked(this.results.records[r + REC_CODE] = <f64>st);
    unchecked(this.results.records[r + REC_ITER] = <f64>this.caseIterations);
    if (st == STATUS_CONVERGED) caseMetrics(solved, this.flows, this.brOut, s, sec, baseMVA, this.results, r);
    if (mo >= 0) monitored(solved, this.flows, this.brOut, s, sec, baseMVA, st == STATUS_CONVERGED, this.results.monitorValues, mo);
  }

  /** Outage case caseIndex of the chunk (its row in the cases section) into its record; returns its code. A scenario's
   *  case starts from the scenario's intact solution (scenVm / scenVa), another from the base's. */
  solveOutage(base: Topology, caseIndex: i32, sec: StudySections): i32 {
    const nb = base.nb, nl = base.nl;
    const input = this.input, s = this.s, genOff = this.genOff, ng = this.ng;
    const baseMVA = this.baseMVA, vgOff = sec.vg;
    const r = REC_FIELDS * (caseIndex + 1), mo = sec.monSize * (caseIndex + 1);
    const d = sec.cases + CASE_FIELDS * caseIndex;
    const fromScenario = <i32>unchecked(s[d + CASE_SCEN]) >= 0;
    const nBr = <i32>unchecked(s[d + CASE_NBR]), nGen = <i32>unchecked(s[d + CASE_NGEN]);
    const outOff = sec.outages + <i32>unchecked(s[d + CASE_OUT_START]);
    for (let k = 0; k < nBr; k++) unchecked(this.brOut[<i32>s[outOff + k]] = 1);
    for (let k = 0; k < nGen; k++) unchecked(this.genOut[<i32>s[outOff + nBr + k]] = 1);
    let code = STATUS_CONVERGED;

    // generators: pv -> pq when the last one goes, slack lost when the reference's last one goes
    memory.copy(ptr(this.types), ptr(base.type), <usize>nb << 2);
    for (let k = 0; k < nGen; k++) {
      const g = <i32>unchecked(s[outOff + nBr + k]);
      const bus = <i32>unchecked(input[genOff + g]);
      unchecked(this.gensAt[bus]--);
    }
    for (let k = 0; k < nGen; k++) {
      const bus = <i32>unchecked(input[genOff + <i32>s[outOff + nBr + k]]);
      if (unchecked(this.gensAt[bus]) > 0) continue;
      if (unchecked(base.type[bus]) == REF) code = CODE_SLACK_LOST;
      else if (unchecked(base.type[bus]) == PV) unchecked(this.types[bus] = 1);
    }

    // connectivity
    // (a single branch that is no bridge leaves every bus connected: no search; an estimate's single bridge splits the
    // network, which is all its screen asks (such a case is solved in AC): no search for what it cuts off either)
    const single = code == STATUS_CONVERGED && nBr == 1;
    if (single && this.estimateIt > 0 && !this.isolate && unchecked(this.bridge[<i32>s[outOff]]) != 0) code = CODE_ISLANDED;
    else if (code == STATUS_CONVERGED && nBr > 0 && !(nBr == 1 && unchecked(this.bridge[<i32>s[outOff]]) == 0)) {
      const n = components(nb, nl, base.f, base.t, this.brOut, this.parent);
      if (n > this.baseComponents) {
        code = CODE_ISLANDED;
        const cut = cutOff(nb, base.type, this.parent, this.mark);
        this.results.growIslands(this.results.islandCount + cut);
        let load = 0.0, gen = 0.0;
        for (let i = 0; i < nb; i++) {
          if (unchecked(this.mark[i]) == 0) continue;
          unchecked(this.results.islands[this.results.islandCount++] = <f64>i);
          load += unchecked(this.pd[i]);
        }
        for (let g = 0; g < ng; g++) {
          if (unchecked(this.genOut[g]) == 0 && unchecked(this.mark[<i32>input[genOff + g]]) != 0) gen += unchecked(this.pg[g]);
        }
        unchecked(this.results.records[r + REC_NISL] = <f64>cut);
        unchecked(this.results.records[r + REC_ISL_LOAD] = load);
        unchecked(this.results.records[r + REC_ISL_GEN] = gen);
        if (this.isolate) code = STATUS_CONVERGED; // solved below with the cut-off buses pinned
      }
    }

    let pinnedTopo: Topology | null = null;
    if (code == STATUS_CONVERGED) {
      const topo = this.dc ? base : this.topologyWithTypes(base); // DC: only the reference matters
      if (unchecked(this.results.records[r + REC_NISL]) > 0.0) {
        // de-energized buses: out of the equations on the same pattern (Topology.pinned)
        for (let i = 0; i < nb; i++) unchecked(topo.pinned[i] = this.mark[i]);
        topo.anyPinned = true;
        pinnedTopo = topo;
      }
      this.caseSaved = 0;
      for (let k = 0; k < nBr; k++) this.caseSaved = this.removeBranch(topo, <i32>s[outOff + k], this.caseSaved);
      const wVm = fromScenario ? this.scenVm : this.baseVm, wVa = fromScenario ? this.scenVa : this.baseVa;
      memory.copy(ptr(topo.vm), ptr(wVm), <usize>nb << 3);
      memory.copy(ptr(topo.va), ptr(wVa), <usize>nb << 3);
      if (this.qlim && !this.dc) this.holdSetPoints(topo);
      // a voltage-controlled bus that keeps generators: the set point of the last one listed (MATPOWER's V0(gbus) = Vg)
      for (let k = 0; k < nGen; k++) {
        const bus = <i32>unchecked(input[genOff + <i32>s[outOff + nBr + k]]);
        if (unchecked(this.gensAt[bus]) == 0 || unchecked(this.types[bus]) == 1) continue;
        for (let g = ng - 1; g >= 0; g--) {
          if (<i32>unchecked(input[genOff + g]) == bus && unchecked(this.genOut[g]) == 0) { unchecked(topo.vm[bus] = s[vgOff + g]); break; }
        }
      }
      const estimate = this.estimateIt > 0;
      this.caseFromBase = !fromScenario && !this.qlim;
      this.branchesOnly = nGen == 0 && !this.qlim;
      this.caseBranch = nBr == 1 && nGen == 0 && pinnedTopo === null ? <i32>unchecked(s[outOff]) : -1;
      code = this.solveLimited(base, topo, estimate ? this.estimateIt : this.maxIt, outOff, nBr);
      this.caseBranch = -1;
      this.caseFromBase = false;
      this.branchesOnly = false;
      const solved = this.caseTopo!;
      // an estimate reports the state its iterations reached
      const judged = code == STATUS_CONVERGED || (estimate && code == STATUS_MAXIT);
      if (pinnedTopo !== null) {
        // a de-energized bus answers v = 0, theta = 0: its branches carry nothing
        for (let i = 0; i < nb; i++) {
          if (unchecked(solved.pinned[i]) == 0) continue;
          unchecked(solved.vm[i] = 0.0); unchecked(solved.va[i] = 0.0);
          unchecked(solved.vr[i] = 0.0); unchecked(solved.vi[i] = 0.0);
        }
      }
      let sharpened = false, loadings: StaticArray<f64> | null = null;
      const screen = judged && estimate && this.sharpenIt > 1 && pinnedTopo === null;
      if (screen) loadings = this.prevLoad; // nearTrigger's: the first iterate's
      const near = screen ? this.nearTrigger(solved, r) : NEAR_UNRECORDED;
      // at its trigger after one iteration: kept (REC_EST_STEP Infinity) without the iterations that would rarely
      // clear it (1 of 229 such outages of case2383wp; bench/README.md "Screening against the base case")
      if (near == AT_TRIGGER) unchecked(this.results.records[r + REC_EST_STEP] = Infinity);
      else if (near == NEAR_MARGIN) {
        code = this.sharpen(solved, r);
        loadings = this.curLoad; // sharpen's: the state reached (sharpen swaps the two buffers)
        sharpened = code == STATUS_CONVERGED || code == STATUS_MAXIT;
        if (!sharpened) unchecked(this.results.records[r + REC_EST_STEP] = Infinity);
      }
      const judgedNow = judged && (code == STATUS_CONVERGED || code == STATUS_MAXIT);
      unchecked(this.results.records[r + REC_ITER] = <f64>this.caseIterations);
      if (judgedNow && near != NEAR_NONE) { // NEAR_NONE: nearTrigger wrote the record
        let listing: ScreenListing | null = null;
        if (screen) {
          // list only the branches that could keep the case: fewer records for the screen to read
          listing = this.listing;
          listing.s = s; listing.triggerOff = this.triggerOff; listing.change = this.sharpenChange;
          listing.from = sharpened ? this.prevLoad : this.baseLoad;
          listing.extra = this.sharpenPoints + (sharpened ? unchecked(this.results.records[r + REC_EST_STEP]) : 0.0);
        }
        caseMetrics(solved, this.flows, this.brOut, s, sec, baseMVA, this.results, r,
          sharpened ? this.prevLoad : null, this.sharpenChange, loadings, listing);
      }
      monitored(solved, this.flows, this.brOut, s, sec, baseMVA, judgedNow, this.results.monitorValues, mo);
      this.restoreYbus(solved, this.caseSaved);
      if (pinnedTopo !== null) {
        for (let i = 0; i < nb; i++) unchecked(pinnedTopo.pinned[i] = 0);
        pinnedTopo.anyPinned = false;
      }
    } else {
      monitored(base, this.flows, this.brOut, s, sec, baseMVA, false, this.results.monitorValues, mo);
    }
    unchecked(this.results.records[r + REC_CODE] = <f64>code);

    for (let k = 0; k < nBr; k++) unchecked(this.brOut[<i32>s[outOff + k]] = 0);
    for (let k = 0; k < nGen; k++) {
      const g = <i32>unchecked(s[outOff + nBr + k]);
      unchecked(this.genOut[g] = 0);
      unchecked(this.gensAt[<i32>input[genOff + g]]++);
    }
    return code;
  }
}

/** The largest |a[l] − b[l]| over the branches rated in both (NaN entries skipped). */
function maxChange(a: StaticArray<f64>, b: StaticArray<f64>): f64 {
  let m = 0.0;
  const ap = ptr(a), bp = ptr(b);
  for (let l = 0, n = a.length; l < n; l++) {
    const d = Math.abs(getf(ap, l) - getf(bp, l));
    if (d > m) m = d; // NaN compares false
  }
  return m;
}
