// PSS/E RAW and RAWX import against MATPOWER (CONTRACT "PSS/E RAW and MATPOWER DC lines"): for each
// reference, gridops' import equals psse2mpc's case (bus, generator, branch and DC line matrices) and
// gridops' Newton power flow equals MATPOWER's runpf (|dv|, |dtheta| <= 1e-6, flows <= 1e-3 MW/MVAr).
// References: shared/reference/psse/solutions (four files) and test/reference/psse (made by
// make_reference.m there, from shared/reference/psse/cases). Revision-35 and RAWX files are compared
// with their revision-33 twins' references (psse2mpc refuses them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { ROOT, SHARED_DIR } from '../src/paths.js';
import { parsePsse } from '../src/psse/reader.js';
import type { PsseImport } from '../src/psse/mapping.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const SHARED_PSSE = join(SHARED_DIR, 'reference', 'psse');
const CASES = join(SHARED_PSSE, 'cases');
const OWN = join(ROOT, 'test', 'reference', 'psse');

interface Reference {
  file: string;
  case: { baseMVA: number; bus: number[][]; gen: number[][]; branch: number[][]; dcline?: number[][]; bus_name: string[] };
  pf: { success: boolean | number; iterations: number; bus: number[][]; gen: number[][]; branch: number[][]; dcline?: number[][] };
}

/** Files where gridops follows PSS/E and psse2mpc does not: the warning gridops gives, and either the
 *  reference corrected where psse2mpc errs (`patch`) or no comparison (the whole answer differs). */
const DIFFERS: Record<string, { why: string; warning: string; patch?: (r: Reference) => void }> = {
  'powermodels/case3_2wtf_vmon0.raw': { why: 'NOMV 0 is the bus base kV (psse2mpc: 0 kV)', warning: 'NOMV_ZERO_IS_BUS_BASE_KV' },
  'powermodels/case4_3wtf_vnom0_cw2.raw': { why: 'NOMV 0 is the bus base kV (psse2mpc: 0 kV)', warning: 'NOMV_ZERO_IS_BUS_BASE_KV' },
  'powermodels/case4_3wtf_vnom0_cw3.raw': { why: 'NOMV 0 is the bus base kV (psse2mpc: 0 kV)', warning: 'NOMV_ZERO_IS_BUS_BASE_KV' },
  'powsybl/IEEE_14_isolated_buses.raw': {
    why: 'the switched shunt at isolated bus 16 has STAT 0 (psse2mpc adds its 100 MVAr anyway)', warning: 'SWITCHED_SHUNT_OUT_OF_SERVICE',
    patch: (r) => { r.case.bus.find((b) => b[0] === 16)![5]! -= 100; },
  },
};

/** jsonencode writes a one-row matrix as a flat list: make every matrix a list of rows. */
function rows(m: unknown): number[][] {
  if (!Array.isArray(m) || m.length === 0) return [];
  return typeof m[0] === 'number' ? [m as number[]] : (m as number[][]);
}
function normalized(r: Reference): Reference {
  const c = r.case;
  const names = c.bus_name as unknown;
  return {
    ...r,
    case: { ...c, bus: rows(c.bus), gen: rows(c.gen), branch: rows(c.branch), dcline: rows(c.dcline), bus_name: typeof names === 'string' ? [names] : (names as string[] ?? []) },
    pf: { ...r.pf, bus: rows(r.pf.bus), gen: rows(r.pf.gen), branch: rows(r.pf.branch), dcline: rows(r.pf.dcline) },
  };
}

/** A reference, plain or gzipped (the large ones). */
const readText = (path: string) => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8'));

function references(): { name: string; ref: Reference }[] {
  const out: { name: string; ref: Reference }[] = [];
  for (const dir of [join(SHARED_PSSE, 'solutions'), OWN]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      // index.json lists the files psse2mpc refuses; *.pf.json are power flows of MATPOWER cases (matpower-dcline.test.ts)
      if (!/\.json(\.gz)?$/.test(f) || f === 'index.json' || f.endsWith('.pf.json')) continue;
      out.push({ name: f.replace(/\.json(\.gz)?$/, ''), ref: normalized(JSON.parse(readText(join(dir, f))) as Reference) });
    }
  }
  return out;
}

/** A case file: shared/reference/psse/cases, or written here by make_activsg10k.m (gzipped). */
const caseText = (file: string) => (existsSync(join(CASES, file)) ? readFileSync(join(CASES, file), 'utf8') : readText(join(OWN, `${file}.gz`)));

let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 1 }); });
after(async () => { await pool.close(); });

const close = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

