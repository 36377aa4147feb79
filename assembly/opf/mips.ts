// MIPS, MATPOWER's primal-dual interior-point method (Wang, Murillo-Sánchez,
// Zimmerman, Thomas 2007; MATPOWER mips.m): a separable quadratic cost and
// linear constraints (./qp.ts, as qps_mips poses a QP) plus, optionally,
// nonlinear constraints with their Jacobians and Hessians (./nonlinear.ts:
// the AC power balance and flow limits). Same constraint split, start point,
// step rule (ξ = 0.99995, σ = 0.1, z0 = 1, no step control), cost scaling
// (cost_mult), convergence tests and multiplier clean-up as mips.m, so the
// answers are MATPOWER's.
//   AA = [I; A], ll = [xmin; l], uu = [xmax; u];
//   g = [g_nonlinear; Ae x − be],  h = [h_nonlinear; Ai x − bi]
//   linear equalities |uu−ll| ≤ eps;  inequalities (order as mips.m):
//   uu only (ilt), ll only (igt), both: upper rows then lower rows (ibx).
// All work arrays are allocated in setup; the iteration loop allocates nothing.
import { QP } from './qp';
import { KKT } from './kkt';
import { NonlinearConstraints } from './nonlinear';
import { geti, getf, ptr, setf } from '../sparse/raw';

// @ts-ignore: decorator
@external("env", "opfProgress")
declare function opfProgress(iteration: i32, feascond: f64, gradcond: f64, compcond: f64, objective: f64): i32;

export const MIPS_CONVERGED: i32 = 0;
export const MIPS_MAXIT: i32 = 1;
export const MIPS_FAILED: i32 = 2;     // numerically failed (MATPOWER eflag -1)
export const MIPS_CANCELLED: i32 = 4;

const EPS: f64 = 2.220446049250313e-16;
const XI: f64 = 0.99995;
const SIGMA: f64 = 0.1;
const Z0: f64 = 1.0;
const ALPHA_MIN: f64 = 1e-8;
const MU_THRESHOLD: f64 = 1e-5;
const MAX_STEPSIZE: f64 = 1e10;

export class MipsOptions {
  feastol: f64 = 5e-6;
  gradtol: f64 = 1e-6;
  comptol: f64 = 1e-6;
  costtol: f64 = 1e-6;
  maxIt: i32 = 150;
  /** Mehrotra's predictor–corrector in place of MIPS's fixed centring (σ = 0.1): for problems MATPOWER
   *  does not give to MIPS (LPs go to GLPK there), so no iteration count of MATPOWER's is at stake. */
  predictorCorrector: bool = false;
}

export class Mips {
  qp: QP;
  nx: i32;
  neq: i32 = 0;
  niq: i32 = 0;
  // equality rows: CSR over x, right-hand side; src = row of AA (j < nx: bound of x_j)
  eqP: StaticArray<i32> = new StaticArray<i32>(0); eqJ: StaticArray<i32> = new StaticArray<i32>(0);
  eqV: StaticArray<f64> = new StaticArray<f64>(0); eqB: StaticArray<f64> = new StaticArray<f64>(0);
  eqSrc: StaticArray<i32> = new StaticArray<i32>(0);
  // inequality rows h = Ai x − bi ≤ 0, sign applied; kind: 0 ilt, 1 igt, 2 ibx upper, 3 ibx lower
  iqP: StaticArray<i32> = new StaticArray<i32>(0); iqJ: StaticArray<i32> = new StaticArray<i32>(0);
  iqV: StaticArray<f64> = new StaticArray<f64>(0); iqB: StaticArray<f64> = new StaticArray<f64>(0);
  iqSrc: StaticArray<i32> = new StaticArray<i32>(0);
  kkt: KKT | null = null;
  x: StaticArray<f64> = new StaticArray<f64>(0); dx: StaticArray<f64> = new StaticArray<f64>(0);
  z: StaticArray<f64> = new StaticArray<f64>(0); dz: StaticArray<f64> = new StaticArray<f64>(0);
  mu: StaticArray<f64> = new StaticArray<f64>(0); dmu: StaticArray<f64> = new StaticArray<f64>(0);
  h: StaticArray<f64> = new StaticArray<f64>(0);
  lam: StaticArray<f64> = new StaticArray<f64>(0); g: StaticArray<f64> = new StaticArray<f64>(0);
  Lx: StaticArray<f64> = new StaticArray<f64>(0); rhs: StaticArray<f64> = new StaticArray<f64>(0);
  /** predictor–corrector only: the affine right-hand side, and each complementarity row's target */
  rhsAffine: StaticArray<f64> = new StaticArray<f64>(0); target: StaticArray<f64> = new StaticArray<f64>(0);
  /** inequalitySteps' results: the primal and dual step lengths */
  private stepP: f64 = 1.0; private stepD: f64 = 1.0;
  /** results: f (QP objective), iterations, conditions, multipliers of AA's rows (MATPOWER mu_l / mu_u). */
  f: f64 = 0.0;
  iterations: i32 = 0;
  feascond: f64 = 0.0; gradcond: f64 = 0.0; compcond: f64 = 0.0; costcond: f64 = 0.0;
  muL: StaticArray<f64> = new StaticArray<f64>(0); muU: StaticArray<f64> = new StaticArray<f64>(0);

