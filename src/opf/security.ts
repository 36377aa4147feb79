// Security-constrained DC-OPF, preventive N-1 (CONTRACT "Security-constrained DC-OPF"), by constraint
// generation: solve the DC-OPF, compute every listed outage's post-contingency flows from the LODF
// (f'_m = f_m + LODF(m,k)·f_k; for an outage of several branches the generalised form
// f'_m = f_m + LODF(m,K)·(I − LODF(K,K)°)⁻¹·f_K, ° = diagonal zeroed), add the violated ones as rows on
// the bus angles (a post-contingency flow is linear in them: b_m(θ_f − θ_t) + Pfinj), solve again,
// until none is violated. Never the outage × branch rows written out: the reference cases need one or
// two rounds and a handful of rows where the explicit problem has thousands.
//
// The LODF columns of the listed outages come from the sensitivities' one factorisation of the DC
// susceptance matrix (src/sensitivities/compute.ts), computed once: they depend on the topology only.
// Each round is a fresh interior-point solve (MIPS, or HiGHS for linear costs): an interior point does
// not restart well from a previous optimum, and a round costs one DC-OPF.
import type { Static } from '@sinclair/typebox';
import type { NetworkModel } from '../domain/networkModel.js';
import type { OpfBindingContingencyOut, OpfSecurityOut } from '../schemas/opfResult.js';
import type { SolverPool } from '../engine/pool.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { ext2int } from '../powerflow/ext2int.js';
import { isDeeplyFrozen } from '../lib/immutable.js';
import { connectedComponents } from '../lib/graph.js';
import { networkBridges, sensitivityMatrix } from '../sensitivities/compute.js';
import { refuseDcLines, solveOpf, type OpfCall } from './solve.js';
import type { OpfResult } from './types.js';
import type { OpfIn } from '../schemas/opf.js';

export const SECURITY_LIMITS = ['rate_c', 'rate_b', 'rate_a'] as const;
export type SecurityLimit = (typeof SECURITY_LIMITS)[number];

/** The `security` part of POST /opf (src/schemas/opf.ts), checked by securityOutages below. */
export type SecurityRequest = NonNullable<Static<typeof OpfIn>['security']>;

/** A binding post-contingency constraint, and what the preventive N-1 reports (their schemas:
 *  src/schemas/opfResult.ts). */
export type BindingContingency = Static<typeof OpfBindingContingencyOut>;
export type SecurityOutcome = Static<typeof OpfSecurityOut>;

/** LODF entries one security-constrained OPF may compute (monitored rows × outaged branches). */
export const MAX_LODF_ENTRIES = 30_000_000;
/** LODF rows of the last security-constrained OPF per frozen (stored, immutable) network version. */
const lodfCache = new WeakMap<NetworkModel, { key: string; rows: Map<number, Float64Array> }>();
/** Contingencies one list may name. */
const MAX_LISTED = 100_000;
/** A post-contingency flow above its limit by more than this (MW) is a violation: above MIPS's
 *  feasibility tolerance (5e-6 p.u.), so a row just added is not found violated again. */
const VIOLATION_MW = 1e-3;
const MAX_ROUNDS = 30;
const ROWS_PER_ROUND = 200;
/** |mu| above this (currency/MWh): a binding post-contingency constraint (the reference's rule). */
const BINDING_MU = 1e-6;

interface Outage { id: string | number; branches: number[] }
interface Candidate { c: number; m: number; coef: Float64Array; post: number; over: number }

function invalid(field: string, message: string): never {
  throw new PowerFlowInputError(`${field}: ${message}`, 'VALIDATION_FAILED', { field });
}

