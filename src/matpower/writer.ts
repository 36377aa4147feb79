// MATPOWER case format version 2 writer: the inverse of ./reader.ts.
//
// What MATPOWER cannot express is written as extra `mpc.gridops_*` fields,
// which MATPOWER's loadcase keeps and runpf ignores, and which parseMatpower
// reads back, so nothing is silently lost (docs/network-model.md):
//   mpc.gridops_name               the network name when it is not a valid MATLAB identifier
//   mpc.gridops_base_kv            the network base_kv when it is not the most common bus BASE_KV
//   mpc.gridops_offline_loads      out-of-service loads [bus Pd Qd] (MATPOWER has loads per bus, always on)
//   mpc.gridops_branch_maintenance branch rows (1-based) whose status is 'maintenance' (BR_STATUS 0)
//   mpc.gridops_gen_without_cost   mpc.gencost rows (1-based) that are placeholders for an absent cost
// Network tags have no MATPOWER equivalent and are not written.
// In-service loads are summed per bus into PD/QD; several loads at one bus read back as one.

import type { Generator, NetworkModel } from '../domain/networkModel.js';
import { mostCommonBaseKv } from '../domain/importedModel.js';
import { EXT } from './scanner.js';
import { gencostRows } from './gencost.js';

/** Shortest round-trip representation; keeps -0 and writes infinities the MATLAB way. */
function num(x: number): string {
  if (x === Infinity || x === Number.MAX_VALUE) return 'Inf';
  if (x === -Infinity || x === -Number.MAX_VALUE) return '-Inf';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

const BUS_TYPE_CODE: Record<string, number> = { pq: 1, pv: 2, slack: 3, isolated: 4 };

/** A MATLAB identifier for the function line (letters, digits, underscores, starting with a letter, <= 63 chars). */
export function matlabIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z]/.test(id)) id = `case_${id}`;
  return id.slice(0, 63);
}

function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Comment text on one line: no newlines (they would end the comment). */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}

/** Branch flows of a solved case (MW, MVAr), in branch order: MATPOWER's PF, QF, PT, QT columns. */
export interface BranchFlows {
  p_from: number;
  q_from: number;
  p_to: number;
  q_to: number;
}

/**
 * The network as a MATPOWER version 2 case file. With `flows` (a solved case, see
 * src/domain/resultExport.ts) the branch rows carry PF, QF, PT, QT as columns 14-17,
 * as MATPOWER's savecase writes the result of runpf.
 */
