// State-estimation entry points of build/powerflow.wasm (layout: ./abi.ts):
//   ptr = seInputPtr(len)   reserve the f64 input buffer, write it at ptr
//   status = seSolve()      estimate (with bad-data removal as the input asks); writes the output buffer
//   seOutputPtr() / seOutputLength()
// Progress goes through env.progress(iteration, ‖Hᵀ W r‖∞) -> i32 (non-zero = stop), as a power flow's.
import { SeNetwork } from './network';
import { SeMeasurements } from './measurements';
import { Estimator } from './estimator';
import { GainMatrix } from './gain';
import { BadDataRun, estimateWithBadData } from './badData';
import {
  SE_ABI_VERSION, SE_BR_FIELDS, SE_BUS_FIELDS, SE_GEN_FIELDS, SE_IN_HEADER, SE_IN_MAXIT, SE_IN_NB, SE_IN_NG, SE_IN_NL, SE_IN_NM,
  SE_IN_OMEGA_BY_SOLVES, SE_IN_REF, SE_IN_RESIDUALS, SE_IN_THRESHOLD, SE_IN_TOL, SE_IN_VERSION, SE_OUT_ACTIVE, SE_OUT_BUS_FIELDS,
  SE_OUT_BUS_UNOBSERVABLE, SE_OUT_BUS_VA, SE_OUT_BUS_VM, SE_OUT_HEADER, SE_OUT_ITER, SE_OUT_J, SE_OUT_MEAS_ESTIMATE,
  SE_OUT_MEAS_FIELDS, SE_OUT_MEAS_NORMALIZED, SE_OUT_MEAS_OMEGA_RATIO, SE_OUT_MEAS_REMOVED_NR, SE_OUT_MEAS_REMOVED_PASS,
  SE_OUT_MEAS_RESIDUAL, SE_OUT_NORM_F, SE_OUT_PASSES, SE_OUT_RANK_DEFICIT, SE_OUT_STATUS, SE_OUT_TOTAL_ITER, SE_STATUS_BAD_INPUT,
  SE_STATUS_UNOBSERVABLE,
} from './abi';

let seInput = new StaticArray<f64>(0);
let seOutput = new StaticArray<f64>(0);
let seOutLen: i32 = 0;

export function seInputPtr(len: i32): usize {
  if (seInput.length < len) seInput = new StaticArray<f64>(len);
  return changetype<usize>(seInput);
}
export function seOutputPtr(): usize { return changetype<usize>(seOutput); }
export function seOutputLength(): i32 { return seOutLen; }

// The last estimate's network, measurement set and gain-matrix analysis, kept for the next estimate of the same
// network with the same measurement configuration (the usual case: the same meters read again). Only the readings
// differ then: the patterns, the AMD order and the symbolic factorisation are reused, as the OPF keeps its KKT
// analysis (assembly/opf/analysisCache.ts). `structure` is what decides: the network sections and the measurement
// kinds and elements, compared value by value.
let kept: Estimator | null = null;
let structure = new StaticArray<f64>(0);
let structureLen: i32 = 0;
let keptHits: i32 = 0;

/** Estimates since the instance started that reused the kept analysis. */
export function seKeptHits(): i32 { return keptHits; }

function sameStructure(inp: StaticArray<f64>, measOff: i32, nm: i32): bool {
  const len = measOff + 2 * nm;
  if (kept === null || len != structureLen) return false;
  for (let p = SE_IN_NB; p <= SE_IN_REF; p++) if (unchecked(structure[p]) != unchecked(inp[p])) return false;
  for (let p = SE_IN_HEADER; p < measOff + 2 * nm; p++) if (unchecked(structure[p]) != unchecked(inp[p])) return false;
  return true;
}

function keepStructure(inp: StaticArray<f64>, measOff: i32, nm: i32, e: Estimator): void {
  const len = measOff + 2 * nm; // measurement columns KIND and ELEMENT come first
  if (structure.length < len) structure = new StaticArray<f64>(len);
  for (let p = 0; p < len; p++) unchecked(structure[p] = inp[p]);
  structureLen = len;
  kept = e;
}

