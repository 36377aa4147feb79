// The network model -> PSS/E RAW revision 33, laid out as MATPOWER's save2psse writes it: one load
// per load, the bus shunts as fixed shunts, branches without ratio or shift as lines, the others as
// 2-winding transformers (CW = CZ = CM = 1: p.u. on the system base, WINDV1 the ratio), DC lines as
// two-terminal DC lines in power control (MDC 1, SETVL the MW taken at `from`). Reading it back
// (./reader.ts) gives a network whose buses solve to the same answer; what RAW has no field for
// (branch angle limits, maintenance as distinct from open, costs, DC line losses, limits and voltage
// set points, a transformer's line charging except as bus shunts) is not kept.
import type { NetworkModel } from '../domain/networkModel.js';

const IDE = { pq: 1, pv: 2, slack: 3, isolated: 4 } as const;
const DEG = 180 / Math.PI;

/** A number as RAW text: shortest exact form (round trips bit for bit). */
const n = (x: number) => (Number.isFinite(x) ? String(x) : '0');
/** Quoted PSS/E text (at most 12 characters for names, as PSS/E). */
const q = (s: string, width = 12) => `'${s.replace(/'/g, ' ').slice(0, width)}'`;

/** Circuit identifiers 1, 2, ... per pair of buses, whichever way round (save2psse's generate_ckt_num). */
function circuits(pairs: [number, number][]): string[] {
  const seen = new Map<string, number>();
  return pairs.map(([a, b]) => {
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    return String(k);
  });
}

/** Firing angle limits (degrees) whose reactive limits, as the reader derives them (psse2mpc's
 *  psse_convert_hvdc_Qlims), are the DC line's: they decide how a bus's MVAr is shared among its
 *  generators and DC line ends. save2psse's 25 / 15 degrees where no angles give them. */
function firingAngles(p: number, qmin: number, qmax: number): [number, number] {
  if (!(p > 0) || !(qmin >= 0) || !(qmax >= 0)) return [25, 15];
  const cosMax = 2 * Math.cos(Math.atan(qmax / p)) - 0.5;
  if (!(cosMax >= -1 && cosMax <= 1)) return [25, 15];
  return [Math.acos(cosMax) * DEG, Math.atan(qmin / p) * DEG];
}