  /** the nonlinear constraints (rows 0..neqNonlinear of g, 0..niqNonlinear of h), or none */
  nln: NonlinearConstraints;
  neqNonlinear: i32;
  niqNonlinear: i32;
  /** MATPOWER's cost_mult: f and its derivatives are scaled by it inside the iterations (1e-4 for
   *  AC-OPF, 1 for a QP); f and the multipliers are unscaled at the end. */
  costMult: f64;
  hv: StaticArray<f64> = new StaticArray<f64>(0);

  constructor(qp: QP, nonlinear: NonlinearConstraints | null = null, costMult: f64 = 1.0) {
    this.qp = qp;
    const nln = nonlinear !== null ? nonlinear : new NonlinearConstraints(qp.nx);
    this.nln = nln;
    this.costMult = costMult;
    const nx = qp.nx, nA = qp.nA;
    this.nx = nx;
    const rows = nx + nA;
    // classify the rows of AA, after the nonlinear rows
    const neqN = nln.neq, niqN = nln.niq;
    this.neqNonlinear = neqN; this.niqNonlinear = niqN;
    let neq = neqN, niq = niqN, eqNnz = unchecked(nln.eqP[neqN]), iqNnz = unchecked(nln.iqP[niqN]);
    for (let r = 0; r < rows; r++) {
      const lo = r < nx ? unchecked(qp.xmin[r]) : unchecked(qp.l[r - nx]);
      const hi = r < nx ? unchecked(qp.xmax[r]) : unchecked(qp.u[r - nx]);
      const m = r < nx ? 1 : unchecked(qp.Ap[r - nx + 1]) - unchecked(qp.Ap[r - nx]);
      if (Math.abs(hi - lo) <= EPS) { neq++; eqNnz += m; }
      else {
        const k = <i32>(hi < 1e10) + <i32>(lo > -1e10);
        niq += k; iqNnz += k * m;
      }
    }
    this.neq = neq; this.niq = niq;
    this.eqP = new StaticArray<i32>(neq + 1); this.eqJ = new StaticArray<i32>(eqNnz); this.eqV = new StaticArray<f64>(eqNnz);
    this.eqB = new StaticArray<f64>(neq); this.eqSrc = new StaticArray<i32>(neq);
    this.iqP = new StaticArray<i32>(niq + 1); this.iqJ = new StaticArray<i32>(iqNnz); this.iqV = new StaticArray<f64>(iqNnz);
    this.iqB = new StaticArray<f64>(niq); this.iqSrc = new StaticArray<i32>(niq);
    // nonlinear rows first: their pattern, values written by nln.evaluate
    for (let e = 0; e < neqN; e++) {
      for (let p = unchecked(nln.eqP[e]); p < unchecked(nln.eqP[e + 1]); p++) unchecked(this.eqJ[p] = nln.eqJ[p]);
      unchecked(this.eqP[e + 1] = nln.eqP[e + 1]); unchecked(this.eqSrc[e] = -1);
    }
    for (let k = 0; k < niqN; k++) {
      for (let p = unchecked(nln.iqP[k]); p < unchecked(nln.iqP[k + 1]); p++) unchecked(this.iqJ[p] = nln.iqJ[p]);
      unchecked(this.iqP[k + 1] = nln.iqP[k + 1]); unchecked(this.iqSrc[k] = -1);
    }
    let e = neqN, pe = unchecked(nln.eqP[neqN]);
    for (let r = 0; r < rows; r++) {
      const lo = r < nx ? unchecked(qp.xmin[r]) : unchecked(qp.l[r - nx]);
      const hi = r < nx ? unchecked(qp.xmax[r]) : unchecked(qp.u[r - nx]);
      if (Math.abs(hi - lo) > EPS) continue;
      pe = Mips.copyRow(qp, r, 1.0, this.eqJ, this.eqV, pe);
      unchecked(this.eqB[e] = hi); unchecked(this.eqSrc[e] = r);
      e++; unchecked(this.eqP[e] = pe);
    }
    let k = niqN, pi = unchecked(nln.iqP[niqN]);
    for (let kind = 0; kind < 4; kind++) {
      for (let r = 0; r < rows; r++) {
        const lo = r < nx ? unchecked(qp.xmin[r]) : unchecked(qp.l[r - nx]);
        const hi = r < nx ? unchecked(qp.xmax[r]) : unchecked(qp.u[r - nx]);
        if (Math.abs(hi - lo) <= EPS) continue;
        const up = hi < 1e10, low = lo > -1e10;
        let take = false, sign = 1.0, b = 0.0;
        if (kind == 0 && up && !low) { take = true; b = hi; }
        else if (kind == 1 && low && !up) { take = true; sign = -1.0; b = -lo; }
        else if (kind == 2 && up && low) { take = true; b = hi; }
        else if (kind == 3 && up && low) { take = true; sign = -1.0; b = -lo; }
        if (!take) continue;
        pi = Mips.copyRow(qp, r, sign, this.iqJ, this.iqV, pi);
        unchecked(this.iqB[k] = b); unchecked(this.iqSrc[k] = r + kind * rows);
        k++; unchecked(this.iqP[k] = pi);
      }
    }
    // the variable each equality row would naturally pivot with: the problem's own (a bus balance and
    // that bus's voltage), a fixed variable's row with that variable
    const partner = new StaticArray<i32>(neq);
    for (let r = 0; r < neq; r++) {
      const src = unchecked(this.eqSrc[r]);
      unchecked(partner[r] = r < neqN ? nln.partner(r) : src < nx ? src : unchecked(qp.partner[src - nx]));
    }
    this.kkt = new KKT(nx, neq, this.eqP, this.eqJ, this.iqP, this.iqJ, niq, nln.hessP, nln.hessJ, partner);
    this.hv = new StaticArray<f64>(unchecked(nln.hessP[nx]));
    this.x = new StaticArray<f64>(nx); this.dx = new StaticArray<f64>(nx);
    this.z = new StaticArray<f64>(niq); this.dz = new StaticArray<f64>(niq);
    this.mu = new StaticArray<f64>(niq); this.dmu = new StaticArray<f64>(niq); this.h = new StaticArray<f64>(niq);
    this.lam = new StaticArray<f64>(neq); this.g = new StaticArray<f64>(neq);
    this.Lx = new StaticArray<f64>(nx); this.rhs = new StaticArray<f64>(nx + neq);
    this.muL = new StaticArray<f64>(rows); this.muU = new StaticArray<f64>(rows);
    this.rhsAffine = new StaticArray<f64>(nx + neq); this.target = new StaticArray<f64>(niq);
  }

