// PSS/E tables -> the network model, as MATPOWER's psse2mpc maps them (lib/psse_convert.m,
// psse_convert_xfmr.m, psse_convert_hvdc.m at 95d5a6fa), with PSS/E's own defaults where psse2mpc
// errs (a winding NOMV of 0 is the bus base kV; a blank field takes its PSS/E default, not NaN).
// docs/network-model.md ("PSS/E RAW") lists the mapping and every warning.
import type { Branch, Bus, BusType, DcLine, Generator, Load, NetworkModel } from '../domain/networkModel.js';
import { importedModel } from '../domain/importedModel.js';
import { KIND_TITLE, type RecordKind } from './columns.js';
import { PsseParseError } from './scanner.js';
import type { CaseTables, Row, Table } from './tables.js';
import { type PsseWarning, warn } from './warnings.js';

const DEG = Math.PI / 180;
const IDE_TYPE: Record<number, BusType> = { 1: 'pq', 2: 'pv', 3: 'slack', 4: 'isolated' };

export interface PsseImport {
  model: NetworkModel;
  warnings: PsseWarning[];
  revision: number;
  format: 'psse' | 'rawx';
}

/** Sections the model cannot hold: named in the warnings when they have records. */
const NOT_MODELLED: Partial<Record<RecordKind, { code: string; what: string }>> = {
  vscdc: { code: 'VSC_DC_NOT_MODELLED', what: 'VSC DC lines are not in the network model: left out' },
  impcor: { code: 'IMPEDANCE_CORRECTION_NOT_APPLIED', what: 'transformer impedance correction tables are not applied (as psse2mpc)' },
  ntermdc: { code: 'MULTI_TERMINAL_DC_NOT_MODELLED', what: 'multi-terminal DC lines are not in the network model: left out' },
  msline: {
    code: 'MULTI_SECTION_LINE_GROUPING_IGNORED',
    what: 'multi-section line groupings are not kept (their sections are read as branches)',
  },
  facts: { code: 'FACTS_NOT_MODELLED', what: 'FACTS devices are not in the network model: left out' },
  gne: { code: 'GNE_NOT_MODELLED', what: 'GNE devices are not in the network model: left out' },
  indmach: { code: 'INDUCTION_MACHINE_NOT_MODELLED', what: 'induction machines are not in the network model: left out' },
  sub: { code: 'SUBSTATION_DATA_IGNORED', what: 'substation (node-breaker) records are not read: the bus-branch model is used' },
  iatrans: { code: 'INTER_AREA_TRANSFER_IGNORED', what: 'inter-area transfers are schedules, not network elements: not kept' },
};

class Reader {
  readonly warnings: PsseWarning[];
  constructor(readonly t: CaseTables) {
    this.warnings = t.warnings;
  }

  where(table: Table | RecordKind, row: Row): { line: number; record: string } {
    const kind = typeof table === 'string' ? table : table.kind;
    const rawx = this.t.format === 'rawx';
    return { line: row.line, record: rawx ? `RAWX ${kind} row ${row.line}` : `${KIND_TITLE[kind]} record` };
  }

  fail(kind: RecordKind, row: Row, expected: string, found?: string): never {
    const w = this.where(kind, row);
    throw new PsseParseError(w.line, w.record, expected, found);
  }

  /** A numeric field; blank or absent takes `def` (PSS/E's default), noted when psse2mpc would read NaN. */
  num(kind: RecordKind, row: Row, name: string, def: number, psse2mpcReads = true): number {
    const k = row.cols.get(name);
    const v = k === undefined ? undefined : row.fields[k];
    if (v === undefined || v === null || v === '') {
      if (psse2mpcReads && this.t.format === 'psse' && k !== undefined) {
        warn(this.warnings, 'BLANK_FIELD_DEFAULT', 'blank fields read with their PSS/E default (psse2mpc reads them as NaN)', row.line);
      }
      return def;
    }
    if (typeof v === 'number') return v;
    const x = Number(v);
    if (!Number.isFinite(x)) this.fail(kind, row, `a number for ${name.toUpperCase()}`, `'${v.length > 24 ? `${v.slice(0, 24)}...` : v}'`);
    return x;
  }

