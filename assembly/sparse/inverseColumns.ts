// Columns A⁻¹ e_j of one factorisation of A, the most recently used kept: a study's branch outages on the intact
// B'' (../study/compensation.ts) each need the columns of their two end buses, and the branches of a bus are often
// listed together, so a column asked for once is often asked for again a few outages later. Each column is the
// solve's own answer, bit for bit; a new factorisation (another matrix or generation) empties the cache.
import { SparseLU } from './lu';
import { ptr } from './raw';

export class InverseColumns {
  private cols: StaticArray<f64>[] = [];
  private keys: StaticArray<i32>;
  private used: StaticArray<i64>;
  private clock: i64 = 0;
  private lu: SparseLU | null = null;
  private generation: i32 = -1;
  private n: i32 = -1;

  constructor(private capacity: i32) {
    this.keys = new StaticArray<i32>(capacity);
    this.used = new StaticArray<i64>(capacity);
  }

  /** A⁻¹ e_j (n unknowns) on lu's factors of `generation` (the owner's count of its factorisations). The array is
   *  the cache's: read it until `capacity` - 1 other columns have been asked for. */
  column(lu: SparseLU, n: i32, j: i32, generation: i32): StaticArray<f64> {
    if (lu !== this.lu || generation != this.generation || n != this.n) {
      if (n != this.n) this.cols = [];
      this.lu = lu; this.generation = generation; this.n = n;
      for (let k = 0; k < this.capacity; k++) { unchecked(this.keys[k] = -1); unchecked(this.used[k] = 0); }
    }
    this.clock++;
    let oldest = 0;
    for (let k = 0; k < this.capacity; k++) {
      if (unchecked(this.keys[k]) == j && k < this.cols.length) { unchecked(this.used[k] = this.clock); return unchecked(this.cols[k]); }
      if (unchecked(this.used[k]) < unchecked(this.used[oldest])) oldest = k;
    }
    if (this.cols.length < this.capacity) { oldest = this.cols.length; this.cols.push(new StaticArray<f64>(n)); }
    const w = unchecked(this.cols[oldest]);
    memory.fill(ptr(w), 0, <usize>n << 3);
    unchecked(w[j] = 1.0);
    lu.solve(w);
    unchecked(this.keys[oldest] = j);
    unchecked(this.used[oldest] = this.clock);
    return w;
  }
}