/** The listed outages, checked against the network (closed branches that exist). */
export function securityOutages(network: NetworkModel, req: SecurityRequest): Outage[] {
  const nl = network.branches.length;
  if (req.contingencies === 'n-1-branches') {
    return network.branches.flatMap((b, l) => (b.status === 'closed' ? [{ id: l, branches: [l] }] : []));
  }
  if (!Array.isArray(req.contingencies) || req.contingencies.length === 0) invalid('security.contingencies', 'give "n-1-branches" or a non-empty list of {id?, branches: [indexes]}');
  if (req.contingencies.length > MAX_LISTED) invalid('security.contingencies', `at most ${MAX_LISTED} contingencies in one list`);
  return req.contingencies.map((c, p) => {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) invalid(`security.contingencies[${p}]`, 'each contingency is an object {id?, branches: [indexes]}');
    const extra = Object.keys(c).find((k) => k !== 'id' && k !== 'branches');
    if (extra) invalid(`security.contingencies[${p}].${extra}`, 'unknown field (id, branches)');
    if (c.id !== undefined && (typeof c.id !== 'string' || c.id.length > 128)) invalid(`security.contingencies[${p}].id`, 'a text of at most 128 characters');
    if (!Array.isArray(c.branches) || c.branches.length === 0 || c.branches.length > 64) invalid(`security.contingencies[${p}].branches`, 'name between 1 and 64 branch indexes');
    c.branches.forEach((l, j) => {
      if (!(Number.isInteger(l) && l >= 0 && l < nl)) invalid(`security.contingencies[${p}].branches[${j}]`, `branch ${l} does not exist (the network has ${nl} branches, indexes from 0)`);
      if (network.branches[l]!.status !== 'closed') invalid(`security.contingencies[${p}].branches[${j}]`, `branch ${l} is already out of service`);
    });
    return { id: c.id ?? (c.branches.length === 1 ? c.branches[0]! : `contingency:${p}`), branches: [...new Set(c.branches)] };
  });
}

/** Solves A x = b in place for a small dense system (partial pivoting); false when singular. */
function solveDense(a: Float64Array, b: Float64Array, n: number): boolean {
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(a[i * n + k]!) > Math.abs(a[p * n + k]!)) p = i;
    if (Math.abs(a[p * n + k]!) < 1e-12) return false;
    if (p !== k) {
      for (let j = 0; j < n; j++) { const t = a[k * n + j]!; a[k * n + j] = a[p * n + j]!; a[p * n + j] = t; }
      const t = b[k]!; b[k] = b[p]!; b[p] = t;
    }
    for (let i = k + 1; i < n; i++) {
      const f = a[i * n + k]! / a[k * n + k]!;
      if (f === 0) continue;
      for (let j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j]!;
      b[i] -= f * b[k]!;
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    let s = b[k]!;
    for (let j = k + 1; j < n; j++) s -= a[k * n + j]! * b[j]!;
    b[k] = s / a[k * n + k]!;
  }
  return true;
}

