// The named warnings of a PSS/E import: what the network model cannot hold, or where the reader
// follows PSS/E rather than MATPOWER's psse2mpc. Returned in the import's answer, never dropped.

export interface PsseWarning {
  /** stable name, e.g. VSC_DC_NOT_MODELLED */
  code: string;
  /** records (or lines) concerned */
  count: number;
  /** first line concerned, when there is one */
  first_line?: number;
  message: string;
}

/** Adds `n` to the warning `code` (created with `message` on first use). */
export function warn(list: PsseWarning[], code: string, message: string, line?: number, n = 1): void {
  const w = list.find((x) => x.code === code);
  if (w) {
    w.count += n;
    return;
  }
  list.push({ code, count: n, ...(line !== undefined ? { first_line: line } : {}), message });
}
