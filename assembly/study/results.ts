// What a study chunk hands back, in one object (index.ts passes its buffers to JavaScript by pointer;
// layouts in ./abi.ts): one record per case (REC_FIELDS each, record 0 the base case), the cut-off
// buses of islanded cases, the monitored values (5 per monitored branch, 2 per bus, per case) and the
// violations (VIOL_FIELDS each). Buffers grow between cases, never inside a solve.
import { REC_FIELDS, REC_MINV, REC_MAXV, REC_MAXLOAD, REC_MINV_BUS, REC_MAXV_BUS, REC_MAXLOAD_BR, REC_EST_STEP, VIOL_FIELDS,
  VIOL_TYPE, VIOL_ELEMENT, VIOL_VALUE, VIOL_LIMIT } from './abi';

export class StudyResults {
  records: StaticArray<f64> = new StaticArray<f64>(0);
  islands: StaticArray<f64> = new StaticArray<f64>(0);
  islandCount: i32 = 0;
  monitorValues: StaticArray<f64> = new StaticArray<f64>(0);
  casesDone: i32 = 0;
  violations: StaticArray<f64> = new StaticArray<f64>(4096);
  violationCount: i32 = 0;

  /** Sized for nCases cases (and the base record) with monSize monitored values each; counts reset. */
  begin(nCases: i32, monSize: i32): void {
    const nRec = REC_FIELDS * (nCases + 1);
    if (this.records.length < nRec) this.records = new StaticArray<f64>(nRec);
    if (this.monitorValues.length < monSize * (nCases + 1)) this.monitorValues = new StaticArray<f64>(monSize * (nCases + 1));
    this.violationCount = 0;
    this.islandCount = 0;
    this.casesDone = 0;
  }

  clearRecord(r: i32): void {
    const rec = this.records;
    for (let k = 0; k < REC_FIELDS; k++) unchecked(rec[r + k] = 0.0);
    unchecked(rec[r + REC_MINV] = NaN);
    unchecked(rec[r + REC_MAXV] = NaN);
    unchecked(rec[r + REC_MAXLOAD] = NaN);
    unchecked(rec[r + REC_MINV_BUS] = -1.0);
    unchecked(rec[r + REC_MAXV_BUS] = -1.0);
    unchecked(rec[r + REC_MAXLOAD_BR] = -1.0);
    unchecked(rec[r + REC_EST_STEP] = -1.0);
  }

  /** Room for n island entries in all. */
  growIslands(n: i32): void {
    if (n <= this.islands.length) return;
    const grown = new StaticArray<f64>(max(2 * this.islands.length, n));
    memory.copy(changetype<usize>(grown), changetype<usize>(this.islands), <usize>this.islandCount << 3);
    this.islands = grown;
  }

  pushViolation(type: i32, element: i32, value: f64, limit: f64): void {
    const o = this.violationCount * VIOL_FIELDS;
    if (o + VIOL_FIELDS > this.violations.length) {
      const grown = new StaticArray<f64>(this.violations.length * 2);
      memory.copy(changetype<usize>(grown), changetype<usize>(this.violations), <usize>o << 3);
      this.violations = grown;
    }
    const v = this.violations;
    unchecked(v[o + VIOL_TYPE] = <f64>type);
    unchecked(v[o + VIOL_ELEMENT] = <f64>element);
    unchecked(v[o + VIOL_VALUE] = value);
    unchecked(v[o + VIOL_LIMIT] = limit);
    this.violationCount++;
  }
}
