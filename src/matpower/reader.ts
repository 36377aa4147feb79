// MATPOWER case format version 2 reader (see MATPOWER's `caseformat`): the scanner's matrices and
// scalars (./scanner.ts) mapped to the network model. Only `mpc.bus`, `mpc.gen`, `mpc.branch`,
// `mpc.baseMVA`, `mpc.version`, `mpc.bus_name`, `mpc.gencost` (./gencost.ts), `mpc.dcline` and
// the gridops_* extension fields written by ./writer.ts are interpreted.
//
// Mapping to the network model: docs/network-model.md.

import type { Branch, Bus, BusType, DcLine, Generator, Load, NetworkModel } from '../domain/networkModel.js';
import { applyGencost } from './gencost.js';
import { importedModel } from '../domain/importedModel.js';
import { baseName, EXT, MatpowerParseError, type Matrix, parseNumberToken, quoteFound, Scanner } from './scanner.js';

export { MatpowerParseError };

/** Minimum columns read from each matrix (MATPOWER version 2; gen needs only up to PMIN for power flow). */
export const MIN_COLUMNS = { bus: 13, gen: 10, branch: 13 } as const;

const BUS_TYPE_BY_CODE: Record<number, BusType> = { 1: 'pq', 2: 'pv', 3: 'slack', 4: 'isolated' };

