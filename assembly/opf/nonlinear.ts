// The nonlinear constraints MIPS (./mips.ts) takes beside the linear ones, as
// mips.m's gh_fcn and hess_fcn: equalities g(x) = 0 and inequalities h(x) ≤ 0
// with their Jacobian patterns (CSR over x) fixed at construction, and the
// pattern of Σ λ ∇²g + Σ μ ∇²h (a symmetric matrix, every entry stored, row
// CSR over x). This base class has none: a QP. The AC-OPF's power balance and
// flow limits extend it (./acConstraints.ts).

export class NonlinearConstraints {
  neq: i32 = 0;
  niq: i32 = 0;
  eqP: StaticArray<i32> = new StaticArray<i32>(1);
  eqJ: StaticArray<i32> = new StaticArray<i32>(0);
  iqP: StaticArray<i32> = new StaticArray<i32>(1);
  iqJ: StaticArray<i32> = new StaticArray<i32>(0);
  hessP: StaticArray<i32>;
  hessJ: StaticArray<i32> = new StaticArray<i32>(0);

  constructor(nx: i32) {
    this.hessP = new StaticArray<i32>(nx + 1);
  }

  /** g (rows 0..neq), its Jacobian values aligned with eqJ, h (rows 0..niq) and its values aligned
   *  with iqJ, all at x. Writes only the leading parts of the arrays it is given. */
  evaluate(x: StaticArray<f64>, g: StaticArray<f64>, eqV: StaticArray<f64>, h: StaticArray<f64>, iqV: StaticArray<f64>): void {}

  /** The variable equality row e naturally pivots with (the KKT ordering's first choice), or −1. */
  partner(e: i32): i32 { return -1; }

  /** Σ λ_e ∇²g_e + Σ μ_k ∇²h_k at x into hv (aligned with hessJ); λ and μ are MIPS's whole vectors,
   *  whose leading entries belong to these constraints. */
  hessian(x: StaticArray<f64>, lam: StaticArray<f64>, mu: StaticArray<f64>, hv: StaticArray<f64>): void {}
}
