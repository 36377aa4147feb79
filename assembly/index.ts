// gridops power-flow core (build/powerflow.wasm). Numbers in, numbers out.
//
// JavaScript protocol (see abi.ts for the buffer layouts):
//   ptr = inputPtr(len)           reserve the f64 input buffer, write it at ptr
//   status = solve()              solve; also writes the output buffer
//   outputPtr() / outputLength()  where to read the f64 output
//   analysisCount()               symbolic LU analyses done so far (cache check)
//   pivotingCount()               pivoting factorisations of the Newton fallback so far (tests)
//   cacheSize() / clearCache()
//   sensitivityInputPtr(len) / sensitivitySolve(kind, count) / sensitivityOutputPtr()   PTDF rows, PTDF
//                                 columns or outage flow shifts of the DC model (sensitivity.ts), in chunks
//   studyInputPtr(len) / studySolve()   a study chunk (study/loop.ts, layouts in study/abi.ts) on the
//                                 network in the input buffer; results at studyRecordsPtr(),
//                                 studyViolationsPtr() / Count(), studyIslandsPtr() / Count(), studyMonitorPtr();
//                                 studySections(nb, nl, ng): the sections of the header in the study input (a test's)
// and one import, env.progress(iteration, mismatch) -> i32 (non-zero = stop); a study also
// calls it with iteration -1 and the number of cases done after every case.
// Memory may grow inside inputPtr() and solve(): re-create views afterwards.
//
// Topologies (bus count + in-service branch ends + bus types) are cached, most
// recently used first, with their Ybus / Jacobian / B patterns and LU analyses;
// Ybus values and the numeric factors of B', B'', Bdc are also reused while the
// branch and shunt parameters hash the same.
import { opfClearKeptAnalysis } from './opf/entry';
import { Topology } from './topology';
import { analysisTotal, pivotingTotal } from './analysis';
import { makeYbus } from './ybus';
import { newtonpf } from './newtonpf';
import { SolveResult } from './solveResult';
import { fdpf } from './fdpf';
import { dcpf, dcSoln, dcFactorised } from './dcpf';
import { pfsoln } from './pfsoln';
import { losses, Losses } from './losses';
import { StudyWorkspace } from './study/loop';
import { StudySections } from './study/sections';
import { DcSensitivities } from './sensitivity';
import {
  ABI_VERSION, IN_VERSION, IN_METHOD, IN_TOL, IN_MAXIT, IN_NB, IN_NL, IN_NG, IN_BASEMVA, IN_HEADER,
  BUS_FIELDS, BR_FIELDS, GEN_FIELDS, OUT_STATUS, OUT_ITER, OUT_MISMATCH, OUT_ANALYSES, OUT_LOSS_P, OUT_LOSS_Q,
  OUT_HEADER, METHOD_NR, METHOD_FDXB, METHOD_DC, STATUS_BAD_INPUT, STATUS_CANCELLED, STATUS_SINGULAR,
} from './abi';
import {
  BR_R, BR_T, BUS_GS, BUS_ISLAND, BUS_PD, BUS_QD, BUS_VA0, BUS_VM0, GEN_PG, GEN_QG, OUT_BR_FIELDS, OUT_BUS_FIELDS,
  OUT_BUS_VA, OUT_GEN_FIELDS,
} from './abi';

/** At most this many topologies, and at most this many buses in all of them
 *  (the LU factors of a 10,000-bus network take tens of MB; wasm memory never shrinks). */
const MAX_CACHED: i32 = 8;
const MAX_CACHED_BUSES: i32 = 30000;

let input = new StaticArray<f64>(0);
let output = new StaticArray<f64>(0);
let outLen: i32 = 0;
let cache = new Array<Topology>();
let clock: i64 = 0;
// what the last solve reports beside its status (no allocation per solve)
const solveResult = new SolveResult();
const totalLosses = new Losses();

export function inputPtr(len: i32): usize {
  if (input.length < len) input = new StaticArray<f64>(len);
  return changetype<usize>(input);
}
export function outputPtr(): usize { return changetype<usize>(output); }
export function outputLength(): i32 { return outLen; }
export function analysisCount(): i32 { return analysisTotal(); }
export function pivotingCount(): i32 { return pivotingTotal(); }
export function cacheSize(): i32 { return cache.length; }
export function clearCache(): void { cache = new Array<Topology>(); opfClearKeptAnalysis(); }
export function abiVersion(): i32 { return ABI_VERSION; }