  private static copyRow(qp: QP, r: i32, sign: f64, J: StaticArray<i32>, V: StaticArray<f64>, p: i32): i32 {
    const nx = qp.nx;
    if (r < nx) { unchecked(J[p] = r); unchecked(V[p] = sign); return p + 1; }
    for (let q = unchecked(qp.Ap[r - nx]); q < unchecked(qp.Ap[r - nx + 1]); q++) {
      unchecked(J[p] = qp.Aj[q]); unchecked(V[p] = sign * qp.Ax[q]); p++;
    }
    return p;
  }

  /** f = cost_mult (½xᵀHx + cᵀx + k); g, h and their Jacobians at x; Lx = ∇f + dgᵀλ + dhᵀμ. */
  private evaluate(): void {
    const nx = this.nx, qp = this.qp, cm = this.costMult;
    const x = this.x, Lx = this.Lx;
    let f = 0.0;
    for (let j = 0; j < nx; j++) {
      const xj = unchecked(x[j]), hj = unchecked(qp.h[j]), cj = unchecked(qp.c[j]);
      f += 0.5 * hj * xj * xj + cj * xj;
      unchecked(Lx[j] = cm * (hj * xj + cj));
    }
    // polynomial costs of degree ≥ 3 (Horner: value and first derivative)
    for (let t = 0; t < qp.polyVar.length; t++) {
      const j = unchecked(qp.polyVar[t]), xj = unchecked(x[j]);
      let v = 0.0, d = 0.0;
      for (let p = unchecked(qp.polyStart[t + 1]) - 1; p >= unchecked(qp.polyStart[t]); p--) { d = d * xj + v; v = v * xj + unchecked(qp.polyCoef[p]); }
      f += v;
      unchecked(Lx[j] += cm * d);
    }
    this.f = cm * (f + qp.k);
    const neqN = this.neqNonlinear, niqN = this.niqNonlinear;
    if (neqN + niqN > 0) this.nln.evaluate(x, this.g, this.eqV, this.h, this.iqV);
    // Lx += dgᵀλ + dhᵀμ, and the linear rows' values
    const xp = ptr(x), lx = ptr(Lx);
    sparseRows(this.neq, ptr(this.eqP), ptr(this.eqJ), ptr(this.eqV), ptr(this.eqB), ptr(this.lam), xp, lx, neqN, ptr(this.g));
    sparseRows(this.niq, ptr(this.iqP), ptr(this.iqJ), ptr(this.iqV), ptr(this.iqB), ptr(this.mu), xp, lx, niqN, ptr(this.h));
  }