/** gridops' import equals psse2mpc's matrices. */
function compareCase(label: string, imp: PsseImport, ref: Reference): void {
  const m = imp.model;
  const c = ref.case;
  assert.equal(m.base_mva, c.baseMVA, `${label}: baseMVA`);
  assert.equal(m.buses.length, c.bus.length, `${label}: bus count`);
  const pd = new Map<number, number>(), qd = new Map<number, number>();
  for (const l of m.loads) if (l.in_service) { pd.set(l.bus, (pd.get(l.bus) ?? 0) + l.mw); qd.set(l.bus, (qd.get(l.bus) ?? 0) + l.mvar); }
  const types = { pq: 1, pv: 2, slack: 3, isolated: 4 } as const;
  m.buses.forEach((b, k) => {
    const r = c.bus[k]!;
    const what = `${label}: bus ${b.id}`;
    assert.equal(b.id, r[0], `${what} number (row ${k + 1})`);
    assert.equal(types[b.type], r[1], `${what} type`);
    for (const [got, want, col] of [[pd.get(b.id) ?? 0, r[2], 'PD'], [qd.get(b.id) ?? 0, r[3], 'QD'], [b.gs, r[4], 'GS'], [b.bs, r[5], 'BS'],
      [b.area, r[6], 'BUS_AREA'], [b.v, r[7], 'VM'], [b.theta * 180 / Math.PI, r[8], 'VA'], [b.base_kv, r[9], 'BASE_KV'], [b.zone, r[10], 'ZONE'],
      [b.vmax, r[11], 'VMAX'], [b.vmin, r[12], 'VMIN']] as [number, number, string][]) {
      assert.ok(close(got, want!, 1e-9), `${what} ${col}: ${got}, psse2mpc ${want}`);
    }
    assert.equal(b.name, String(c.bus_name[k] ?? '').trim(), `${what} name`);
  });
  assert.equal(m.generators.length, c.gen.length, `${label}: generator count`);
  m.generators.forEach((g, k) => {
    const r = c.gen[k]!;
    for (const [got, want, col] of [[g.bus, r[0], 'GEN_BUS'], [g.mw, r[1], 'PG'], [g.mvar, r[2], 'QG'], [g.qmax!, r[3], 'QMAX'], [g.qmin!, r[4], 'QMIN'],
      [g.vg, r[5], 'VG'], [g.in_service ? 1 : 0, r[7]! > 0 ? 1 : 0, 'GEN_STATUS'], [g.pmax!, r[8], 'PMAX'], [g.pmin!, r[9], 'PMIN']] as [number, number, string][]) {
      assert.ok(close(got, want!, 1e-9), `${label}: generator ${k + 1} ${col}: ${got}, psse2mpc ${want}`);
    }
  });
  assert.equal(m.branches.length, c.branch.length, `${label}: branch count`);
  m.branches.forEach((br, k) => {
    const r = c.branch[k]!;
    for (const [got, want, col] of [[br.from, r[0], 'F_BUS'], [br.to, r[1], 'T_BUS'], [br.r, r[2], 'BR_R'], [br.x, r[3], 'BR_X'], [br.b, r[4], 'BR_B'],
      [br.rate_a, r[5], 'RATE_A'], [br.ratio === 0 ? 0 : br.ratio, r[8], 'TAP'], [br.shift * 180 / Math.PI, r[9], 'SHIFT'],
      [br.status === 'closed' ? 1 : 0, r[10]! > 0 ? 1 : 0, 'BR_STATUS']] as [number, number, string][]) {
      assert.ok(close(got, want!, 1e-9), `${label}: branch ${k + 1} ${col}: ${got}, psse2mpc ${want}`);
    }
  });
  const dc = m.dc_lines ?? [];
  assert.equal(dc.length, c.dcline?.length ?? 0, `${label}: DC line count`);
  dc.forEach((d, k) => {
    const r = c.dcline![k]!;
    const got = [d.from, d.to, d.in_service ? 1 : 0, d.p_from, d.p_to, d.q_from, d.q_to, d.v_from, d.v_to, d.pmin, d.pmax, d.qmin_from, d.qmax_from,
      d.qmin_to, d.qmax_to, d.loss0, d.loss1];
    got.forEach((v, i) => assert.ok(close(v, r[i]!, 1e-9), `${label}: DC line ${k + 1} column ${i + 1}: ${v}, psse2mpc ${r[i]}`));
  });
}

