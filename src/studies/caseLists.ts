// The violations and cut-off buses of a study chunk are flat columns with a start index per case
// (StudyChunk.violationStart / islandStart). A chunk rebuilt case by case (splitting outages solved
// afterwards, ./islanded.ts; screened chunks merged, ./screening.ts) gathers them here.
import type { StudyChunk } from './types.js';

export type ViolationTuple = [type: number, element: number, value: number, limit: number];

export class CaseLists {
  private readonly violations: ViolationTuple[] = [];
  private readonly islands: number[] = [];

  /** Case j of another chunk, as it is. */
  copy(from: StudyChunk, j: number): void {
    for (let v = from.violationStart[j]!; v < from.violationStart[j + 1]!; v++) {
      this.violations.push([from.violationType[v]!, from.violationElement[v]!, from.violationValue[v]!, from.violationLimit[v]!]);
    }
    for (let b = from.islandStart[j]!; b < from.islandStart[j + 1]!; b++) this.islands.push(from.islandBuses[b]!);
  }

  add(violations: readonly ViolationTuple[], islandBuses: readonly number[]): void {
    for (const v of violations) this.violations.push(v);
    for (const b of islandBuses) this.islands.push(b);
  }

  /** Ends case i of `out`: its start indexes of the next case. */
  end(out: StudyChunk, i: number): void {
    out.violationStart[i + 1] = this.violations.length;
    out.islandStart[i + 1] = this.islands.length;
  }

  /** Writes the gathered columns into `out`. */
  finish(out: StudyChunk): void {
    const v = this.violations;
    out.violationType = Uint8Array.from(v, (x) => x[0]);
    out.violationElement = Int32Array.from(v, (x) => x[1]);
    out.violationValue = Float64Array.from(v, (x) => x[2]);
    out.violationLimit = Float64Array.from(v, (x) => x[3]);
    out.islandBuses = Int32Array.from(this.islands);
  }
}
