// The per-element values of a solved power flow (buses, branches, generators) in the
// compact binary form stored with the task (tasks.result_values): little-endian float64,
//
//   header     FORMAT, nb, nl, ng
//   buses      nb x (id, v, theta, p_gen, q_gen, p_load, q_load[, energized])
//   branches   nl x (from, to, p_from, q_from, p_to, q_to, loading); index is the position k
//   generators ng x (bus, p_gen, q_gen)
//
// Why binary: for case118 the same values as JSON are 40 kB that the worker formats
// number by number and PostgreSQL parses and compresses again; under a stream of small
// solves that cost more than the solves (bench/README.md). Float64 keeps every digit the
// solver produced, so a result read back is identical to the one computed. The buffer
// is self-contained (element ids included): reading a result needs no network model.
import type { BranchResult, BusResult, GeneratorResult } from './types.js';

/** Format 1: buses without the energized flag; format 2 (a solve with islanding isolate / new_reference): with it, 1 or 0. */
const FORMAT = 1;
const FORMAT_ENERGIZED = 2;
const HEADER = 4;
const busWidth = (format: number) => (format === FORMAT_ENERGIZED ? 8 : 7);
const BRANCH = 7;
const GEN = 3;

// Float64Array is host-endian; every platform Node supports in production is little-endian.
if (new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f) throw new Error('gridops stores results as little-endian float64; this host is big-endian');

export interface ResultValues {
  buses: BusResult[];
  branches: BranchResult[];
  generators: GeneratorResult[];
}

/** A buffer of `format` (default 1: no energized flag) for nb buses, nl branches and ng generators, its header written, and where
 *  each part starts: for a writer that fills it straight from the solver's output (src/powerflow/unpack.ts). */
export function resultValuesLayout(nb: number, nl: number, ng: number, format = FORMAT): { f: Float64Array; bus: number; branch: number; gen: number } {
  const BUS = busWidth(format);
  const f = new Float64Array(HEADER + nb * BUS + nl * BRANCH + ng * GEN);
  f[0] = format;
  f[1] = nb;
  f[2] = nl;
  f[3] = ng;
  return { f, bus: HEADER, branch: HEADER + nb * BUS, gen: HEADER + nb * BUS + nl * BRANCH };
}

/** Values per bus (format 1), branch and generator in the layout above. */
export const RESULT_VALUES_WIDTH = { bus: busWidth(FORMAT), branch: BRANCH, gen: GEN } as const;

export function encodeResultValues(r: ResultValues): Buffer {
  const nb = r.buses.length, nl = r.branches.length, ng = r.generators.length;
  const format = nb > 0 && r.buses[0]!.energized !== undefined ? FORMAT_ENERGIZED : FORMAT;
  const BUS = busWidth(format);
  const { f } = resultValuesLayout(nb, nl, ng, format);
  let o = HEADER;
  for (const b of r.buses) {
    f[o] = b.id; f[o + 1] = b.v; f[o + 2] = b.theta; f[o + 3] = b.p_gen; f[o + 4] = b.q_gen; f[o + 5] = b.p_load; f[o + 6] = b.q_load;
    if (format === FORMAT_ENERGIZED) f[o + 7] = b.energized ? 1 : 0;
    o += BUS;
  }
  for (const b of r.branches) {
    f[o] = b.from; f[o + 1] = b.to; f[o + 2] = b.p_from; f[o + 3] = b.q_from; f[o + 4] = b.p_to; f[o + 5] = b.q_to; f[o + 6] = b.loading;
    o += BRANCH;
  }
  for (const g of r.generators) {
    f[o] = g.bus; f[o + 1] = g.p_gen; f[o + 2] = g.q_gen;
    o += GEN;
  }
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

/** The inverse of encodeResultValues; throws on a buffer that is not one of its outputs. */
export function decodeResultValues(bytes: Uint8Array): ResultValues {
  if (bytes.byteLength % 8 !== 0 || bytes.byteLength < HEADER * 8) throw new Error(`stored result values are corrupt: ${bytes.byteLength} bytes`);
  // A copy: the bytes a driver hands over need not be 8-byte aligned.
  const f = new Float64Array(bytes.byteLength / 8);
  new Uint8Array(f.buffer).set(bytes);
  const [format, nb, nl, ng] = [f[0]!, f[1]!, f[2]!, f[3]!];
  const BUS = busWidth(format);
  if ((format !== FORMAT && format !== FORMAT_ENERGIZED) || HEADER + nb * BUS + nl * BRANCH + ng * GEN !== f.length) {
    throw new Error(`stored result values are corrupt or of an unknown format (format ${format}, ${f.length} values)`);
  }
  let o = HEADER;
  const buses: BusResult[] = new Array(nb);
  for (let k = 0; k < nb; k++, o += BUS) {
    buses[k] = { id: f[o]!, v: f[o + 1]!, theta: f[o + 2]!, p_gen: f[o + 3]!, q_gen: f[o + 4]!, p_load: f[o + 5]!, q_load: f[o + 6]! };
    if (format === FORMAT_ENERGIZED) buses[k]!.energized = f[o + 7] === 1;
  }
  const branches: BranchResult[] = new Array(nl);
  for (let k = 0; k < nl; k++, o += BRANCH) {
    branches[k] = { index: k, from: f[o]!, to: f[o + 1]!, p_from: f[o + 2]!, q_from: f[o + 3]!, p_to: f[o + 4]!, q_to: f[o + 5]!, loading: f[o + 6]! };
  }
  const generators: GeneratorResult[] = new Array(ng);
  for (let k = 0; k < ng; k++, o += GEN) {
    generators[k] = { bus: f[o]!, p_gen: f[o + 1]!, q_gen: f[o + 2]! };
  }
  return { buses, branches, generators };
}
