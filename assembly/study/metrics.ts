// What a study keeps of one solved case (numbers in, numbers out):
//  - branch flows Sf = Vf conj(Yff Vf + Yft Vt), St = Vt conj(Ytf Vf + Ytt Vt) of every
//    in-service branch not out in this case (pfsoln's formulas), loading =
//    max(|Sf|, |St|) / rate_a × 100 for rate_a > 0; the largest and every one above the limit;
//  - voltage extremes over the solved buses (first bus wins a tie, as MATPOWER's min / max)
//    and every bus with vm < vmin or vm > vmax (strict, as the reference);
//  - the monitored branches' flows and buses' voltages.
// Flows: branchFlow.ts (pfsoln's formulas), through a FlowModel. Violations go to the study's results (./results.ts).
import { Topology } from '../topology';
import { branchFlow, branchFlowAt, dcBranchFlow } from '../branchFlow';
import {
  REC_MINV, REC_MINV_BUS, REC_MAXV, REC_MAXV_BUS, REC_MAXLOAD, REC_MAXLOAD_BR, REC_NVIOL,
  VIOL_OVERLOAD, VIOL_LOW_V, VIOL_HIGH_V, MON_BR_FIELDS, MON_BR_LOADING, MON_BUS_FIELDS, MON_BUS_VM, MON_BUS_VA,
} from './abi';
import { StudyResults } from './results';
import { StudySections } from './sections';
import { geti, getf, ptr, setf } from '../sparse/raw';

/** How a study's branch flows are computed: AC from the solved voltages (input null), or DC from the angles
 *  and the reactances of the packed input's branch section at brOff. Holds the flow of the branch last asked. */
export class FlowModel {
  input: StaticArray<f64> | null = null;
  brOff: i32 = 0;
  flow: StaticArray<f64> = new StaticArray<f64>(4);

  of(topo: Topology, l: i32): void {
    const inp = this.input;
    if (inp !== null) dcBranchFlow(topo, inp, this.brOff, l, this.flow);
    else branchFlow(topo, l, this.flow);
  }
}

/** An estimate's listing (./loop.ts, src/studies/screening.ts): a branch is listed only when its estimate could keep the
 *  case, i.e. comes within its margin of its trigger, with 0.01 loading points to spare for the round-off between this
 *  base state and the one the screen judges against; the screen decides on the listed ones. */
export class ScreenListing {
  s: StaticArray<f64> = new StaticArray<f64>(0);
  triggerOff: i32 = 0;
  from: StaticArray<f64> = new StaticArray<f64>(0);  // loadings the margin's change is taken from (base, or the iterate before)
  change: f64 = 0.0;
  extra: f64 = 0.0;                                  // points of margin, plus the last step of an estimate that iterated on

  // @ts-ignore: decorator
  @inline couldKeep(l: i32, ld: f64): bool {
    const trig = getf(ptr(this.s), this.triggerOff + l), from = getf(ptr(this.from), l);
    return !(ld + this.change * Math.abs(ld - from) + this.extra + 0.01 < trig) || from != from;
  }
}

/** Loading (%) of branch l from the flow just computed into `flow`. */
// @ts-ignore: decorator
@inline
function loadingOf(flow: StaticArray<f64>, rate: f64, baseMVA: f64): f64 {
  const sf = unchecked(flow[0]) * unchecked(flow[0]) + unchecked(flow[1]) * unchecked(flow[1]);
  const st = unchecked(flow[2]) * unchecked(flow[2]) + unchecked(flow[3]) * unchecked(flow[3]);
  return Math.sqrt(sf > st ? sf : st) * baseMVA / rate * 100.0;
}

/** Loading (%) of every rated branch not out into out[l]; NaN for the others. */
export function branchLoadings(topo: Topology, flows: FlowModel, brOut: StaticArray<u8>, s: StaticArray<f64>, rateOff: i32, baseMVA: f64,
  out: StaticArray<f64>): void {
  if (flows.input === null) { acLoadings(topo, flows.flow, brOut, s, rateOff, baseMVA, out); return; }
  const nl = topo.nl, flow = flows.flow;
  for (let l = 0; l < nl; l++) {
    const rate = unchecked(s[rateOff + l]);
    if (rate <= 0.0 || unchecked(brOut[l]) != 0) { unchecked(out[l] = NaN); continue; }
    flows.of(topo, l);
    unchecked(out[l] = loadingOf(flow, rate, baseMVA));
  }
}