/** Read a MATPOWER case (format version 2) into the network model. Throws MatpowerParseError. */
export function parseMatpower(text: string, fileName?: string): NetworkModel {
  const file = baseName(fileName);
  if (text.trim() === '')
    throw new MatpowerParseError(file, 1, 'a MATPOWER case (function mpc = NAME, mpc.bus, mpc.gen, mpc.branch)', 'an empty file');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // byte order mark
  const sc = new Scanner(text, file);
  sc.run();
  const lastLine = sc.line;
  const fail = (line: number, expected: string, found?: string): never => {
    throw new MatpowerParseError(file, line, expected, found);
  };

  // --- scalars
  const version = sc.scalars.get('version');
  if (version) {
    const v = version.text.replace(/^['"]|['"]$/g, '');
    if (v !== '2') fail(version.line, "MATPOWER case format version '2'", quoteFound(version.text));
  }
  const baseMvaS = sc.scalars.get('baseMVA');
  if (!baseMvaS) fail(lastLine, 'mpc.baseMVA = <number>;', 'end of file without it');
  const baseMva = parseNumberToken(baseMvaS!.text);
  if (!(Number.isFinite(baseMva) && baseMva > 0)) fail(baseMvaS!.line, 'a positive number for mpc.baseMVA', quoteFound(baseMvaS!.text));

  const need = (field: 'bus' | 'gen' | 'branch'): Matrix => {
    const m = sc.matrices.get(field);
    if (!m) fail(lastLine, `an mpc.${field} matrix`, 'end of file without it');
    const cols = MIN_COLUMNS[field];
    for (let r = 0; r < m!.rowStart.length; r++) {
      const width = (r + 1 < m!.rowStart.length ? m!.rowStart[r + 1]! : m!.values.length) - m!.rowStart[r]!;
      if (width < cols) fail(m!.rowLine[r]!, `${cols} numeric columns in mpc.${field} row`, String(width));
    }
    return m!;
  };
  const busM = need('bus');
  const genM = need('gen');
  const branchM = need('branch');
  if (busM.rowStart.length === 0) fail(busM.line, 'at least one row in mpc.bus', 'an empty matrix');

  // --- buses and loads
  const bv = busM.values;
  const nBus = busM.rowStart.length;
  const busLine = new Map<number, number>();
  const buses: Bus[] = new Array(nBus);
  const loads: Load[] = [];
  const names = sc.busNames;
  if (names && names.strings.length !== nBus)
    fail(names.line, `${nBus} names in mpc.bus_name (one per mpc.bus row)`, String(names.strings.length));
  for (let r = 0; r < nBus; r++) {
    const o = busM.rowStart[r]!;
    const line = busM.rowLine[r]!;
    for (let k = 0; k < MIN_COLUMNS.bus; k++) {
      if (!Number.isFinite(bv[o + k]!)) fail(line, `finite numbers in mpc.bus (column ${k + 1})`, String(bv[o + k]));
    }
    const id = bv[o]!;
    if (!(Number.isInteger(id) && id > 0)) fail(line, 'a positive integer bus number (BUS_I) in mpc.bus', String(id));
    const prev = busLine.get(id);
    if (prev !== undefined) fail(line, `a unique bus number in mpc.bus`, `bus ${id} again (first at line ${prev})`);
    busLine.set(id, line);
    const type = BUS_TYPE_BY_CODE[bv[o + 1]!];
    if (!type) fail(line, 'bus type (BUS_TYPE) 1 (PQ), 2 (PV), 3 (slack) or 4 (isolated)', String(bv[o + 1]));
    const pd = bv[o + 2]!,
      qd = bv[o + 3]!;
    const baseKv = bv[o + 9]!;
    buses[r] = {
      id,
      type: type!,
      v: bv[o + 7]!,
      theta: (bv[o + 8]! * Math.PI) / 180,
      area: bv[o + 6]!,
      gs: bv[o + 4]!,
      bs: bv[o + 5]!,
      base_kv: baseKv,
      vmin: bv[o + 12]!,
      vmax: bv[o + 11]!,
      name: names ? names.strings[r]! : '',
      zone: bv[o + 10]!,
    };
    if (pd !== 0 || qd !== 0) loads.push({ bus: id, mw: pd, mvar: qd, in_service: true });
  }
  const busRef = (m: Matrix, r: number, value: number, what: string): number => {
    if (!busLine.has(value)) fail(m.rowLine[r]!, `${what} to be a bus number of mpc.bus`, `bus ${value}, which is not in mpc.bus`);
    return value;
  };

  // --- generators
  const gv = genM.values;
  const nGen = genM.rowStart.length;
  const generators: Generator[] = new Array(nGen);
  const limit = (x: number): number | null => (Number.isFinite(x) ? x : null);
  for (let r = 0; r < nGen; r++) {
    const o = genM.rowStart[r]!;
    const line = genM.rowLine[r]!;
    for (const k of [0, 1, 2, 5, 6, 7]) {
      if (!Number.isFinite(gv[o + k]!)) fail(line, `a finite number in mpc.gen (column ${k + 1})`, String(gv[o + k]));
    }
    generators[r] = {
      bus: busRef(genM, r, gv[o]!, 'GEN_BUS in mpc.gen'),
      mw: gv[o + 1]!,
      mvar: gv[o + 2]!,
      pmin: limit(gv[o + 9]!),
      pmax: limit(gv[o + 8]!),
      qmin: limit(gv[o + 4]!),
      qmax: limit(gv[o + 3]!),
      vg: gv[o + 5]!,
      in_service: gv[o + 7]! > 0,
      cost: null,
    };
  }
  applyGencost(sc.matrices.get('gencost'), generators, fail, sc.matrices.get(EXT.withoutCost));

  // --- branches
  const brv = branchM.values;
  const nBr = branchM.rowStart.length;
  const branches: Branch[] = new Array(nBr);
  for (let r = 0; r < nBr; r++) {
    const o = branchM.rowStart[r]!;
    const line = branchM.rowLine[r]!;
    for (let k = 0; k < 11; k++) {
      if (k === 5 || k === 6 || k === 7) continue; // ratings: Inf means unlimited
      if (!Number.isFinite(brv[o + k]!)) fail(line, `a finite number in mpc.branch (column ${k + 1})`, String(brv[o + k]));
    }
    const rateA = brv[o + 5]!,
      rateB = brv[o + 6]!,
      rateC = brv[o + 7]!;
    branches[r] = {
      from: busRef(branchM, r, brv[o]!, 'F_BUS in mpc.branch'),
      to: busRef(branchM, r, brv[o + 1]!, 'T_BUS in mpc.branch'),
      r: brv[o + 2]!,
      x: brv[o + 3]!,
      b: brv[o + 4]!,
      rate_a: Number.isFinite(rateA) ? rateA : 0,
      // RATE_B / RATE_C kept only where they say something RATE_A does not (0 and equal both mean "use rate_a")
      ...(Number.isFinite(rateB) && rateB > 0 && rateB !== rateA ? { rate_b: rateB } : {}),
      ...(Number.isFinite(rateC) && rateC > 0 && rateC !== rateA ? { rate_c: rateC } : {}),
      ratio: brv[o + 8]!,
      shift: (brv[o + 9]! * Math.PI) / 180,
      status: brv[o + 10]! > 0 ? 'closed' : 'open',
      angmin: angleLimit(brv[o + 11]!, -360),
      angmax: angleLimit(brv[o + 12]!, 360),
    };
  }

  // --- DC lines (MATPOWER's idx_dcline: 17 columns; the OPF's multipliers after them are not read)
  const dcM = sc.matrices.get('dcline');
  const dcLines: DcLine[] = [];
  if (dcM) {
    for (let r = 0; r < dcM.rowStart.length; r++) {
      const o = dcM.rowStart[r]!,
        line = dcM.rowLine[r]!;
      const width = (r + 1 < dcM.rowStart.length ? dcM.rowStart[r + 1]! : dcM.values.length) - o;
      if (width < 17) fail(line, '17 numeric columns in mpc.dcline row (F_BUS ... LOSS1)', String(width));
      // limits may be +-Inf in MATPOWER; JSON (the stored model) has no infinity, so the largest double stands for it
      const v = (k: number) => {
        const x = dcM.values[o + k]!;
        return x === Infinity ? Number.MAX_VALUE : x === -Infinity ? -Number.MAX_VALUE : x;
      };
      for (const k of [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16])
        if (!Number.isFinite(v(k))) fail(line, `a finite number in mpc.dcline (column ${k + 1})`, String(v(k)));
      dcLines.push({
        from: busRef(dcM, r, v(0), 'F_BUS in mpc.dcline'),
        to: busRef(dcM, r, v(1), 'T_BUS in mpc.dcline'),
        in_service: v(2) > 0,
        p_from: v(3),
        p_to: v(4),
        q_from: v(5),
        q_to: v(6),
        v_from: v(7),
        v_to: v(8),
        pmin: v(9),
        pmax: v(10),
        qmin_from: v(11),
        qmax_from: v(12),
        qmin_to: v(13),
        qmax_to: v(14),
        loss0: v(15),
        loss1: v(16),
      });
    }
  }

  // their OPF costs (MATPOWER's mpc.dclinecost: gencost rows, one per mpc.dcline row, cost of PF)
  const dcCostM = sc.matrices.get('dclinecost');
  if (dcCostM) {
    if (dcCostM.rowStart.length !== dcLines.length) {
      fail(dcCostM.line, `${dcLines.length} rows in mpc.dclinecost (one per mpc.dcline row)`, `${dcCostM.rowStart.length} rows`);
    }
    const holders = dcLines.map(() => ({ cost: null }) as unknown as Generator);
    applyGencost(dcCostM, holders, fail, undefined, 'dclinecost');
    holders.forEach((h, k) => {
      dcLines[k]!.cost = h.cost;
    });
  }

  // --- gridops extension fields (written by writeMatpower)
  const off = sc.matrices.get(EXT.offlineLoads);
  if (off) {
    for (let r = 0; r < off.rowStart.length; r++) {
      const o = off.rowStart[r]!;
      const width = (r + 1 < off.rowStart.length ? off.rowStart[r + 1]! : off.values.length) - o;
      if (width < 3) fail(off.rowLine[r]!, `3 numeric columns (bus, Pd, Qd) in mpc.${EXT.offlineLoads} row`, String(width));
      loads.push({
        bus: busRef(off, r, off.values[o]!, `the bus in mpc.${EXT.offlineLoads}`),
        mw: off.values[o + 1]!,
        mvar: off.values[o + 2]!,
        in_service: false,
      });
    }
  }
  const maint = sc.matrices.get(EXT.maintenance);
  if (maint) {
    for (const idx of maint.values) {
      const br = Number.isInteger(idx) && idx >= 1 && idx <= nBr ? branches[idx - 1]! : undefined;
      if (!br) fail(maint.line, `branch row numbers 1..${nBr} in mpc.${EXT.maintenance}`, String(idx));
      br!.status = 'maintenance';
    }
  }

  // mpc.bus_geo = [BUS_I LAT LON]: bus coordinates (WGS84 degrees), any subset of the buses
  const geo = sc.matrices.get(EXT.busGeo);
  if (geo) {
    const at = new Map(buses.map((b, i) => [b.id, i]));
    for (let r = 0; r < geo.rowStart.length; r++) {
      const o = geo.rowStart[r]!,
        line = geo.rowLine[r]!;
      const width = (r + 1 < geo.rowStart.length ? geo.rowStart[r + 1]! : geo.values.length) - o;
      if (width < 3) fail(line, `3 numeric columns (BUS_I, LAT, LON) in mpc.${EXT.busGeo} row`, String(width));
      const bus = buses[at.get(busRef(geo, r, geo.values[o]!, `the bus in mpc.${EXT.busGeo}`))!]!;
      const lat = geo.values[o + 1]!,
        lon = geo.values[o + 2]!;
      if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180))
        fail(line, `a latitude within ±90 and a longitude within ±180 degrees in mpc.${EXT.busGeo}`, `${lat} ${lon}`);
      bus.lat = lat;
      bus.lon = lon;
    }
  }

  let name = sc.functionName ?? file.replace(/\.m$/, '');
  const extName = sc.scalars.get(EXT.name);
  if (extName) name = unquote(extName.text);
  let baseKv: number | undefined;
  const extKv = sc.scalars.get(EXT.baseKv);
  if (extKv) {
    const kv = parseNumberToken(extKv.text);
    if (!(Number.isFinite(kv) && kv > 0)) fail(extKv.line, `a positive number for mpc.${EXT.baseKv}`, quoteFound(extKv.text));
    baseKv = kv;
  }

  return importedModel({ name, description: sc.description, baseKv, baseMva, buses, branches, generators, loads, dcLines });
}

/** ANGMIN/ANGMAX in degrees; MATPOWER treats +-Inf (and |limit| >= 360) as no limit. */
function angleLimit(x: number, none: number): number {
  return Number.isFinite(x) ? x : none;
}

function unquote(s: string): string {
  const q = s[0];
  if ((q === "'" || q === '"') && s.endsWith(q) && s.length >= 2)
    return s
      .slice(1, -1)
      .split(q + q)
      .join(q);
  return s;
}