  int(kind: RecordKind, row: Row, name: string, def: number): number {
    const x = this.num(kind, row, name, def);
    if (!Number.isInteger(x)) this.fail(kind, row, `an integer for ${name.toUpperCase()}`, String(x));
    return x;
  }

  text(row: Row, name: string): string {
    const k = row.cols.get(name);
    const v = k === undefined ? undefined : row.fields[k];
    return v === undefined || v === null ? '' : String(v).trim();
  }

  rows(kind: RecordKind): Row[] {
    return this.t.tables.get(kind)?.rows ?? [];
  }
}

export function mapCase(t: CaseTables, name: string): PsseImport {
  const rd = new Reader(t);
  const baseMva = t.sbase;
  const rev = t.rev;

  // ---- buses, sorted by number as psse2mpc sorts them
  const busRows = rd.rows('bus');
  if (busRows.length === 0) throw new PsseParseError(1, 'bus data', 'at least one bus record', 'none');
  const buses: Bus[] = [];
  const busLine = new Map<number, number>();
  for (const row of busRows) {
    const id = rd.int('bus', row, 'ibus', NaN);
    if (!(id > 0)) rd.fail('bus', row, 'a positive bus number (I)', String(id));
    const first = busLine.get(id);
    if (first !== undefined) rd.fail('bus', row, 'a bus number used once', `bus ${id} again (first at line ${first})`);
    busLine.set(id, row.line);
    const ide = rd.int('bus', row, 'ide', 1);
    const type = IDE_TYPE[ide];
    if (!type) rd.fail('bus', row, 'a bus type (IDE) 1, 2, 3 or 4', String(ide));
    buses.push({
      id,
      type: type!,
      v: rd.num('bus', row, 'vm', 1),
      theta: rd.num('bus', row, 'va', 0) * DEG,
      area: rd.num('bus', row, 'area', 1),
      zone: rd.num('bus', row, 'zone', 1),
      gs: rev <= 30 ? rd.num('bus', row, 'gl', 0) : 0,
      bs: rev <= 30 ? rd.num('bus', row, 'bl', 0) : 0,
      base_kv: rd.num('bus', row, 'baskv', 0),
      vmax: rd.num('bus', row, 'nvhi', 1.1, false),
      vmin: rd.num('bus', row, 'nvlo', 0.9, false),
      name: rd.text(row, 'name'),
    });
  }
  buses.sort((a, b) => a.id - b.id);
  const at = new Map<number, Bus>();
  for (const b of buses) at.set(b.id, b);
  const busOf = (kind: RecordKind, row: Row, field: string, what: string): Bus => {
    const id = Math.abs(rd.int(kind, row, field, NaN));
    const b = at.get(id);
    if (!b) rd.fail(kind, row, `${what} (${field.toUpperCase()}) to be a bus of the bus data`, `bus ${id}`);
    return b!;
  };

  // ---- loads: constant power, current and admittance parts at the bus's RAW voltage, summed per bus
  const loadP = new Map<number, number>(),
    loadQ = new Map<number, number>();
  const loads: Load[] = [];
  for (const row of rd.rows('load')) {
    const b = busOf('load', row, 'ibus', 'the load bus');
    const stat = rd.num('load', row, 'stat', 1);
    const ip = rd.num('load', row, 'ip', 0),
      iq = rd.num('load', row, 'iq', 0),
      yp = rd.num('load', row, 'yp', 0),
      yq = rd.num('load', row, 'yq', 0);
    const p = rd.num('load', row, 'pl', 0) + ip * b.v + yp * b.v * b.v;
    const q = rd.num('load', row, 'ql', 0) + iq * b.v - yq * b.v * b.v;
    if (ip !== 0 || iq !== 0 || yp !== 0 || yq !== 0) {
      warn(
        rd.warnings,
        'ZIP_LOAD_AS_CONSTANT_POWER',
        "constant-current and constant-admittance load parts are converted to constant power at the bus's RAW voltage (as psse2mpc)",
        row.line,
      );
    }
    if (stat === 0) {
      loads.push({ bus: b.id, mw: p, mvar: q, in_service: false });
      continue;
    }
    loadP.set(b.id, (loadP.get(b.id) ?? 0) + p);
    loadQ.set(b.id, (loadQ.get(b.id) ?? 0) + q);
  }
  for (const b of buses) {
    const p = loadP.get(b.id),
      q = loadQ.get(b.id);
    if (p !== undefined && (p !== 0 || q !== 0)) loads.push({ bus: b.id, mw: p, mvar: q!, in_service: true });
  }

  // ---- fixed shunts (revision 31 on; before, GL and BL are bus fields)
  for (const row of rd.rows('fixshunt')) {
    const b = busOf('fixshunt', row, 'ibus', 'the shunt bus');
    if (rd.num('fixshunt', row, 'stat', 1) === 0) continue;
    b.gs += rd.num('fixshunt', row, 'gl', 0);
    b.bs += rd.num('fixshunt', row, 'bl', 0);
  }

  // ---- generators, in file order
  const generators: Generator[] = [];
  for (const row of rd.rows('generator')) {
    const b = busOf('generator', row, 'ibus', 'the generator bus');
    const ireg = rd.num('generator', row, 'ireg', 0, false);
    if (ireg !== 0 && ireg !== b.id)
      warn(
        rd.warnings,
        'REMOTE_REGULATION_IGNORED',
        'generators regulating a remote bus (IREG) hold their own bus voltage (as psse2mpc)',
        row.line,
      );
    generators.push({
      bus: b.id,
      mw: rd.num('generator', row, 'pg', 0),
      mvar: rd.num('generator', row, 'qg', 0),
      qmax: rd.num('generator', row, 'qt', 9999),
      qmin: rd.num('generator', row, 'qb', -9999),
      vg: rd.num('generator', row, 'vs', 1),
      in_service: rd.num('generator', row, 'stat', 1) > 0,
      pmax: rd.num('generator', row, 'pt', 9999),
      pmin: rd.num('generator', row, 'pb', -9999),
      cost: null,
    });
  }

  // ---- lines, with their end shunts added to the buses when in service
  const branches: Branch[] = [];
  const circuits = new Set<string>();
  const lineBranch = (
    from: number,
    to: number,
    r: number,
    x: number,
    bch: number,
    rates: [number, number, number],
    closed: boolean,
  ): Branch => ({
    from,
    to,
    r,
    x,
    b: bch,
    rate_a: rates[0],
    ...(rates[1] > 0 && rates[1] !== rates[0] ? { rate_b: rates[1] } : {}),
    ...(rates[2] > 0 && rates[2] !== rates[0] ? { rate_c: rates[2] } : {}),
    ratio: 0,
    shift: 0,
    status: closed ? 'closed' : 'open',
    angmin: -360,
    angmax: 360,
  });
  const circuit = (kind: RecordKind, row: Row, ends: number[]) => {
    const ckt = rd.text(row, 'ckt') || '1';
    const key =
      ends.length === 2
        ? `${kind}:${Math.min(ends[0]!, ends[1]!)}-${Math.max(ends[0]!, ends[1]!)}/${ckt}`
        : `${kind}:${[...ends].sort((x, y) => x - y).join('-')}/${ckt}`;
    if (circuits.has(key))
      warn(rd.warnings, 'PARALLEL_SAME_CIRCUIT', 'parallel branches with the same circuit identifier are all kept', row.line);
    circuits.add(key);
  };
  for (const row of rd.rows('acline')) {
    const f = busOf('acline', row, 'ibus', 'the from bus'),
      to = busOf('acline', row, 'jbus', 'the to bus');
    circuit('acline', row, [f.id, to.id]);
    const closed = rd.num('acline', row, 'stat', 1) !== 0;
    const rate = (k: number) => rd.num('acline', row, `rate${k}`, 0);
    branches.push(
      lineBranch(
        f.id,
        to.id,
        rd.num('acline', row, 'rpu', 0),
        rd.num('acline', row, 'xpu', NaN),
        rd.num('acline', row, 'bpu', 0),
        [rate(1), rate(2), rate(3)],
        closed,
      ),
    );
    if (Number.isNaN(branches[branches.length - 1]!.x)) rd.fail('acline', row, 'a branch reactance X', 'a blank field');
    if (closed) {
      f.gs += rd.num('acline', row, 'gi', 0) * baseMva;
      f.bs += rd.num('acline', row, 'bi', 0) * baseMva;
      to.gs += rd.num('acline', row, 'gj', 0) * baseMva;
      to.bs += rd.num('acline', row, 'bj', 0) * baseMva;
    }
  }
  // ---- system switching devices (revision 34 on): branches of their (small) reactance
  for (const row of rd.rows('sysswd')) {
    const f = busOf('sysswd', row, 'ibus', 'the from bus'),
      to = busOf('sysswd', row, 'jbus', 'the to bus');
    const rate = (k: number) => rd.num('sysswd', row, `rate${k}`, 0, false);
    branches.push(
      lineBranch(
        f.id,
        to.id,
        0,
        rd.num('sysswd', row, 'xpu', 0.0001, false),
        0,
        [rate(1), rate(2), rate(3)],
        rd.num('sysswd', row, 'stat', 1, false) !== 0,
      ),
    );
    warn(
      rd.warnings,
      'SWITCHING_DEVICE_AS_BRANCH',
      'system switching devices are branches of their reactance X (default 0.0001 p.u.)',
      row.line,
    );
  }

  // ---- transformers: 2-winding ones in file order, then the 3-winding ones (three branches each)
  const xfRows = rd.rows('transformer');
  const two = xfRows.filter((r) => !threeWindingRow(rd, r));
  const three = xfRows.filter((r) => threeWindingRow(rd, r));
  const zBase = (b: Bus) => (b.base_kv * b.base_kv) / baseMva;
  /** winding nominal kV: NOMV, or the bus base kV when 0 (PSS/E; psse2mpc takes 0 kV) */
  const nomv = (row: Row, w: number, b: Bus, used: boolean): number => {
    const v = rd.num('transformer', row, `nomv${w}`, 0);
    if (v !== 0) return v;
    if (used)
      warn(rd.warnings, 'NOMV_ZERO_IS_BUS_BASE_KV', 'a winding NOMV of 0 is the bus base kV (PSS/E); psse2mpc takes 0 kV', row.line);
    return b.base_kv;
  };
  /** R, X of a winding pair in p.u. on the system base, by CZ (psse_convert_xfmr.m) */
  const impedance = (row: Row, cz: number, rName: string, xName: string, sbName: string, nominalKv: number, bus: Bus): [number, number] => {
    let r = rd.num('transformer', row, rName, 0),
      x = rd.num('transformer', row, xName, NaN);
    if (Number.isNaN(x)) rd.fail('transformer', row, `a reactance ${xName.toUpperCase()}`, 'a blank field');
    if (cz === 1) return [r, x];
    const sb = rd.num('transformer', row, sbName, baseMva);
    if (cz === 3) {
      r = (1e-6 * r) / sb;
      x = Math.sqrt(x * x - r * r);
    }
    const k = (nominalKv * nominalKv) / sb / zBase(bus);
    return [r * k, x * k];
  };
  const magnetizing = (row: Row) => {
    if (rd.num('transformer', row, 'mag1', 0, false) !== 0 || rd.num('transformer', row, 'mag2', 0, false) !== 0) {
      warn(
        rd.warnings,
        'MAGNETIZING_ADMITTANCE_IGNORED',
        'transformer magnetizing admittances (MAG1, MAG2) are left out (as psse2mpc)',
        row.line,
      );
    }
  };
  /** CW and CZ; any other value than 2 or 3 reads as 1, as psse2mpc reads it */
  const codes = (row: Row) => {
    const code = (n: string) => {
      const v = rd.int('transformer', row, n, 1);
      return v === 2 || v === 3 ? v : 1;
    };
    return { cw: code('cw'), cz: code('cz') };
  };
  const rates = (row: Row, w: number): [number, number, number] =>
    [1, 2, 3].map((k) => rd.num('transformer', row, `wdg${w}rate${k}`, 0)) as [number, number, number];
  for (const row of two) {
    const f = busOf('transformer', row, 'ibus', 'winding 1 bus'),
      to = busOf('transformer', row, 'jbus', 'winding 2 bus');
    circuit('transformer', row, [f.id, to.id]);
    magnetizing(row);
    const { cw, cz } = codes(row);
    const nom1 = nomv(row, 1, f, cz !== 1 || cw === 3),
      nom2 = nomv(row, 2, to, cw === 3);
    const [r, x] = impedance(row, cz, 'r1_2', 'x1_2', 'sbase1_2', nom1, f);
    const w1 = rd.num('transformer', row, 'windv1', cw === 2 ? f.base_kv : 1),
      w2 = rd.num('transformer', row, 'windv2', cw === 2 ? to.base_kv : 1);
    let tap = w1 / w2;
    if (cw !== 1) tap *= to.base_kv / f.base_kv;
    if (cw === 3) tap *= nom1 / nom2;
    const closed = rd.num('transformer', row, 'stat', 1) !== 0;
    const br = lineBranch(f.id, to.id, r, x, 0, rates(row, 1), closed);
    br.ratio = tap;
    br.shift = rd.num('transformer', row, 'ang1', 0) * DEG;
    branches.push(br);
  }
  const starBase = three.length > 0 ? 10 ** Math.ceil(Math.log10(buses[buses.length - 1]!.id + 1)) : 0;
  three.forEach((row, k) => {
    const wb = [
      busOf('transformer', row, 'ibus', 'winding 1 bus'),
      busOf('transformer', row, 'jbus', 'winding 2 bus'),
      busOf('transformer', row, 'kbus', 'winding 3 bus'),
    ];
    circuit(
      'transformer',
      row,
      wb.map((b) => b.id),
    );
    magnetizing(row);
    const { cw, cz } = codes(row);
    const nom = wb.map((b, i) => nomv(row, i + 1, b, cz !== 1 || cw === 3));
    const [r12, x12] = impedance(row, cz, 'r1_2', 'x1_2', 'sbase1_2', nom[0]!, wb[0]!);
    const [r23, x23] = impedance(row, cz, 'r2_3', 'x2_3', 'sbase2_3', nom[1]!, wb[1]!);
    const [r31, x31] = impedance(row, cz, 'r3_1', 'x3_1', 'sbase3_1', nom[2]!, wb[2]!);
    const rx: [number, number][] = [
      [(r12 + r31 - r23) / 2, (x12 + x31 - x23) / 2],
      [(r12 + r23 - r31) / 2, (x12 + x23 - x31) / 2],
      [(r31 + r23 - r12) / 2, (x31 + x23 - x12) / 2],
    ];
    const stat = rd.num('transformer', row, 'stat', 1);
    const star: Bus = {
      id: starBase + k + 1,
      type: stat === 0 ? 'isolated' : 'pq',
      v: rd.num('transformer', row, 'vmstar', 1),
      theta: rd.num('transformer', row, 'anstar', 0) * DEG,
      area: wb[0]!.area,
      zone: wb[0]!.zone,
      gs: 0,
      bs: 0,
      base_kv: 1,
      vmax: 1.1,
      vmin: 0.9,
      name: `STR_PT_XF_${k + 1}`,
    };
    buses.push(star);
    const windingOff = [stat === 0 || stat === 4, stat === 0 || stat === 2, stat === 0 || stat === 3];
    for (let w = 0; w < 3; w++) {
      const b = wb[w]!;
      let tap = rd.num('transformer', row, `windv${w + 1}`, cw === 2 ? b.base_kv : 1);
      if (cw !== 1) tap /= b.base_kv;
      if (cw === 3) tap *= nom[w]!;
      const br = lineBranch(b.id, star.id, rx[w]![0], rx[w]![1], 0, rates(row, w + 1), !windingOff[w]);
      br.ratio = tap;
      br.shift = rd.num('transformer', row, `ang${w + 1}`, 0) * DEG;
      branches.push(br);
    }
  });

  // ---- switched shunts at their present susceptance BINIT
  for (const row of rd.rows('swshunt')) {
    const b = busOf('swshunt', row, 'ibus', 'the shunt bus');
    const binit = rd.num('swshunt', row, 'binit', 0);
    if (rd.num('swshunt', row, 'stat', 1, false) === 0) {
      warn(rd.warnings, 'SWITCHED_SHUNT_OUT_OF_SERVICE', 'switched shunts with STAT 0 are left out (PSS/E); psse2mpc adds them', row.line);
      continue;
    }
    b.bs += binit;
    warn(
      rd.warnings,
      'SWITCHED_SHUNT_AT_BINIT',
      'switched shunts are fixed at their present susceptance BINIT, without voltage control (as psse2mpc)',
      row.line,
    );
  }

  // ---- two-terminal HVDC as MATPOWER DC lines (psse_convert_hvdc.m)
  const dcLines: DcLine[] = [];
  for (const row of rd.rows('twotermdc')) {
    const rect = busOf('twotermdc', row, 'ipr', 'the rectifier bus'),
      inv = busOf('twotermdc', row, 'ipi', 'the inverter bus');
    const mdc = rd.num('twotermdc', row, 'mdc', 0);
    const setvl = Math.abs(rd.num('twotermdc', row, 'setvl', 0));
    const p = mdc === 1 ? setvl : mdc === 2 ? (setvl * rd.num('twotermdc', row, 'vschd', 0)) / 1000 : 0;
    const [qminf, qmaxf] = hvdcQLimits(rd.num('twotermdc', row, 'anmxr', 0), rd.num('twotermdc', row, 'anmnr', 0), p);
    const [qmint, qmaxt] = hvdcQLimits(rd.num('twotermdc', row, 'anmxi', 0), rd.num('twotermdc', row, 'anmni', 0), p);
    dcLines.push({
      from: rect.id,
      to: inv.id,
      in_service: mdc !== 0,
      p_from: p,
      p_to: p,
      q_from: 0,
      q_to: 0,
      v_from: rect.v,
      v_to: inv.v,
      pmin: 0.85 * p,
      pmax: 1.15 * p,
      qmin_from: qminf,
      qmax_from: qmaxf,
      qmin_to: qmint,
      qmax_to: qmaxt,
      loss0: 0,
      loss1: 0,
    });
    warn(
      rd.warnings,
      'TWO_TERMINAL_DC_AS_DC_LINE',
      'two-terminal HVDC lines are MATPOWER DC lines at their scheduled power, without converter models (as psse2mpc)',
      row.line,
    );
  }

  for (const [kind, w] of Object.entries(NOT_MODELLED) as [RecordKind, { code: string; what: string }][]) {
    const rows = rd.rows(kind);
    if (rows.length > 0) warn(rd.warnings, w.code, `${KIND_TITLE[kind]}: ${w.what}`, rows[0]!.line, recordCount(kind, rows.length));
  }

  const model = importedModel({ name, description: t.title.slice(0, 256), baseMva, buses, branches, generators, loads, dcLines });
  return { model, warnings: rd.warnings, revision: rev, format: t.format };
}

/** Multi-line records are counted once (VSC: 3 lines, multi-terminal DC and the rest are as read). */
function recordCount(kind: RecordKind, lines: number): number {
  return kind === 'vscdc' ? Math.max(1, Math.round(lines / 3)) : lines;
}

function threeWindingRow(rd: Reader, row: Row): boolean {
  if (row.threeWinding !== undefined) return row.threeWinding;
  return rd.num('transformer', row, 'kbus', 0, false) !== 0;
}

/** Reactive limits of an HVDC converter from its firing angle limits (psse_convert_hvdc_Qlims). */
function hvdcQLimits(alphaMax: number, alphaMin: number, p: number): [number, number] {
  const qmin = Math.abs(p * Math.tan(alphaMin * DEG));
  const phi = Math.acos(0.5 * (Math.cos(alphaMax * DEG) + Math.cos(60 * DEG)));
  return [qmin, Math.abs(p * Math.tan(phi))];
}
