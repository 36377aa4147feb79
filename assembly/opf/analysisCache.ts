// The last KKT analysis (pivot sequence and symbolic LU), kept per wasm instance: one per solver thread.
// Finding the sequence (./kktOrder.ts: a matching on the values, AMD) and the factors' structure is about
// a twentieth of a large AC-OPF; an OPF of the same network again (the same dispatch problem with other
// loads, a changed option, the next run) builds the same first KKT matrix, because that matrix depends on
// the network, its limits and the start point, not on the loads. A solve whose pattern, pairing hints and
// values at the first factorisation equal the kept ones takes the kept analysis, which is exactly what it
// would have found: the same input gives the same answer whether the analysis was kept or not.
// One entry: a different system replaces it (its memory: the matrix and the factors' storage).
import { SparseLU } from '../sparse/lu';

class KeptAnalysis {
  constructor(
    public n: i32, public nx: i32,
    public colPtr: StaticArray<i32>, public rowIdx: StaticArray<i32>, public val: StaticArray<f64>,
    public partner: StaticArray<i32>, public lu: SparseLU,
  ) {}
}

function copyI32(a: StaticArray<i32>): StaticArray<i32> {
  const c = new StaticArray<i32>(a.length);
  memory.copy(changetype<usize>(c), changetype<usize>(a), <usize>a.length << 2);
  return c;
}
function copyF64(a: StaticArray<f64>): StaticArray<f64> {
  const c = new StaticArray<f64>(a.length);
  memory.copy(changetype<usize>(c), changetype<usize>(a), <usize>a.length << 3);
  return c;
}
function sameI32(a: StaticArray<i32>, b: StaticArray<i32>): bool {
  return a.length == b.length && memory.compare(changetype<usize>(a), changetype<usize>(b), <usize>a.length << 2) == 0;
}
/** Bit for bit (memory.compare): a value that differs in any bit is a different matrix. */
function sameF64(a: StaticArray<f64>, b: StaticArray<f64>): bool {
  return a.length == b.length && memory.compare(changetype<usize>(a), changetype<usize>(b), <usize>a.length << 3) == 0;
}

class AnalysisCache {
  private kept: KeptAnalysis | null = null;
  /** Solves that took the kept analysis (diagnostics, tests). */
  hits: i32 = 0;

  /** The kept analysis when it is this system's, ready for a new solve; else null. */
  find(n: i32, nx: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, val: StaticArray<f64>, partner: StaticArray<i32>): SparseLU | null {
    const k = this.kept;
    if (k === null || k.n != n || k.nx != nx || !sameI32(k.colPtr, colPtr) || !sameI32(k.rowIdx, rowIdx)
      || !sameI32(k.partner, partner) || !sameF64(k.val, val)) return null;
    k.lu.fallbacks = 0;
    this.hits++;
    return k.lu;
  }

  /** Keeps lu, just analysed for this system (copies of the arrays: the solve goes on changing val). */
  keep(n: i32, nx: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, val: StaticArray<f64>, partner: StaticArray<i32>, lu: SparseLU): void {
    this.kept = null; // the previous entry's memory can go before the copies are made
    this.kept = new KeptAnalysis(n, nx, copyI32(colPtr), copyI32(rowIdx), copyF64(val), copyI32(partner), lu);
  }

  clear(): void { this.kept = null; }
}

export const lastAnalysis = new AnalysisCache();