  private conditions(f0: f64): void {
    let gmax = 0.0, hmax = -Infinity, xmax = 0.0, zmax = 0.0, lmax = 0.0, mmax = 0.0, lxmax = 0.0, zmu = 0.0;
    for (let e = 0; e < this.neq; e++) { gmax = Math.max(gmax, Math.abs(unchecked(this.g[e]))); lmax = Math.max(lmax, Math.abs(unchecked(this.lam[e]))); }
    for (let k = 0; k < this.niq; k++) {
      hmax = Math.max(hmax, unchecked(this.h[k]));
      zmax = Math.max(zmax, Math.abs(unchecked(this.z[k])));
      mmax = Math.max(mmax, Math.abs(unchecked(this.mu[k])));
      zmu += unchecked(this.z[k]) * unchecked(this.mu[k]);
    }
    for (let j = 0; j < this.nx; j++) { xmax = Math.max(xmax, Math.abs(unchecked(this.x[j]))); lxmax = Math.max(lxmax, Math.abs(unchecked(this.Lx[j]))); }
    this.feascond = Math.max(gmax, hmax) / (1.0 + Math.max(xmax, zmax));
    this.gradcond = lxmax / (1.0 + Math.max(lmax, mmax));
    this.compcond = zmu / (1.0 + xmax);
    this.costcond = Math.abs(this.f - f0) / (1.0 + Math.abs(f0));
  }