export function writeMatpower(network: NetworkModel, flows?: readonly BranchFlows[], note?: string): string {
  const fname = matlabIdentifier(network.name);
  const out: string[] = [];
  const push = (s: string) => out.push(s);
  const desc = oneLine(network.description).trim();
  push(`function mpc = ${fname}`);
  // H1 line: the reader takes the description from here (dropping the leading function name).
  push(`%${fname.toUpperCase()}${desc ? `  ${desc}` : ''}`);
  push('%   Written by gridops (MATPOWER case format version 2).');
  if (note) push(`%   ${oneLine(note)}`);
  push('');
  push('%% MATPOWER Case Format : Version 2');
  push("mpc.version = '2';");
  push('');
  push('%%-----  Power Flow Data  -----%%');
  push('%% system MVA base');
  push(`mpc.baseMVA = ${num(network.base_mva)};`);
  push('');

  // loads per bus: in service ones are summed into PD/QD
  const pd = new Map<number, number>();
  const qd = new Map<number, number>();
  const offline = [];
  for (const l of network.loads) {
    if (l.in_service) {
      // start from the first load's value, not 0, so that a lone -0 stays -0 (0 + -0 is 0)
      const p = pd.get(l.bus), q = qd.get(l.bus);
      pd.set(l.bus, p === undefined ? l.mw : p + l.mw);
      qd.set(l.bus, q === undefined ? l.mvar : q + l.mvar);
    } else {
      offline.push(l);
    }
  }

  push('%% bus data');
  push('%\tbus_i\ttype\tPd\tQd\tGs\tBs\tarea\tVm\tVa\tbaseKV\tzone\tVmax\tVmin');
  push('mpc.bus = [');
  for (const b of network.buses) {
    const code = BUS_TYPE_CODE[b.type];
    if (code === undefined) throw new Error(`bus ${b.id}: unknown bus type ${String(b.type)}`);
    push(`\t${[b.id, code, pd.get(b.id) ?? 0, qd.get(b.id) ?? 0, b.gs, b.bs, b.area, b.v, b.theta * 180 / Math.PI,
      b.base_kv, b.zone, b.vmax, b.vmin].map(num).join('\t')};`);
  }
  push('];');
  push('');

  push('%% generator data');
  push('%\tbus\tPg\tQg\tQmax\tQmin\tVg\tmBase\tstatus\tPmax\tPmin\tPc1\tPc2\tQc1min\tQc1max\tQc2min\tQc2max\tramp_agc\tramp_10\tramp_30\tramp_q\tapf');
  push('mpc.gen = [');
  for (const g of network.generators) {
    push(`\t${[g.bus, g.mw, g.mvar, g.qmax ?? Infinity, g.qmin ?? -Infinity, g.vg, network.base_mva, g.in_service ? 1 : 0,
      g.pmax ?? Infinity, g.pmin ?? -Infinity, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].map(num).join('\t')};`);
  }
  push('];');
  push('');

  push('%% branch data');
  if (flows && flows.length !== network.branches.length) throw new Error(`${flows.length} branch flows for ${network.branches.length} branches`);
  push(`%\tfbus\ttbus\tr\tx\tb\trateA\trateB\trateC\tratio\tangle\tstatus\tangmin\tangmax${flows ? '\tPf\tQf\tPt\tQt' : ''}`);
  push('mpc.branch = [');
  const maintenance: number[] = [];
  network.branches.forEach((br, i) => {
    if (br.status === 'maintenance') maintenance.push(i + 1);
    const row = [br.from, br.to, br.r, br.x, br.b, br.rate_a, br.rate_b ?? br.rate_a, br.rate_c ?? br.rate_a, br.ratio, br.shift * 180 / Math.PI,
      br.status === 'closed' ? 1 : 0, br.angmin ?? -360, br.angmax ?? 360];
    if (flows) row.push(flows[i]!.p_from, flows[i]!.q_from, flows[i]!.p_to, flows[i]!.q_to);
    push(`\t${row.map(num).join('\t')};`);
  });
  push('];');

  // DC lines (toggle_dcline's idx_dcline columns; MATPOWER's runpf solves them as generator pairs)
  if (network.dc_lines && network.dc_lines.length > 0) {
    push('');
    push('%% DC line data');
    push('%\tF_BUS\tT_BUS\tBR_STATUS\tPF\tPT\tQF\tQT\tVF\tVT\tPMIN\tPMAX\tQMINF\tQMAXF\tQMINT\tQMAXT\tLOSS0\tLOSS1');
    push('mpc.dcline = [');
    for (const d of network.dc_lines) {
      push(`\t${[d.from, d.to, d.in_service ? 1 : 0, d.p_from, d.p_to, d.q_from, d.q_to, d.v_from, d.v_to, d.pmin, d.pmax, d.qmin_from, d.qmax_from,
        d.qmin_to, d.qmax_to, d.loss0, d.loss1].map(num).join('\t')};`);
    }
    push('];');
  }

  // the DC lines' OPF costs (MATPOWER's mpc.dclinecost); a line without one is written as zero cost, which it is
  const dcCosts = network.dc_lines?.some((d) => d.cost) ? gencostRows(network.dc_lines.map((d) => ({ cost: d.cost ?? null }) as Generator)) : undefined;
  if (dcCosts) {
    push('');
    push('%% DC line cost data (cost of PF, as gencost)');
    push('mpc.dclinecost = [');
    const width = Math.max(...dcCosts.rows.map((r) => r.length));
    for (const row of dcCosts.rows) push(`\t${[...row, ...Array<number>(width - row.length).fill(0)].map(num).join('\t')};`);
    push('];');
  }

  const gencost = gencostRows(network.generators);
  if (gencost.rows.length > 0) {
    push('');
    push('%%-----  OPF Data  -----%%');
    push('%% generator cost data');
    push('%\t1\tstartup\tshutdown\tn\tx1\ty1\t...\txn\tyn');
    push('%\t2\tstartup\tshutdown\tn\tc(n-1)\t...\tc0');
    push('mpc.gencost = [');
    // one matrix: shorter rows padded with zeros (MATPOWER ignores values past NCOST's count)
    const width = Math.max(...gencost.rows.map((r) => r.length));
    for (const row of gencost.rows) push(`\t${[...row, ...Array<number>(width - row.length).fill(0)].map(num).join('\t')};`);
    push('];');
  }

  if (network.buses.some((b) => b.name !== '')) {
    push('');
    push('%% bus names');
    push('mpc.bus_name = {');
    for (const b of network.buses) push(`\t${quote(oneLine(b.name))};`);
    push('};');
  }

  // bus coordinates (read back by parseMatpower; MATPOWER keeps the field and ignores it)
  const located = network.buses.filter((b) => b.lat !== undefined && b.lon !== undefined);
  if (located.length > 0) {
    push('');
    push('%% bus coordinates (WGS84 degrees)');
    push('%\tbus_i\tlat\tlon');
    push(`mpc.${EXT.busGeo} = [`);
    for (const b of located) push(`\t${[b.id, b.lat!, b.lon!].map(num).join('\t')};`);
    push('];');
  }

  // --- what MATPOWER cannot express (read back by parseMatpower, ignored by MATPOWER)
  const ext: string[] = [];
  if (fname !== network.name) ext.push(`mpc.${EXT.name} = ${quote(oneLine(network.name))};`);
  if (network.base_kv !== mostCommonBaseKv(network.buses)) ext.push(`mpc.${EXT.baseKv} = ${num(network.base_kv)};`);
  if (offline.length > 0) {
    ext.push('%% out-of-service loads (MATPOWER has one always-on load per bus; these are not in Pd/Qd above)');
    ext.push('%\tbus\tPd\tQd');
    ext.push(`mpc.${EXT.offlineLoads} = [`);
    for (const l of offline) ext.push(`\t${[l.bus, l.mw, l.mvar].map(num).join('\t')};`);
    ext.push('];');
  }
  if (maintenance.length > 0) {
    ext.push("%% branch rows (1-based) whose status is 'maintenance' (out of service, BR_STATUS 0)");
    ext.push(`mpc.${EXT.maintenance} = [${maintenance.join(' ')}];`);
  }
  if (gencost.withoutCost.length > 0) {
    ext.push('%% mpc.gencost rows (1-based) that are zero placeholders for an absent cost (rows past the generator count: reactive power)');
    ext.push(`mpc.${EXT.withoutCost} = [${gencost.withoutCost.join(' ')}];`);
  }
  if (ext.length > 0) {
    push('');
    push('%%-----  gridops extensions (not used by MATPOWER)  -----%%');
    out.push(...ext);
  }
  push('');
  return out.join('\n');
}