function topologyFor(nb: i32, nl: i32, typeOff: i32, fOff: i32, tOff: i32): Topology {
  clock++;
  for (let k = 0; k < cache.length; k++) {
    const c = unchecked(cache[k]);
    if (c.matches(nb, nl, input, typeOff, fOff, tOff)) { c.lastUse = clock; return c; }
  }
  const f = new StaticArray<i32>(nl), t = new StaticArray<i32>(nl), type = new StaticArray<i32>(nb);
  for (let l = 0; l < nl; l++) { unchecked(f[l] = <i32>input[fOff + l]); unchecked(t[l] = <i32>input[tOff + l]); }
  for (let i = 0; i < nb; i++) unchecked(type[i] = <i32>input[typeOff + i]);
  // evict least recently used entries to make room
  let evicted = false;
  for (;;) {
    let buses = nb;
    for (let k = 0; k < cache.length; k++) buses += unchecked(cache[k]).nb;
    if (cache.length == 0 || (cache.length < MAX_CACHED && buses <= MAX_CACHED_BUSES)) break;
    let old = 0;
    for (let k = 1; k < cache.length; k++) if (unchecked(cache[k]).lastUse < unchecked(cache[old]).lastUse) old = k;
    cache.splice(old, 1);
    evicted = true;
  }
  if (evicted) __collect(); // free the evicted factors before allocating the new ones
  const topo = new Topology(nb, nl, f, t, type);
  topo.lastUse = clock;
  cache.push(topo);
  return topo;
}

/** FNV-1a over the bit patterns of the branch parameters and bus shunts. */
function parameterHash(brOff: i32, nl: i32, busOff: i32, nb: i32, baseMVA: f64): u64 {
  let h: u64 = 0xcbf29ce484222325;
  const prime: u64 = 0x100000001b3;
  for (let p = brOff + BR_R * nl; p < brOff + BR_FIELDS * nl; p++) { h ^= reinterpret<u64>(unchecked(input[p])); h *= prime; }
  for (let p = busOff + BUS_GS * nb; p < busOff + BUS_ISLAND * nb; p++) { h ^= reinterpret<u64>(unchecked(input[p])); h *= prime; }
  h ^= reinterpret<u64>(baseMVA); h *= prime;
  return h;
}

/** The cached topology of the network in `input`, its Ybus values made for its parameters. */
function preparedTopology(nb: i32, nl: i32, busOff: i32, brOff: i32, baseMVA: f64): Topology {
  const topo = topologyFor(nb, nl, busOff, brOff, brOff + BR_T * nl);
  const hash = parameterHash(brOff, nl, busOff, nb, baseMVA);
  if (!(topo.yOk && topo.yHash == hash)) { // Ybus values depend only on the parameters
    makeYbus(topo, input, busOff, brOff, baseMVA);
    topo.yOk = true;
    topo.yHash = hash;
  }
  return topo;
}

// ---- studies (study/loop.ts; buffer layouts in study/abi.ts)
let studyIn = new StaticArray<f64>(0);
const study = new StudyWorkspace();
const sectionsProbe = new StudySections();
export function studyInputPtr(len: i32): usize {
  if (studyIn.length < len) studyIn = new StaticArray<f64>(len);
  return changetype<usize>(studyIn);
}
/** Runs the study in the study buffer on the network in the input buffer (Newton-Raphson,
 *  fast-decoupled or DC).
 *  Returns the number of cases done, or -1 for a bad input buffer. */
export function studySolve(): i32 {
  const nb = <i32>input[IN_NB], nl = <i32>input[IN_NL], ng = <i32>input[IN_NG];
  if (<i32>input[IN_VERSION] != ABI_VERSION || nb <= 0 || nl < 0 || ng < 0) return -1;
  const busOff = IN_HEADER, brOff = busOff + BUS_FIELDS * nb, genOff = brOff + BR_FIELDS * nl;
  const baseMVA = input[IN_BASEMVA];
  const topo = preparedTopology(nb, nl, busOff, brOff, baseMVA);
  const method = <i32>input[IN_METHOD];
  if (method != METHOD_NR && method != METHOD_FDXB && method != METHOD_DC) return -1;
  return study.run(topo, input, studyIn, busOff, brOff, genOff, ng, baseMVA, input[IN_TOL], <i32>input[IN_MAXIT], method);
}
/** The sections of the study buffer whose header is in the study input, on a network of nb buses, nl branches and ng
 *  generators (study/sections.ts): SEC_COUNT + 1 i32 offsets, the buffer's length last (test/abi.test.ts checks
 *  src/studies/abi.ts studySections against it). */