export async function solveSecurityConstrainedDcOpf(pool: SolverPool, network: NetworkModel, req: SecurityRequest, call: OpfCall = {}): Promise<OpfResult & { security: SecurityOutcome }> {
  refuseDcLines(network);
  if ((call.method ?? 'ac') !== 'dc') invalid('security', 'the security-constrained OPF is a DC-OPF: send method "dc" with it');
  if (call.islanding && call.islanding !== 'refuse') invalid('security', 'the security-constrained OPF needs a connected network: leave islanding out');
  const limitKind: SecurityLimit = req.limit ?? 'rate_c';
  if (!SECURITY_LIMITS.includes(limitKind)) invalid('security.limit', `must be one of ${SECURITY_LIMITS.join(', ')}`);
  const outages = securityOutages(network, req);
  const base = network.base_mva;

  // monitored branches: closed, rate_a > 0; their limit the chosen rating, rate_a where it is 0 or absent
  const monitored: number[] = [];
  const limitMw = new Float64Array(network.branches.length);
  network.branches.forEach((b, l) => {
    if (b.status !== 'closed' || !(b.rate_a > 0)) return;
    monitored.push(l);
    const r = limitKind === 'rate_a' ? b.rate_a : (b[limitKind] ?? 0);
    limitMw[l] = r > 0 ? r : b.rate_a;
  });

  // splitting outages: a bridge, or several branches whose removal disconnects the network
  const bridges = new Set(networkBridges(network));
  const ext = ext2int(network, 'dispatch');
  const { count: intactComponents } = connectedComponents(ext.nb, (link) => { for (let q = 0; q < ext.nl; q++) link(ext.branchFrom[q]!, ext.branchTo[q]!); });
  const splits = (o: Outage): boolean => {
    if (o.branches.length === 1) return bridges.has(o.branches[0]!);
    const out = new Set(o.branches);
    const { count } = connectedComponents(ext.nb, (link) => {
      for (let q = 0; q < ext.nl; q++) if (!out.has(ext.branchOrder[q]!)) link(ext.branchFrom[q]!, ext.branchTo[q]!);
    });
    return count > intactComponents;
  };
  const kept = outages.filter((o) => !splits(o));
  const excluded = outages.filter((o) => splits(o)).map((o) => o.id);

  // LODF(m, k) for the monitored rows and every branch of a kept outage (rows also for multi-branch outages' own branches)
  const outaged = [...new Set(kept.flatMap((o) => o.branches))].sort((a, b) => a - b);
  const rowSet = new Set(monitored);
  for (const o of kept) if (o.branches.length > 1) for (const l of o.branches) rowSet.add(l);
  const rows = [...rowSet].sort((a, b) => a - b);
  if (rows.length * outaged.length > MAX_LODF_ENTRIES) {
    throw new PowerFlowInputError(`security: ${rows.length} monitored branches × ${outaged.length} outaged branches = ${rows.length * outaged.length} LODF entries, more than ${MAX_LODF_ENTRIES}: list the contingencies that matter instead of n-1-branches`, 'VALIDATION_FAILED', { field: 'security.contingencies', entries: rows.length * outaged.length, limit: MAX_LODF_ENTRIES });
  }
  const lodf = new Map<number, Float64Array>(); // row branch -> LODF over `outaged`
  const col = new Map(outaged.map((l, j) => [l, j]));
  // computed while the first round (which needs no post-contingency row) is solved; kept with a network
  // version the service has frozen (its models are immutable), so the next security-constrained OPF of the
  // same version reuses them, as the solver keeps its structure
  const key = `${rows.join(',')}|${outaged.join(',')}`;
  const frozen = isDeeplyFrozen(network);
  const kept0 = frozen ? lodfCache.get(network) : undefined;
  const lodfReady = kept0?.key === key
    ? Promise.resolve().then(() => { for (const [l, v] of kept0.rows) lodf.set(l, v); })
    : outaged.length > 0 && rows.length > 0
      ? sensitivityMatrix(pool, network, { kind: 'lodf', branches: rows, outages: outaged }, { signal: call.signal, maxEntries: MAX_LODF_ENTRIES })
        .then((m) => {
          rows.forEach((l, r) => { const v = new Float64Array(outaged.length); m.fillRow(r, v); lodf.set(l, v); });
          if (frozen) lodfCache.set(network, { key, rows: lodf });
        })
      : Promise.resolve();
  lodfReady.catch(() => {}); // awaited below; a failure is reported there

  // per kept outage: the coefficients c (one per outaged branch) of f'_m = f_m + Σ c_j f_kj, for each monitored m
  const coefOf = (o: Outage): ((m: number) => Float64Array) | null => {
    const K = o.branches, n = K.length;
    if (n === 1) {
      const j = col.get(K[0]!)!;
      return (m) => Float64Array.of(lodf.get(m)![j]!);
    }
    // W = (I − L_KK°)⁻¹ by columns; c_m = L_mK W
    const W = new Float64Array(n * n);
    for (let c = 0; c < n; c++) {
      const a = new Float64Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = (i === j ? 1 : -lodf.get(K[i]!)![col.get(K[j]!)!]!);
      const e = new Float64Array(n); e[c] = 1;
      if (!solveDense(a, e, n)) return null;
      for (let i = 0; i < n; i++) W[i * n + c] = e[i]!;
    }
    return (m) => {
      const row = lodf.get(m)!, out = new Float64Array(n);
      for (let c = 0; c < n; c++) { let s = 0; for (let i = 0; i < n; i++) s += row[col.get(K[i]!)!]! * W[i * n + c]!; out[c] = s; }
      return out;
    };
  };
  let coefs: (((m: number) => Float64Array) | null)[] = [];
  let active: number[] = [];
  const prepare = async () => {
    await lodfReady;
    coefs = kept.map(coefOf);
    for (let c = 0; c < kept.length; c++) if (coefs[c] === null) excluded.push(kept[c]!.id); // singular: splits after all
    active = kept.map((_, c) => c).filter((c) => coefs[c] !== null);
  };

  // a flow's angle terms in p.u.: b (θ_f − θ_t) + Pfinj, b = 1/(x·tap) as makeBdc
  const susceptance = (l: number) => { const b = network.branches[l]!; return 1 / b.x / (b.ratio !== 0 ? b.ratio : 1); };
  const busOf = (id: number) => ext.busIndex[ext.position(id)]!;

  const added = new Set<string>();
  const rowsAdded: Candidate[] = [];
  const encoded: number[] = [];
  const encode = (cand: Candidate) => {
    const o = kept[cand.c]!, m = cand.m;
    const terms: [number, number][] = [];
    let constant = 0;
    const addFlow = (l: number, w: number) => {
      const br = network.branches[l]!, b = susceptance(l);
      terms.push([busOf(br.from), w * b], [busOf(br.to), -w * b]);
      constant += w * -b * br.shift;
    };
    addFlow(m, 1);
    o.branches.forEach((k, j) => addFlow(k, cand.coef[j]!));
    const lim = limitMw[m]! / base;
    encoded.push(-lim - constant, lim - constant, terms.length);
    for (const [i, v] of terms) encoded.push(i, v);
  };

  let rounds = 0;
  let result: OpfResult | undefined;
  let mu: Float64Array = new Float64Array(0);
  const deadline = Date.now() + (call.timeoutMs ?? 30_000);
  for (;;) {
    rounds++;
    const left = deadline - Date.now();
    if (left <= 0) return { ...(result ?? emptyFor(call)), status: 'timeout', message: `exceeded timeout_ms after ${rounds - 1} rounds`, security: outcome() };
    result = await solveOpf(pool, network, {
      ...call, timeoutMs: left,
      extraRows: { count: rowsAdded.length, values: Float64Array.from(encoded) },
      onRowMultipliers: (x) => { mu = x as Float64Array; },
    });
    if (rounds === 1) await prepare();
    if (result.status !== 'converged') {
      if (result.status === 'infeasible' && rowsAdded.length > 0) {
        result = { ...result, message: `no dispatch meets the post-contingency limits: ${rowsAdded.slice(-20).map((r) => `branch ${r.m} after outage ${String(kept[r.c]!.id)} (limit ${limitMw[r.m]} MW)`).join('; ')}` };
      }
      return { ...result, security: outcome() };
    }
    const flow = new Float64Array(network.branches.length);
    result.branches.forEach((b) => { flow[b.index] = b.p_from; });
    const found: Candidate[] = [];
    for (const c of active) {
      const o = kept[c]!, coef = coefs[c]!;
      const outSet = new Set(o.branches);
      for (const m of monitored) {
        if (outSet.has(m)) continue;
        const w = coef(m);
        let post = flow[m]!;
        for (let j = 0; j < w.length; j++) post += w[j]! * flow[o.branches[j]!]!;
        const over = Math.abs(post) - limitMw[m]!;
        if (over > VIOLATION_MW && !added.has(`${c}/${m}`)) found.push({ c, m, coef: w, post, over });
      }
    }
    if (found.length === 0 || rounds >= MAX_ROUNDS) break;
    found.sort((a, b) => b.over - a.over);
    for (const f of found.slice(0, ROWS_PER_ROUND)) { added.add(`${f.c}/${f.m}`); rowsAdded.push(f); encode(f); }
  }

  function outcome(): SecurityOutcome {
    const flow = new Float64Array(network.branches.length);
    result?.branches.forEach((b) => { flow[b.index] = b.p_from; });
    const binding: BindingContingency[] = [];
    rowsAdded.forEach((r, q) => {
      const v = mu[q] ?? 0;
      if (!(Math.abs(v) > BINDING_MU)) return;
      const o = kept[r.c]!;
      let post = flow[r.m]!;
      o.branches.forEach((k, j) => { post += r.coef[j]! * flow[k]!; });
      binding.push({ outage: o.id, branch: r.m, flow_mw: post, limit_mw: limitMw[r.m]!, mu: v });
    });
    binding.sort((a, b) => Math.abs(b.mu) - Math.abs(a.mu));
    return { contingencies: outages.length, limit: limitKind, binding, excluded, rounds, constraints_added: rowsAdded.length };
  }
  return { ...result!, security: outcome() };
}

function emptyFor(call: OpfCall): OpfResult {
  return { status: 'timeout', objective: NaN, iterations: 0, method: call.method ?? 'dc', solver: 'mips', buses: [], generators: [], branches: [], convergence: { feasibility: NaN, gradient: NaN, complementarity: NaN, cost: NaN }, duration_ms: 0 };
}