export function writePsse(m: NetworkModel): string {
  const out: string[] = [];
  const title = m.name.replace(/[\r\n]/g, ' ').slice(0, 60);
  out.push(`0, ${n(m.base_mva)}, 33, 0, 0, 60  / PSS/E-33 RAW written by gridops`);
  out.push(title);
  out.push(m.description.replace(/[\r\n]/g, ' ').slice(0, 60));
  const busOf = new Map(m.buses.map((b) => [b.id, b]));
  // buses: I, 'NAME', BASKV, IDE, AREA, ZONE, OWNER, VM, VA, NVHI, NVLO, EVHI, EVLO
  for (const b of m.buses) {
    out.push(
      `${b.id}, ${q(b.name)}, ${n(b.base_kv)}, ${IDE[b.type]}, ${n(b.area)}, ${n(b.zone)}, 1, ${n(b.v)}, ${n(b.theta * DEG)}, `
        + `${n(b.vmax)}, ${n(b.vmin)}, ${n(b.vmax)}, ${n(b.vmin)}`,
    );
  }
  out.push('0 / END OF BUS DATA, BEGIN LOAD DATA');
  // loads: I, ID, STATUS, AREA, ZONE, PL, QL, IP, IQ, YP, YQ, OWNER, SCALE, INTRPT
  const loadIds = new Map<number, number>();
  for (const l of m.loads) {
    const id = (loadIds.get(l.bus) ?? 0) + 1;
    loadIds.set(l.bus, id);
    const b = busOf.get(l.bus);
    out.push(
      `${l.bus}, '${id}', ${l.in_service ? 1 : 0}, ${n(b?.area ?? 1)}, ${n(b?.zone ?? 1)}, ${n(l.mw)}, ${n(l.mvar)}, 0, 0, 0, 0, 1, 1, 0`,
    );
  }
  out.push('0 / END OF LOAD DATA, BEGIN FIXED SHUNT DATA');
  for (const b of m.buses) if (b.gs !== 0 || b.bs !== 0) out.push(`${b.id}, '1', 1, ${n(b.gs)}, ${n(b.bs)}`);
  // A transformer's line charging B has no field in RAW: its two halves become fixed shunts at the
  // ends (the from half seen through the tap, as MATPOWER's branch model has it), so the buses solve
  // the same; the transformer's own flows then leave the charging out.
  for (const br of m.branches) {
    if ((br.ratio === 0 && br.shift === 0) || br.b === 0 || br.status !== 'closed') continue;
    const tap = br.ratio === 0 ? 1 : br.ratio;
    out.push(`${br.from}, 'TC', 1, 0, ${n((br.b / 2 / (tap * tap)) * m.base_mva)}`);
    out.push(`${br.to}, 'TC', 1, 0, ${n((br.b / 2) * m.base_mva)}`);
  }
  out.push('0 / END OF FIXED SHUNT DATA, BEGIN GENERATOR DATA');
  // generators: I, ID, PG, QG, QT, QB, VS, IREG, MBASE, ZR, ZX, RT, XT, GTAP, STAT, RMPCT, PT, PB, O1, F1
  const genIds = new Map<number, number>();
  for (const g of m.generators) {
    const id = (genIds.get(g.bus) ?? 0) + 1;
    genIds.set(g.bus, id);
    out.push(
      `${g.bus}, '${id}', ${n(g.mw)}, ${n(g.mvar)}, ${n(g.qmax ?? 9999)}, ${n(g.qmin ?? -9999)}, ${n(g.vg)}, 0, ${n(m.base_mva)}, 0, 1, 0, 0, 1, `
        + `${g.in_service ? 1 : 0}, 100, ${n(g.pmax ?? 9999)}, ${n(g.pmin ?? -9999)}, 1, 1`,
    );
  }
  out.push('0 / END OF GENERATOR DATA, BEGIN BRANCH DATA');
  const isLine = (br: NetworkModel['branches'][number]) => br.ratio === 0 && br.shift === 0;
  const lines = m.branches.filter(isLine),
    xfmrs = m.branches.filter((br) => !isLine(br));
  const st = (s: string) => (s === 'closed' ? 1 : 0);
  // lines: I, J, CKT, R, X, B, RATEA, RATEB, RATEC, GI, BI, GJ, BJ, ST, MET, LEN, O1, F1
  const lineCkt = circuits(lines.map((br) => [br.from, br.to]));
  lines.forEach((br, k) => {
    out.push(
      `${br.from}, ${br.to}, '${lineCkt[k]}', ${n(br.r)}, ${n(br.x)}, ${n(br.b)}, ${n(br.rate_a)}, ${n(br.rate_b ?? 0)}, ${n(br.rate_c ?? 0)}, `
        + `0, 0, 0, 0, ${st(br.status)}, 1, 0, 1, 1`,
    );
  });
  out.push('0 / END OF BRANCH DATA, BEGIN TRANSFORMER DATA');
  // 2-winding transformers, four lines each (CW = CZ = CM = 1)
  const xfCkt = circuits(xfmrs.map((br) => [br.from, br.to]));
  xfmrs.forEach((br, k) => {
    out.push(`${br.from}, ${br.to}, 0, '${xfCkt[k]}', 1, 1, 1, 0, 0, 2, '            ', ${st(br.status)}, 1, 1`);
    out.push(`${n(br.r)}, ${n(br.x)}, ${n(m.base_mva)}`);
    out.push(
      `${n(br.ratio === 0 ? 1 : br.ratio)}, 0, ${n(br.shift * DEG)}, ${n(br.rate_a)}, ${n(br.rate_b ?? 0)}, ${n(br.rate_c ?? 0)}, `
        + '0, 0, 1.1, 0.9, 1.1, 0.9, 33, 0, 0, 0',
    );
    out.push('1, 0');
  });
  out.push('0 / END OF TRANSFORMER DATA, BEGIN AREA DATA');
  out.push('0 / END OF AREA DATA, BEGIN TWO-TERMINAL DC DATA');
  (m.dc_lines ?? []).forEach((d, k) => {
    const kv = (id: number) => n(busOf.get(id)?.base_kv ?? 0);
    out.push(`${q(`DCLINE ${k + 1}`)}, ${d.in_service ? 1 : 0}, 0.0, ${n(d.p_from)}, 500, 0.0, 0.0, 0.0, 'I', 0.0, 20, 1.0`);
    const [amaxF, aminF] = firingAngles(d.p_from, d.qmin_from, d.qmax_from),
      [amaxT, aminT] = firingAngles(d.p_from, d.qmin_to, d.qmax_to);
    out.push(`${d.from}, 1, ${n(amaxF)}, ${n(aminF)}, 0, 0, ${kv(d.from)}, 1.0, 1.0, 1.5, 0.51, 0.00625, 0, 0, 0, '1', 0.0`);
    out.push(`${d.to}, 1, ${n(amaxT)}, ${n(aminT)}, 0, 0, ${kv(d.to)}, 1.0, 1.0, 1.5, 0.51, 0.00625, 0, 0, 0, '1', 0.0`);
  });
  const rest = [
    'TWO-TERMINAL DC',
    'VOLTAGE SOURCE CONVERTER',
    'IMPEDANCE CORRECTION',
    'MULTI-TERMINAL DC',
    'MULTI-SECTION LINE',
    'ZONE',
    'INTER-AREA TRANSFER',
    'OWNER',
    'FACTS CONTROL DEVICE',
    'SWITCHED SHUNT',
    'GNE DEVICE',
    'INDUCTION MACHINE',
  ];
  for (let k = 0; k < rest.length; k++) out.push(`0 / END OF ${rest[k]} DATA${k + 1 < rest.length ? `, BEGIN ${rest[k + 1]} DATA` : ''}`);
  out.push('Q');
  return `${out.join('\n')}\n`;
}