/** branchLoadings from the AC voltages (every estimate iterate): branchFlow's and loadingOf's arithmetic, with the
 *  addresses read once (an estimate computes this for every branch once or more per outage). */
function acLoadings(topo: Topology, flow: StaticArray<f64>, brOut: StaticArray<u8>, s: StaticArray<f64>, rateOff: i32, baseMVA: f64,
  out: StaticArray<f64>): void {
  const nl = topo.nl;
  const fb = ptr(topo.f), tb = ptr(topo.t), vr = ptr(topo.vr), vi = ptr(topo.vi), brY = ptr(topo.brY);
  const sp = ptr(s), op = ptr(out), bo = ptr(brOut), fl = ptr(flow);
  for (let l = 0; l < nl; l++) {
    const rate = getf(sp, rateOff + l);
    if (rate <= 0.0 || load<u8>(bo + <usize>l) != 0) { setf(op, l, NaN); continue; }
    branchFlowAt(fb, tb, vr, vi, brY, l, fl);
    const sf = getf(fl, 0) * getf(fl, 0) + getf(fl, 1) * getf(fl, 1);
    const st = getf(fl, 2) * getf(fl, 2) + getf(fl, 3) * getf(fl, 3);
    setf(op, l, Math.sqrt(sf > st ? sf : st) * baseMVA / rate * 100.0);
  }
}

/** Fills the extremes / loading fields of the record at rec[r ..] and appends the violations. With `previous`
 *  (an estimate that iterated on, ./loop.ts): a branch is listed when its loading plus `change` times its last
 *  step passes the limit, with the loading of the iterate before as the violation's limit field. `loadings`: the
 *  state's branch loadings already computed (branchLoadings), not computed again. */
export function caseMetrics(topo: Topology, flows: FlowModel, brOut: StaticArray<u8>, s: StaticArray<f64>, sec: StudySections,
  baseMVA: f64, res: StudyResults, r: i32, previous: StaticArray<f64> | null = null, change: f64 = 0.0,
  loadings: StaticArray<f64> | null = null, screen: ScreenListing | null = null): void {
  const rateOff = sec.rate, vminOff = sec.vmin, vmaxOff = sec.vmax, limit = sec.limit;
  const rec = res.records;
  const nb = topo.nb, nl = topo.nl, vm = topo.vm;
  // de-energized buses (Topology.pinned) and the branches that touch them are left out, as a power
  // flow with islanding isolate reports them
  const pinned = ptr(topo.pinned), anyPinned = topo.anyPinned;
  const first = res.violationCount;
  let maxLoad = NaN, maxBr = -1;
  // raw element access (sparse/raw.ts): every branch of every case
  const sp = ptr(s), out = ptr(brOut), fb = ptr(topo.f), tb = ptr(topo.t), flow = ptr(flows.flow);
  const ac = flows.input === null, vr = ptr(topo.vr), vi = ptr(topo.vi), brY = ptr(topo.brY);
  for (let l = 0; l < nl; l++) {
    const rate = getf(sp, rateOff + l);
    if (rate <= 0.0 || load<u8>(out + <usize>l) != 0) continue;
    if (anyPinned && (load<u8>(pinned + <usize>geti(fb, l)) != 0 || load<u8>(pinned + <usize>geti(tb, l)) != 0)) continue;
    let ld: f64;
    if (loadings !== null) ld = getf(ptr(loadings), l);
    else {
      if (ac) branchFlowAt(fb, tb, vr, vi, brY, l, flow);
      else flows.of(topo, l);
      const sf = getf(flow, 0) * getf(flow, 0) + getf(flow, 1) * getf(flow, 1);
      const st = getf(flow, 2) * getf(flow, 2) + getf(flow, 3) * getf(flow, 3);
      ld = Math.sqrt(sf > st ? sf : st) * baseMVA / rate * 100.0;
    }
    if (maxBr < 0 || ld > maxLoad) { maxLoad = ld; maxBr = l; }
    if (screen !== null) {
      // by the margin alone: a branch whose loading fell far below the limit can come within it by its change
      if (screen.couldKeep(l, ld)) res.pushViolation(VIOL_OVERLOAD, l, ld, previous !== null ? unchecked(previous[l]) : limit);
    } else if (previous !== null) {
      const before = unchecked(previous[l]);
      if (ld + change * Math.abs(ld - before) > limit || before != before) res.pushViolation(VIOL_OVERLOAD, l, ld, before);
    } else if (ld > limit) res.pushViolation(VIOL_OVERLOAD, l, ld, limit);
  }
  let minV = Infinity, maxV = -Infinity, minB = -1, maxB = -1;
  const vmp = ptr(vm);
  // an estimate's listing is read for its branches only (src/studies/screening.ts): no voltage extremes or violations
  // (some 30 a case on case2383wp would be written, copied and decoded for nothing); its rows report none
  for (let i = 0; i < (screen !== null ? 0 : nb); i++) {
    if (anyPinned && load<u8>(pinned + <usize>i) != 0) continue;
    const v = getf(vmp, i);
    if (v < minV) { minV = v; minB = i; }
    if (v > maxV) { maxV = v; maxB = i; }
    const lo = getf(sp, vminOff + i), hi = getf(sp, vmaxOff + i);
    if (v < lo) res.pushViolation(VIOL_LOW_V, i, v, lo);
    else if (v > hi) res.pushViolation(VIOL_HIGH_V, i, v, hi);
  }
  if (screen !== null) { minV = NaN; maxV = NaN; }
  unchecked(rec[r + REC_MINV] = minV);
  unchecked(rec[r + REC_MINV_BUS] = <f64>minB);
  unchecked(rec[r + REC_MAXV] = maxV);
  unchecked(rec[r + REC_MAXV_BUS] = <f64>maxB);
  unchecked(rec[r + REC_MAXLOAD] = maxLoad);
  unchecked(rec[r + REC_MAXLOAD_BR] = <f64>maxBr);
  unchecked(rec[r + REC_NVIOL] = <f64>(res.violationCount - first));
}