  /** Runs MIPS from qp.x0; returns a MIPS_* status. `constant` is added to the reported objective only. */
  solve(o: MipsOptions, constant: f64): i32 {
    const nx = this.nx, neq = this.neq, niq = this.niq;
    const x = this.x, z = this.z, mu = this.mu, lam = this.lam, h = this.h, dx = this.dx, dz = this.dz, dmu = this.dmu;
    const kkt = this.kkt!, rhs = this.rhs, qp = this.qp;
    for (let j = 0; j < nx; j++) unchecked(x[j] = qp.x0[j]);
    for (let e = 0; e < neq; e++) unchecked(lam[e] = 0.0);
    for (let k = 0; k < niq; k++) unchecked(mu[k] = 0.0);
    this.evaluate();
    let gamma = 1.0;
    // The predictor–corrector starts μ on the scale of the cost gradient ‖∇f(x0)‖∞: at the optimum the
    // multipliers of binding limits carry cost-sized prices, and from μ = 1 against costs of 10⁴ (case2383wp,
    // $/MWh per p.u.) the first iterations only grow μ: 33 iterations there against 12, and 12–14 for any
    // start from ½ to 5 times this scale.
    let dualStart = 0.0;
    if (o.predictorCorrector) for (let j = 0; j < nx; j++) dualStart = Math.max(dualStart, Math.abs(unchecked(this.Lx[j])));
    for (let k = 0; k < niq; k++) {
      const hk = unchecked(h[k]);
      unchecked(z[k] = hk < -Z0 ? -hk : Z0);
      const zk = unchecked(z[k]);
      unchecked(mu[k] = gamma / zk > Z0 ? gamma / zk : Z0);
      if (dualStart > Z0) unchecked(mu[k] = dualStart);
    }
    this.evaluate(); // Lx with the starting μ
    let f0 = this.f;
    this.conditions(f0);
    let status = MIPS_MAXIT;
    let it = 0;
    let regularised = false;
    if (this.converged(o)) status = MIPS_CONVERGED;
    else if (opfProgress(0, this.feascond, this.gradcond, this.compcond, this.f / this.costMult + constant) != 0) status = MIPS_CANCELLED;
    const pc = o.predictorCorrector && niq > 0;
    while (status == MIPS_MAXIT && it < o.maxIt) {
      it++;
      this.assemble(pc ? 0.0 : gamma);
      if (pc) memory.copy(ptr(this.rhsAffine), ptr(rhs), <usize>(nx + neq) << 3);
      // Symmetric equilibration D K D (D = 1/sqrt(max |row|)): near the optimum μ/z of active
      // constraints grows without bound and the LU's relative pivot tests would read the
      // unscaled system as singular; the scaled one has the same solution, D y.
      kkt.equilibrate(rhs);
      if (regularised ? !kkt.factorRegularised() : !kkt.factor()) {
        // Near a degenerate LP optimum the barrier terms of binding limits (μ/z up to 1e17) swamp the rest of
        // their columns, and where more limits bind than the vertex needs the system turns singular in floating
        // point (pglib's case3012wp_k, the last iteration but one); the predictor–corrector gets there while
        // MIPS's fixed centring would still be iterating. From then on the factors are of K + diag(δ, −δ),
        // δ = 1e-10 of the equilibrated entries, and the solve refines against K itself.
        if (!pc || regularised) { status = MIPS_FAILED; break; }
        regularised = true;
        if (!kkt.factorRegularised()) { status = MIPS_FAILED; break; }
      }
      kkt.solve(rhs);
      kkt.unscale(rhs);
      if (pc) this.corrector();
      let norm2 = 0.0;
      let bad = false;
      for (let i = 0; i < nx + neq; i++) { const v = unchecked(rhs[i]); if (v != v) bad = true; norm2 += v * v; }
      if (bad || Math.sqrt(norm2) > MAX_STEPSIZE) { status = MIPS_FAILED; break; }
      for (let j = 0; j < nx; j++) unchecked(dx[j] = rhs[j]);
      this.inequalitySteps(ptr(dx), gamma, pc ? ptr(this.target) : 0, XI);
      const alphap = this.stepP, alphad = this.stepD;
      for (let j = 0; j < nx; j++) unchecked(x[j] += alphap * dx[j]);
      for (let k = 0; k < niq; k++) { unchecked(z[k] += alphap * dz[k]); unchecked(mu[k] += alphad * dmu[k]); }
      for (let e = 0; e < neq; e++) unchecked(lam[e] += alphad * rhs[nx + e]);
      if (niq > 0) {
        let zmu = 0.0;
        for (let k = 0; k < niq; k++) zmu += unchecked(z[k]) * unchecked(mu[k]);
        gamma = SIGMA * zmu / <f64>niq;
      }
      this.evaluate();
      this.conditions(f0);
      if (opfProgress(it, this.feascond, this.gradcond, this.compcond, this.f / this.costMult + constant) != 0) { status = MIPS_CANCELLED; break; }
      if (this.converged(o)) { status = MIPS_CONVERGED; break; }
      let xnan = false;
      for (let j = 0; j < nx; j++) if (unchecked(x[j]) != unchecked(x[j])) xnan = true;
      if (xnan || alphap < ALPHA_MIN || alphad < ALPHA_MIN || gamma < EPS || gamma > 1.0 / EPS) { status = MIPS_FAILED; break; }
      f0 = this.f;
    }
    this.iterations = it;
    this.multipliers(o);
    // un-scale the cost and the prices (mips.m), after the clean-up that compares scaled μ
    const cm = this.costMult;
    if (cm != 1.0) {
      this.f /= cm;
      for (let e = 0; e < neq; e++) unchecked(lam[e] /= cm);
      for (let k = 0; k < niq; k++) unchecked(mu[k] /= cm);
      const rows = nx + qp.nA;
      for (let r = 0; r < rows; r++) { unchecked(this.muL[r] /= cm); unchecked(this.muU[r] /= cm); }
    }
    return status;
  }

