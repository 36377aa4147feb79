// OPF entry points of build/powerflow.wasm (layout: ./abi.ts):
//   ptr = opfInputPtr(len)   reserve the f64 input buffer, write it at ptr
//   status = opfSolve()      solve; writes the output buffer
//   opfOutputPtr() / opfOutputLength()
// and one import, env.opfProgress(iteration, feascond, gradcond, compcond,
// objective) -> i32 (non-zero = stop). Memory may grow inside opfInputPtr()
// and opfSolve(): re-create views afterwards.
import { dcopf, buildDcModel, writeDcResults, DcModel } from './dcopf';
import { acopf } from './acopf';
import { MipsOptions } from './mips';
import { lastAnalysis } from './analysisCache';
import {
  OPF_ABI_VERSION, OPF_IN_VERSION, OPF_IN_METHOD, OPF_IN_NB, OPF_IN_NL, OPF_IN_NG, OPF_IN_FEASTOL, OPF_IN_GRADTOL,
  OPF_IN_COMPTOL, OPF_IN_COSTTOL, OPF_IN_MAXIT, OPF_OUT_HEADER, OPF_OUT_STATUS, OPF_BAD_INPUT, OPF_METHOD_DC,
  OPF_OUT_BUS_FIELDS, OPF_OUT_BR_FIELDS, OPF_OUT_GEN_FIELDS, OPF_OUT_ITER, OPF_OUT_F, OPF_IN_NXROWS,
  OPF_LP_NX, OPF_LP_NA, OPF_LP_NNZ, OPF_LP_CONSTANT, OPF_LP_HEADER,
} from './abi';

let opfInput = new StaticArray<f64>(0);
let opfOutput = new StaticArray<f64>(0);
let opfOutLen: i32 = 0;

export function opfInputPtr(len: i32): usize {
  if (opfInput.length < len) opfInput = new StaticArray<f64>(len);
  return changetype<usize>(opfInput);
}
export function opfOutputPtr(): usize { return changetype<usize>(opfOutput); }
export function opfOutputLength(): i32 { return opfOutLen; }

export function opfSolve(): i32 {
  const inp = opfInput;
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  opfOutLen = OPF_OUT_HEADER + OPF_OUT_BUS_FIELDS * nb + OPF_OUT_BR_FIELDS * nl + OPF_OUT_GEN_FIELDS * ng + <i32>inp[OPF_IN_NXROWS];
  if (opfOutput.length < opfOutLen) opfOutput = new StaticArray<f64>(opfOutLen);
  const out = opfOutput;
  if (<i32>inp[OPF_IN_VERSION] != OPF_ABI_VERSION || nb <= 0 || nl < 0 || ng <= 0) {
    unchecked(out[OPF_OUT_STATUS] = <f64>OPF_BAD_INPUT);
    return OPF_BAD_INPUT;
  }
  const o = new MipsOptions();
  o.feastol = inp[OPF_IN_FEASTOL];
  o.gradtol = inp[OPF_IN_GRADTOL];
  o.comptol = inp[OPF_IN_COMPTOL];
  o.costtol = inp[OPF_IN_COSTTOL];
  o.maxIt = <i32>inp[OPF_IN_MAXIT];
  if (<i32>inp[OPF_IN_METHOD] == OPF_METHOD_DC) return dcopf(inp, out, o);
  return acopf(inp, out, o);
}

// ---- DC-OPF with linear costs handed to an LP solver (src/opf/lp.ts: HiGHS). MIPS is MATPOWER's
// choice for a QP; for an LP MATPOWER itself uses GLPK, and MIPS can crawl on a degenerate one.
//   n = opfLpBuild()         the input's DC-OPF; n > 0: it is an LP, n values at opfLpDataPtr():
//                            [nx, nA, nnz, constant, 0, 0, 0, 0] c(nx) xmin(nx) xmax(nx) l(nA) u(nA)
//                            Ap(nA+1) Aj(nnz) Ax(nnz)  (A by rows; a row may repeat a column: add them)
//                            0: not an LP (solve with opfSolve); -1: bad input
//   ptr = opfLpSolutionPtr() write x(nx), then the multipliers of [I; A]'s lower sides (nx+nA) and
//                            upper sides (nx+nA), MATPOWER's mu_l / mu_u (non-negative)
//   opfLpFinish(status, iterations, objective)   the output buffer, as opfSolve's
let lpModel: DcModel | null = null;
let lpData = new StaticArray<f64>(0);
let lpSolution = new StaticArray<f64>(0);

