// The DC power flow's linear system on one topology: Bbus over the non-reference buses (the pattern of
// B', ReducedB), its LU analysed on first factorisation, the parameter hash the factor was made for, and
// the right-hand side. Built on a topology's first DC solve, PTDF or LODF (Topology.dc()).
import { SparseLU } from './sparse/lu';
import { analyze } from './analysis';
import { ReducedB } from './reducedB';
import { BdcBranches } from './makeBdc';

export class DcSystem {
  patterns: ReducedB;
  n: i32;
  val: StaticArray<f64>;
  lu: SparseLU = new SparseLU();
  private analyzed: bool = false;
  /** the factor holds the Bbus of parameter hash `hash` (false: stale, edited for a study case, or failed) */
  ok: bool = false;
  hash: u64 = 0;
  rhs: StaticArray<f64>;
  /** makeBdc's branch part of the last Bbus made (the case's, in a study) */
  branches: BdcBranches;

  constructor(patterns: ReducedB, nR: i32, nb: i32, nl: i32) {
    this.patterns = patterns;
    this.n = nR;
    this.branches = new BdcBranches(nb, nl);
    this.val = new StaticArray<f64>(patterns.nnzB + 1);
    this.rhs = new StaticArray<f64>(nR);
  }

  analyze(): void { if (!this.analyzed) { analyze(this.lu, this.n, this.patterns.bPtr, this.patterns.bIdx); this.analyzed = true; } }

  /** Back to the analysed pivot order after a pivoting fallback (studies refactorise per case). */
  resetPivoting(): void {
    if (this.analyzed && this.n > 0 && this.lu.fallbacks > 0) analyze(this.lu, this.n, this.patterns.bPtr, this.patterns.bIdx);
  }
}