  /** Mehrotra's predictor–corrector (Wright, Primal-Dual Interior-Point Methods, ch. 10), on the
   *  factorisation this iteration already made. rhs holds the affine step (γ = 0); from its longest
   *  steps to the boundary comes the centring σ = (μ_aff/μ)³, and each complementarity row k gets the
   *  target σμ − Δz_k Δμ_k (the second-order term the affine step leaves out); rhs is then solved
   *  again with those targets in place of MIPS's single γ. */
  private corrector(): void {
    const nx = this.nx, neq = this.neq, niq = this.niq, kkt = this.kkt!, rhs = this.rhs;
    const iqP = ptr(this.iqP), iqJ = ptr(this.iqJ), iqV = ptr(this.iqV);
    const zp = ptr(this.z), mup = ptr(this.mu), dzp = ptr(this.dz), dmup = ptr(this.dmu);
    this.inequalitySteps(ptr(rhs), 0.0, 0, 1.0);
    const ap = this.stepP, ad = this.stepD;
    let zmu = 0.0;
    for (let k = 0; k < niq; k++) zmu += getf(zp, k) * getf(mup, k);
    let zmuAffine = 0.0;
    for (let k = 0; k < niq; k++) zmuAffine += (getf(zp, k) + ap * getf(dzp, k)) * (getf(mup, k) + ad * getf(dmup, k));
    const ratio = Math.min(zmuAffine / zmu, 1.0);
    const centre = ratio * ratio * ratio * zmu / <f64>niq;
    const tg = ptr(this.target);
    memory.copy(ptr(rhs), ptr(this.rhsAffine), <usize>(nx + neq) << 3);
    const r = ptr(rhs);
    for (let k = 0; k < niq; k++) {
      const t = centre - getf(dzp, k) * getf(dmup, k);
      setf(tg, k, t);
      const w = t / getf(zp, k);
      for (let p = geti(iqP, k), e = geti(iqP, k + 1); p < e; p++) {
        const a = r + (<usize>geti(iqJ, p) << 3);
        store<f64>(a, load<f64>(a) - w * getf(iqV, p));
      }
    }
    kkt.scaleRhs(rhs);
    kkt.solve(rhs);
    kkt.unscale(rhs);
  }