/** The monitored values of a solved case into mon[o ..] (branches ×5, buses ×2); NaN when not converged. */
export function monitored(topo: Topology, flows: FlowModel, brOut: StaticArray<u8>, s: StaticArray<f64>, sec: StudySections,
  baseMVA: f64, converged: bool, mon: StaticArray<f64>, o: i32): void {
  const rateOff = sec.rate, monBrOff = sec.monBr, nMonBr = sec.nMonBr, monBusOff = sec.monBus, nMonBus = sec.nMonBus;
  for (let q = 0; q < nMonBr; q++) {
    const l = <i32>unchecked(s[monBrOff + q]);
    const p = o + MON_BR_FIELDS * q;
    if (!converged) { for (let k = 0; k < MON_BR_FIELDS; k++) unchecked(mon[p + k] = NaN); continue; }
    if (l < 0 || unchecked(brOut[l]) != 0) { for (let k = 0; k < MON_BR_FIELDS; k++) unchecked(mon[p + k] = 0.0); continue; }
    flows.of(topo, l);
    const flow = flows.flow;
    // MON_BR_PF .. MON_BR_QT are the flow model's pf, qf, pt, qt
    for (let k = 0; k < 4; k++) unchecked(mon[p + k] = flow[k] * baseMVA);
    const rate = unchecked(s[rateOff + l]);
    unchecked(mon[p + MON_BR_LOADING] = rate > 0.0 ? loadingOf(flow, rate, baseMVA) : 0.0);
  }
  const b0 = o + MON_BR_FIELDS * nMonBr;
  for (let q = 0; q < nMonBus; q++) {
    const i = <i32>unchecked(s[monBusOff + q]);
    const p = b0 + MON_BUS_FIELDS * q;
    if (!converged || i < 0) { unchecked(mon[p + MON_BUS_VM] = NaN); unchecked(mon[p + MON_BUS_VA] = NaN); continue; }
    unchecked(mon[p + MON_BUS_VM] = topo.vm[i]);
    unchecked(mon[p + MON_BUS_VA] = topo.va[i]);
  }
}