export function opfLpBuild(): i32 {
  const inp = opfInput;
  lpModel = null;
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  if (<i32>inp[OPF_IN_VERSION] != OPF_ABI_VERSION || nb <= 0 || nl < 0 || ng <= 0) return -1;
  const model = buildDcModel(inp);
  if (model === null) return -1;
  const qp = model.qp, nx = qp.nx, nA = qp.nA, nnz = unchecked(qp.Ap[nA]);
  if (!qp.isLinear()) return 0;
  const len = OPF_LP_HEADER + 3 * nx + 2 * nA + nA + 1 + 2 * nnz;
  if (lpData.length < len) lpData = new StaticArray<f64>(len);
  const d = lpData;
  for (let k = 0; k < OPF_LP_HEADER; k++) unchecked(d[k] = 0.0);
  unchecked(d[OPF_LP_NX] = <f64>nx); unchecked(d[OPF_LP_NA] = <f64>nA); unchecked(d[OPF_LP_NNZ] = <f64>nnz);
  unchecked(d[OPF_LP_CONSTANT] = model.constant);
  let o = OPF_LP_HEADER;
  for (let j = 0; j < nx; j++) unchecked(d[o++] = qp.c[j]);
  for (let j = 0; j < nx; j++) unchecked(d[o++] = qp.xmin[j]);
  for (let j = 0; j < nx; j++) unchecked(d[o++] = qp.xmax[j]);
  for (let r = 0; r < nA; r++) unchecked(d[o++] = qp.l[r]);
  for (let r = 0; r < nA; r++) unchecked(d[o++] = qp.u[r]);
  for (let r = 0; r <= nA; r++) unchecked(d[o++] = <f64>qp.Ap[r]);
  for (let p = 0; p < nnz; p++) unchecked(d[o++] = <f64>qp.Aj[p]);
  for (let p = 0; p < nnz; p++) unchecked(d[o++] = qp.Ax[p]);
  const need = nx + 2 * (nx + nA);
  if (lpSolution.length < need) lpSolution = new StaticArray<f64>(need);
  lpModel = model;
  return len;
}
export function opfLpDataPtr(): usize { return changetype<usize>(lpData); }
export function opfLpSolutionPtr(): usize { return changetype<usize>(lpSolution); }

export function opfLpFinish(status: i32, iterations: i32, objective: f64): i32 {
  const inp = opfInput, model = lpModel;
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  opfOutLen = OPF_OUT_HEADER + OPF_OUT_BUS_FIELDS * nb + OPF_OUT_BR_FIELDS * nl + OPF_OUT_GEN_FIELDS * ng + <i32>inp[OPF_IN_NXROWS];
  if (opfOutput.length < opfOutLen) opfOutput = new StaticArray<f64>(opfOutLen);
  const out = opfOutput;
  for (let p = 0; p < OPF_OUT_HEADER; p++) unchecked(out[p] = 0.0);
  if (model === null) { unchecked(out[OPF_OUT_STATUS] = <f64>OPF_BAD_INPUT); return OPF_BAD_INPUT; }
  const nx = model.qp.nx, rows = nx + model.qp.nA;
  const x = new StaticArray<f64>(nx), muL = new StaticArray<f64>(rows), muU = new StaticArray<f64>(rows);
  const sol = lpSolution;
  for (let j = 0; j < nx; j++) unchecked(x[j] = sol[j]);
  for (let r = 0; r < rows; r++) { unchecked(muL[r] = sol[nx + r]); unchecked(muU[r] = sol[nx + rows + r]); }
  unchecked(out[OPF_OUT_STATUS] = <f64>status);
  unchecked(out[OPF_OUT_ITER] = <f64>iterations);
  unchecked(out[OPF_OUT_F] = objective);
  writeDcResults(inp, out, model, x, muL, muU);
  return status;
}

/** OPF solves that took the kept KKT analysis (./analysisCache.ts) since the instance started. */
export function opfKeptAnalysisHits(): i32 { return lastAnalysis.hits; }
/** Lets the kept KKT analysis go (with the topology cache: clearCache). */
export function opfClearKeptAnalysis(): void { lastAnalysis.clear(); }