  /** For the step dx: dz = −h − z − Ai dx and dμ = −μ + (t_k − μ_k dz_k)/z_k, t_k each row's target
   *  (targets ≠ 0) or γ; the longest steps that keep z and μ positive, times xi and at most 1, in
   *  stepP / stepD. */
  private inequalitySteps(dx: usize, gamma: f64, targets: usize, xi: f64): void {
    const iqP = ptr(this.iqP), iqJ = ptr(this.iqJ), iqV = ptr(this.iqV);
    const zp = ptr(this.z), mup = ptr(this.mu), hp = ptr(this.h), dzp = ptr(this.dz), dmup = ptr(this.dmu);
    let alphap = 1.0, alphad = 1.0;
    for (let k = 0, niq = this.niq; k < niq; k++) {
      let s = 0.0;
      for (let p = geti(iqP, k), e = geti(iqP, k + 1); p < e; p++) s += getf(iqV, p) * getf(dx, geti(iqJ, p));
      const zk = getf(zp, k), mk = getf(mup, k);
      const dzk = -getf(hp, k) - zk - s;
      const dmk = -mk + ((targets != 0 ? getf(targets, k) : gamma) - mk * dzk) / zk;
      setf(dzp, k, dzk); setf(dmup, k, dmk);
      if (dzk < 0.0) alphap = Math.min(alphap, xi * (zk / -dzk));
      if (dmk < 0.0) alphad = Math.min(alphad, xi * (mk / -dmk));
    }
    this.stepP = alphap; this.stepD = alphad;
  }

  /** The KKT values (mips.m's M = Lxx + Aiᵀ diag(μ/z) Ai beside Aeᵀ / Ae) and the right-hand side
   *  (-N, -g) at the current x, λ, μ, z. Raw element access (sparse/raw.ts): nothing allocates here but
   *  the Hessian, whose objects are reachable and do not move. */
  private assemble(gamma: f64): void {
    const nx = this.nx, neq = this.neq, niq = this.niq;
    const kkt = this.kkt!, qp = this.qp;
    const val = ptr(kkt.val), diagSlot = ptr(kkt.diagSlot), qh = ptr(qp.h);
    memory.fill(val, 0, <usize>kkt.val.length << 3);
    const cm = this.costMult;
    for (let j = 0; j < nx; j++) { const a = val + (<usize>geti(diagSlot, j) << 3); store<f64>(a, load<f64>(a) + cm * getf(qh, j)); }
    const x = this.x;
    for (let t = 0; t < qp.polyVar.length; t++) {
      // second derivative of a polynomial cost (Horner on value, first and second derivative)
      const j = unchecked(qp.polyVar[t]), xj = unchecked(x[j]);
      let v = 0.0, d = 0.0, d2 = 0.0;
      for (let p = unchecked(qp.polyStart[t + 1]) - 1; p >= unchecked(qp.polyStart[t]); p--) {
        d2 = d2 * xj + 2.0 * d;
        d = d * xj + v;
        v = v * xj + unchecked(qp.polyCoef[p]);
      }
      const a = val + (<usize>geti(diagSlot, j) << 3);
      store<f64>(a, load<f64>(a) + cm * d2);
    }
    if (this.neqNonlinear + this.niqNonlinear > 0) {
      // Lxx = cost_mult ∇²f + Σ λ ∇²g + Σ μ ∇²h (mips.m's hess_fcn) at the current x, λ, μ
      const hv = this.hv;
      this.nln.hessian(x, this.lam, this.mu, hv);
      const hs = ptr(kkt.hessSlot), hp = ptr(hv);
      for (let p = 0, m = hv.length; p < m; p++) { const a = val + (<usize>geti(hs, p) << 3); store<f64>(a, load<f64>(a) + getf(hp, p)); }
    }
    const mu = ptr(this.mu), z = ptr(this.z), h = ptr(this.h);
    const iqP = ptr(this.iqP), iqJ = ptr(this.iqJ), iqV = ptr(this.iqV);
    const pairStart = ptr(kkt.pairStart), pairSlot = ptr(kkt.pairSlot);
    for (let k = 0; k < niq; k++) {
      const w = getf(mu, k) / getf(z, k);
      const p0 = geti(iqP, k), m = geti(iqP, k + 1) - p0;
      const s0 = geti(pairStart, k);
      for (let a = 0; a < m; a++) {
        const wa = w * getf(iqV, p0 + a);
        const row = s0 + a * m;
        for (let b = 0; b < m; b++) {
          const at = val + (<usize>geti(pairSlot, row + b) << 3);
          store<f64>(at, load<f64>(at) + wa * getf(iqV, p0 + b));
        }
      }
    }
    const eqV = ptr(this.eqV), eqLow = ptr(kkt.eqLow), eqUp = ptr(kkt.eqUp);
    for (let p = 0, e = unchecked(this.eqP[neq]); p < e; p++) {
      const v = getf(eqV, p);
      const lo = val + (<usize>geti(eqLow, p) << 3), up = val + (<usize>geti(eqUp, p) << 3);
      store<f64>(lo, load<f64>(lo) + v);
      store<f64>(up, load<f64>(up) + v);
    }
    // right-hand side: -N = -(Lx + Aiᵀ diag(1/z)(μ∘h + γ)), -g
    const rhs = ptr(this.rhs), Lx = ptr(this.Lx), g = ptr(this.g);
    for (let j = 0; j < nx; j++) setf(rhs, j, -getf(Lx, j));
    for (let k = 0; k < niq; k++) {
      const w = (getf(mu, k) * getf(h, k) + gamma) / getf(z, k);
      for (let p = geti(iqP, k), e = geti(iqP, k + 1); p < e; p++) {
        const a = rhs + (<usize>geti(iqJ, p) << 3);
        store<f64>(a, load<f64>(a) - w * getf(iqV, p));
      }
    }
    for (let e = 0; e < neq; e++) setf(rhs, nx + e, -getf(g, e));
  }

