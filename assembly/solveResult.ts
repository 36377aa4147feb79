// How an iterative power flow ended, beside its status code: iterations done and the last mismatch
// (max-norm, p.u.). The caller owns one and passes it to newtonpf / fdpf, which fill it.
export class SolveResult {
  iterations: i32 = 0;
  mismatch: f64 = 0.0;
}
