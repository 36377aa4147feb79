// Fast-decoupled's two linear systems on one topology: B' (non-reference buses) and B'' (pq buses) values,
// their LUs (each analysed once, on first factorisation) and the parameter hash each factor was made for,
// and the two right-hand sides. Built on a topology's first fast-decoupled solve (Topology.decoupled()).
import { SparseLU } from './sparse/lu';
import { analyze } from './analysis';
import { ReducedB } from './reducedB';

export class DecoupledSystem {
  patterns: ReducedB;
  nR: i32;
  nQ: i32;
  bpVal: StaticArray<f64>;
  bppVal: StaticArray<f64>;
  luBp: SparseLU = new SparseLU();
  luBpp: SparseLU = new SparseLU();
  private bpAnalyzed: bool = false;
  private bppAnalyzed: bool = false;
  /** the factors hold the matrices of parameter hash bpHash / bppHash (false: stale or failed) */
  bpOk: bool = false;
  bppOk: bool = false;
  bpHash: u64 = 0;
  bppHash: u64 = 0;
  /** Bumped by every factorisation of luBp / luBpp (fdpf.ts): a study that kept factors checks they are still its own. */
  generation: i32 = 0;
  rhsP: StaticArray<f64>;
  rhsQ: StaticArray<f64>;
  /** max-norms of the last mismatch (mismatch.ts mismatchFD) */
  normP: f64 = 0.0;
  normQ: f64 = 0.0;

  constructor(patterns: ReducedB, nR: i32, nQ: i32) {
    this.patterns = patterns;
    this.nR = nR;
    this.nQ = nQ;
    this.bpVal = new StaticArray<f64>(patterns.nnzB + 1);
    this.bppVal = new StaticArray<f64>(patterns.nnzQ + 1);
    this.rhsP = new StaticArray<f64>(nR);
    this.rhsQ = new StaticArray<f64>(nQ);
  }

  analyzeBp(): void { if (!this.bpAnalyzed) { analyze(this.luBp, this.nR, this.patterns.bPtr, this.patterns.bIdx); this.bpAnalyzed = true; } }
  analyzeBpp(): void { if (!this.bppAnalyzed) { analyze(this.luBpp, this.nQ, this.patterns.qPtr, this.patterns.qIdx); this.bppAnalyzed = true; } }
}