  private converged(o: MipsOptions): bool {
    return this.feascond < o.feastol && this.gradcond < o.gradtol && this.compcond < o.comptol && this.costcond < o.costtol;
  }

  /** mips.m's clean-up: μ of clearly slack constraints below the threshold is 0; then the
   *  multipliers of AA's rows, lower (muL) and upper (muU), as MATPOWER's lambda. */
  private multipliers(o: MipsOptions): void {
    const rows = this.nx + this.qp.nA;
    for (let r = 0; r < rows; r++) { unchecked(this.muL[r] = 0.0); unchecked(this.muU[r] = 0.0); }
    for (let e = this.neqNonlinear; e < this.neq; e++) {
      const l = unchecked(this.lam[e]), r = unchecked(this.eqSrc[e]);
      if (l < 0.0) unchecked(this.muL[r] = -l);
      else if (l > 0.0) unchecked(this.muU[r] = l);
    }
    for (let k = 0; k < this.niq; k++) {
      let m = unchecked(this.mu[k]);
      if (unchecked(this.h[k]) < -o.feastol && m < MU_THRESHOLD) { m = 0.0; unchecked(this.mu[k] = 0.0); }
      const src = unchecked(this.iqSrc[k]);
      if (src < 0) continue; // a nonlinear row: its μ stays in this.mu
      const kind = src / rows, r = src % rows;
      if (kind == 1 || kind == 3) unchecked(this.muL[r] = m);
      else unchecked(this.muU[r] = m);
    }
  }
}

/** For the rows r of a sparse row set (P, J, V) and their multipliers m: Lx += V(r,:)ᵀ m_r, and
 *  out[r] = V(r,:)·x − B_r for the linear rows r ≥ firstLinear (the nonlinear ones have their values
 *  from their own evaluation). Raw element access (sparse/raw.ts). */
// @ts-ignore: decorator
@inline function sparseRows(count: i32, P: usize, J: usize, V: usize, B: usize, m: usize, x: usize, lx: usize,
                            firstLinear: i32, out: usize): void {
  for (let r = 0; r < count; r++) {
    let s = -getf(B, r);
    const mr = getf(m, r);
    for (let p = geti(P, r), pe = geti(P, r + 1); p < pe; p++) {
      const j = geti(J, p), v = getf(V, p);
      s += v * getf(x, j);
      setf(lx, j, getf(lx, j) + v * mr);
    }
    if (r >= firstLinear) setf(out, r, s);
  }
}