async function comparePowerFlow(label: string, imp: PsseImport, ref: Reference): Promise<void> {
  const res = await solvePowerFlow(pool, imp.model, { method: 'newton_raphson', tolerance: 1e-8, maxIterations: 10 });
  assert.equal(res.status, 'converged', `${label}: ${res.message ?? ''}`);
  assert.ok(Math.abs(res.iterations - ref.pf.iterations) <= 1, `${label}: ${res.iterations} iterations, MATPOWER ${ref.pf.iterations}`);
  // gridops leaves isolated buses out of the answer; MATPOWER lists them with their stored voltage
  const byId = new Map(res.buses.map((b) => [b.id, b]));
  for (const [id, type, vm, va] of ref.pf.bus as [number, number, number, number][]) {
    const b = byId.get(id);
    if (type === 4 && !b) continue;
    assert.ok(b, `${label}: bus ${id} missing from the answer`);
    assert.ok(Math.abs(b!.v - vm) <= 1e-6, `${label}: bus ${id} v ${b!.v}, MATPOWER ${vm}`);
    assert.ok(Math.abs(b!.theta - va * Math.PI / 180) <= 1e-6, `${label}: bus ${id} theta ${b!.theta}, MATPOWER ${va * Math.PI / 180}`);
  }
  assert.equal(res.branches.length, ref.pf.branch.length, `${label}: branches`);
  res.branches.forEach((b, k) => {
    const r = ref.pf.branch[k]!;
    const d = Math.max(Math.abs(b.p_from - r[2]!), Math.abs(b.q_from - r[3]!), Math.abs(b.p_to - r[4]!), Math.abs(b.q_to - r[5]!));
    assert.ok(d <= 1e-3, `${label}: branch ${k + 1} (${r[0]}-${r[1]}) flows off by ${d}`);
  });
  assert.equal(res.generators.length, ref.pf.gen.length, `${label}: generators`);
  res.generators.forEach((g, k) => {
    const r = ref.pf.gen[k]!;
    if (!(r[3]! > 0)) return;
    const d = Math.max(Math.abs(g.p_gen - r[1]!), Math.abs(g.q_gen - r[2]!));
    assert.ok(d <= 1e-3, `${label}: generator ${k + 1} at bus ${r[0]} off by ${d} (P ${g.p_gen} / ${r[1]}, Q ${g.q_gen} / ${r[2]})`);
  });
  // DC lines: [from, to, status, pf, pt, qf, qt] as MATPOWER's int2ext gives them back
  const dc = ref.pf.dcline ?? [];
  assert.equal(res.dc_lines?.length ?? 0, dc.length, `${label}: DC lines in the answer`);
  dc.forEach((r, k) => {
    const got = res.dc_lines![k]!;
    assert.equal(got.from, r[0]);
    const d = Math.max(Math.abs(got.p_from - r[3]!), Math.abs(got.p_to - r[4]!), Math.abs(got.q_from - r[5]!), Math.abs(got.q_to - r[6]!));
    assert.ok(d <= 1e-3, `${label}: DC line ${k + 1} off by ${d}`);
  });
}

for (const { name, ref } of references()) {
  const differs = DIFFERS[ref.file];
  test(`${ref.file}: import equals psse2mpc, power flow equals MATPOWER's runpf`, async (t) => {
    const text = caseText(ref.file);
    if (ref.case.bus.length === 0) {
      // psse2mpc makes a case without buses of it; gridops refuses it, naming where buses were wanted
      assert.throws(() => parsePsse(text, { fileName: ref.file }), /bus/);
      return;
    }
    const imp = parsePsse(text, { fileName: ref.file });
    if (differs) {
      assert.ok(imp.warnings.some((w) => w.code === differs.warning), `${name}: warning ${differs.warning}`);
      t.diagnostic(`${ref.file}: ${differs.why}`);
      if (!differs.patch) return;
      differs.patch(ref);
    }
    compareCase(name, imp, ref);
    if (ref.pf.success === true || ref.pf.success === 1) await comparePowerFlow(name, imp, ref);
    else t.diagnostic(`${ref.file}: MATPOWER's runpf does not converge; the import alone is compared`);
  });
}

/** Revision-35 RAW and RAWX files against the references of their revision-33 twins. */
const TWINS: [string, string][] = [
  ['powsybl/IEEE_14_bus_rev35.raw', 'IEEE_14_bus'],
  ['powsybl/IEEE_14_bus_rev35.rawx', 'IEEE_14_bus'],
  ['powsybl/IEEE_24_bus_rev35.raw', 'IEEE_24_bus'],
  ['powsybl/IEEE_24_bus_rev35.rawx', 'IEEE_24_bus'],
  ['powsybl/IEEE_14_bus_non_induction_machine_data_rev35.raw', 'IEEE_14_bus_non_induction_machine_data'],
  ['powsybl/IEEE_14_bus_completed_rev35.raw', 'IEEE_14_bus_completed'],
  ['powsybl/IEEE_14_bus_completed_rev35.rawx', 'IEEE_14_bus_completed'],
];
const all = new Map(references().map((r) => [r.name, r.ref]));
for (const [file, twin] of TWINS) {
  test(`${file} equals its revision-33 twin's MATPOWER answer`, async () => {
    const ref = all.get(twin);
    assert.ok(ref, `reference ${twin}`);
    const imp = parsePsse(readFileSync(join(CASES, file), 'utf8'), { fileName: file });
    assert.equal(imp.format, file.endsWith('.rawx') ? 'rawx' : 'psse');
    assert.equal(imp.revision, 35);
    compareCase(file, imp, ref!);
    if (ref!.pf.success === true || ref!.pf.success === 1) await comparePowerFlow(file, imp, ref!);
  });
}