export function studySections(nb: i32, nl: i32, ng: i32): usize {
  sectionsProbe.read(studyIn, nb, nl, ng);
  return changetype<usize>(sectionsProbe.start);
}
export function studyRecordsPtr(): usize { return changetype<usize>(study.results.records); }
export function studyViolationsPtr(): usize { return changetype<usize>(study.results.violations); }
export function studyViolationCount(): i32 { return study.results.violationCount; }
export function studyIslandsPtr(): usize { return changetype<usize>(study.results.islands); }
export function studyIslandCount(): i32 { return study.results.islandCount; }
export function studyMonitorPtr(): usize { return changetype<usize>(study.results.monitorValues); }

// ---- DC sensitivities (sensitivity.ts): PTDF rows and outage flow shifts of the network in the input buffer
let sensIn = new StaticArray<f64>(0);
const sensitivities = new DcSensitivities();
export function sensitivityInputPtr(len: i32): usize {
  if (sensIn.length < len) sensIn = new StaticArray<f64>(len);
  return changetype<usize>(sensIn);
}
/** Values one sensitivity call may compute (32 MB): the caller asks in chunks (src/sensitivities/compute.ts), so the
 *  instance's memory stays small whatever the request. */
const MAX_SENSITIVITY_VALUES: i64 = 1 << 22;

/** kind 0: PTDF rows of the count internal branches in the sensitivity buffer (count × nb values);
 *  kind 1: flow shifts of their outages (count × nl); kind 2: PTDF columns of the count internal buses
 *  (count × nl). Returns the number of values, -1 for a bad input buffer, -2 when the reduced Bbus is
 *  singular, -3 when the call would compute more than MAX_SENSITIVITY_VALUES. */
export function sensitivitySolve(kind: i32, count: i32): i32 {
  const nb = <i32>input[IN_NB], nl = <i32>input[IN_NL];
  if (<i32>input[IN_VERSION] != ABI_VERSION || nb <= 0 || nl < 0 || count < 0 || sensIn.length < count || kind < 0 || kind > 2) return -1;
  const size = kind == 0 ? nb : nl;
  if (<i64>count * <i64>size > MAX_SENSITIVITY_VALUES) return -3;
  const busOff = IN_HEADER, brOff = busOff + BUS_FIELDS * nb;
  const bound = kind == 2 ? nb : nl;
  for (let k = 0; k < count; k++) {
    const l = <i32>unchecked(sensIn[k]);
    if (l < 0 || l >= bound) return -1;
  }
  const topo = preparedTopology(nb, nl, busOff, brOff, input[IN_BASEMVA]);
  if (!dcFactorised(topo, input, brOff, topo.yHash)) return -2;
  if (kind == 0) sensitivities.ptdfRows(topo, input, brOff, sensIn, count);
  else if (kind == 1) sensitivities.flowShifts(topo, input, brOff, sensIn, count);
  else sensitivities.ptdfColumns(topo, input, brOff, sensIn, count);
  return count * size;
}
export function sensitivityOutputPtr(): usize { return changetype<usize>(sensitivities.out); }