export function seSolve(): i32 {
  const inp = seInput;
  const nb = <i32>inp[SE_IN_NB], nl = <i32>inp[SE_IN_NL], ng = <i32>inp[SE_IN_NG], nm = <i32>inp[SE_IN_NM];
  seOutLen = SE_OUT_HEADER + SE_OUT_BUS_FIELDS * nb + SE_OUT_MEAS_FIELDS * nm;
  if (seOutput.length < seOutLen) seOutput = new StaticArray<f64>(seOutLen);
  const out = seOutput;
  for (let p = 0; p < seOutLen; p++) unchecked(out[p] = 0.0);
  const ref = <i32>inp[SE_IN_REF];
  if (<i32>inp[SE_IN_VERSION] != SE_ABI_VERSION || nb <= 1 || nl < 0 || ng < 0 || nm <= 0 || ref < 0 || ref >= nb) {
    unchecked(out[SE_OUT_STATUS] = <f64>SE_STATUS_BAD_INPUT);
    return SE_STATUS_BAD_INPUT;
  }
  const measOff = SE_IN_HEADER + SE_BUS_FIELDS * nb + SE_BR_FIELDS * nl + SE_GEN_FIELDS * ng;
  let e: Estimator;
  if (sameStructure(inp, measOff, nm)) {
    e = kept!;
    e.ms.readings(inp, measOff);
    keptHits++;
  } else {
    kept = null; // let the old one go before building the new
    const net = new SeNetwork(inp);
    e = new Estimator(net, new SeMeasurements(inp, measOff, nm));
    keepStructure(inp, measOff, nm, e);
  }
  const net = e.net, ms = e.ms;
  const nr = e.nr, ratio = e.ratio, y = e.y; // kept with the estimator: a repeated estimate allocates nothing large
  const run = new BadDataRun();
  e.omegaBySolves = inp[SE_IN_OMEGA_BY_SOLVES] != 0.0;
  e.omegaUsed = 0;
  lastGain = e.g;
  const status = estimateWithBadData(e, <i32>inp[SE_IN_MAXIT], inp[SE_IN_TOL], inp[SE_IN_THRESHOLD], inp[SE_IN_RESIDUALS] != 0.0,
    nr, ratio, y, run);
  unchecked(out[SE_OUT_STATUS] = <f64>status);
  lastOmega = e.omegaUsed;
  unchecked(out[SE_OUT_ITER] = <f64>e.iterations);
  unchecked(out[SE_OUT_J] = run.jDoSE);
  unchecked(out[SE_OUT_NORM_F] = e.normF);
  unchecked(out[SE_OUT_PASSES] = <f64>run.passes);
  unchecked(out[SE_OUT_ACTIVE] = <f64>ms.active());
  unchecked(out[SE_OUT_TOTAL_ITER] = <f64>run.totalIterations);
  unchecked(out[SE_OUT_RANK_DEFICIT] = <f64>e.deficit);
  const oBus = SE_OUT_HEADER, oMeas = oBus + SE_OUT_BUS_FIELDS * nb;
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + SE_OUT_BUS_VM * nb + i] = e.vm[i]);
    unchecked(out[oBus + SE_OUT_BUS_VA * nb + i] = e.va[i]);
    unchecked(out[oBus + SE_OUT_BUS_UNOBSERVABLE * nb + i] = status == SE_STATUS_UNOBSERVABLE ? <f64>e.busFlags[i] : 0.0);
  }
  // h(x) and r at the returned state (the residual analysis evaluated it there; without it, evaluate now)
  e.evaluate(false);
  for (let k = 0; k < nm; k++) {
    unchecked(out[oMeas + SE_OUT_MEAS_ESTIMATE * nm + k] = e.hz[k]);
    unchecked(out[oMeas + SE_OUT_MEAS_RESIDUAL * nm + k] = ms.z[k] - e.hz[k]);
    unchecked(out[oMeas + SE_OUT_MEAS_NORMALIZED * nm + k] = nr[k]);
    unchecked(out[oMeas + SE_OUT_MEAS_OMEGA_RATIO * nm + k] = ratio[k]);
    unchecked(out[oMeas + SE_OUT_MEAS_REMOVED_PASS * nm + k] = <f64>ms.removedPass[k]);
    unchecked(out[oMeas + SE_OUT_MEAS_REMOVED_NR * nm + k] = ms.removedNr[k]);
  }
  return status;
}

/** Diagnostics of the last estimate's gain matrix (bench and tests): [n, nnz(G), nnz(L), nnz(U), pivoting fallbacks,
 *  how Ω's diagonal was found (0 not at all, 1 G⁻¹'s sparse subset, 2 one solve per measurement)]. */
let lastGain: GainMatrix | null = null;
let lastOmega: i32 = 0;
export function seGainStats(k: i32): f64 {
  const g = lastGain;
  if (g === null) return -1.0;
  if (k == 5) return <f64>lastOmega;
  if (k == 0) return <f64>g.n;
  if (k == 1) return <f64>g.gp[g.n];
  if (k == 2) return <f64>g.lu.nnzL();
  if (k == 3) return <f64>g.lu.nnzU();
  return <f64>g.lu.fallbacks;
}