export function solve(): i32 {
  const nb = <i32>input[IN_NB], nl = <i32>input[IN_NL], ng = <i32>input[IN_NG];
  const method = <i32>input[IN_METHOD];
  const tol = input[IN_TOL];
  const maxIt = <i32>input[IN_MAXIT];
  const baseMVA = input[IN_BASEMVA];
  const busOff = IN_HEADER, brOff = busOff + BUS_FIELDS * nb, genOff = brOff + BR_FIELDS * nl;

  outLen = OUT_HEADER + OUT_BUS_FIELDS * nb + OUT_BR_FIELDS * nl + OUT_GEN_FIELDS * ng;
  if (output.length < outLen) output = new StaticArray<f64>(outLen);
  const out = output;
  for (let p = 0; p < OUT_HEADER; p++) unchecked(out[p] = 0.0);
  if (<i32>input[IN_VERSION] != ABI_VERSION || nb <= 0 || nl < 0 || ng < 0) {
    unchecked(out[OUT_STATUS] = <f64>STATUS_BAD_INPUT);
    return STATUS_BAD_INPUT;
  }
  const oBus = OUT_HEADER, oBr = oBus + OUT_BUS_FIELDS * nb, oGen = oBr + OUT_BR_FIELDS * nl;

  const topo = preparedTopology(nb, nl, busOff, brOff, baseMVA);
  const hash = topo.yHash;

  // start point and scheduled injections Sbus = (Cg Sg - Sd) / baseMVA
  const vm = topo.vm, va = topo.va, pSch = topo.pSch, qSch = topo.qSch;
  for (let i = 0; i < nb; i++) {
    unchecked(vm[i] = input[busOff + BUS_VM0 * nb + i]);
    unchecked(va[i] = input[busOff + BUS_VA0 * nb + i]);
    unchecked(pSch[i] = 0.0);
    unchecked(qSch[i] = 0.0);
  }
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[genOff + g]);
    unchecked(pSch[bus] += input[genOff + GEN_PG * ng + g]);
    unchecked(qSch[bus] += input[genOff + GEN_QG * ng + g]);
  }
  const pdOff = busOff + BUS_PD * nb, qdOff = busOff + BUS_QD * nb;
  for (let i = 0; i < nb; i++) {
    unchecked(pSch[i] = (pSch[i] - input[pdOff + i]) / baseMVA);
    unchecked(qSch[i] = (qSch[i] - input[qdOff + i]) / baseMVA);
  }

  let status: i32;
  let iters = 0;
  let mismatch = 0.0;
  if (method == METHOD_DC) {
    status = dcpf(topo, input, busOff, brOff, genOff, ng, baseMVA, hash);
    iters = 1;
    if (status != STATUS_SINGULAR && status != STATUS_CANCELLED) {
      dcSoln(topo, input, busOff, brOff, genOff, ng, baseMVA, out, oBus, oBr, oGen);
    }
    unchecked(out[OUT_LOSS_P] = 0.0);
    unchecked(out[OUT_LOSS_Q] = 0.0);
  } else {
    if (method == METHOD_FDXB) {
      status = fdpf(topo, input, busOff, brOff, baseMVA, hash, tol, maxIt, solveResult);
      iters = solveResult.iterations;
      mismatch = solveResult.mismatch;
    } else if (method == METHOD_NR) {
      status = newtonpf(topo, tol, maxIt, solveResult);
      iters = solveResult.iterations;
      mismatch = solveResult.mismatch;
    } else {
      unchecked(out[OUT_STATUS] = <f64>STATUS_BAD_INPUT);
      return STATUS_BAD_INPUT;
    }
    if (status != STATUS_CANCELLED) {
      // vr/vi and S = V conj(Ybus V) are those of the last mismatch evaluation
      pfsoln(topo, input, busOff, genOff, ng, baseMVA, out, oBus, oBr, oGen);
      losses(topo, input, brOff, baseMVA, totalLosses);
      unchecked(out[OUT_LOSS_P] = totalLosses.p);
      unchecked(out[OUT_LOSS_Q] = totalLosses.q);
    }
  }
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + i] = vm[i]);
    unchecked(out[oBus + OUT_BUS_VA * nb + i] = va[i]);
  }
  unchecked(out[OUT_STATUS] = <f64>status);
  unchecked(out[OUT_ITER] = <f64>iters);
  unchecked(out[OUT_MISMATCH] = mismatch);
  unchecked(out[OUT_ANALYSES] = <f64>analysisTotal());
  return status;
}
export {
  opfInputPtr, opfOutputPtr, opfOutputLength, opfSolve, opfLpBuild, opfLpDataPtr, opfLpSolutionPtr, opfLpFinish, opfKeptAnalysisHits,
} from './opf/entry';
export { seInputPtr, seOutputPtr, seOutputLength, seSolve, seGainStats, seKeptHits } from './se/entry';
