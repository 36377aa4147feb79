// Security-constrained DC-OPF, preventive N-1 (CONTRACT "Security-constrained DC-OPF"), by constraint
// generation: solve the DC-OPF, compute every listed outage's post-contingency flows from the LODF
// (f'_m = f_m + LODF(m,k)·f_k; for an outage of several branches the generalised form
// f'_m = f_m + LODF(m,K)·(I − LODF(K,K)°)⁻¹·f_K, ° = diagonal zeroed), add the violated ones as rows on
// the bus angles (a post-contingency flow is linear in them: b_m(θ_f − θ_t) + Pfinj), solve again,
// until none is violated. Never the outage × branch rows written out: the reference cases need one or
// two rounds and a handful of rows where the explicit problem has thousands.
//
// This module is the caller's side (CONTRACT "Bounded work"): it checks the list, removes identical
// contingencies (the same set of branches: the first one listed keeps its id), bounds the work before any
// of it starts (securityPlan: LODF entries held, flow shifts computed, the scan of a round), packs the model,
// and hands the whole constraint generation to one solver thread (./securityWorker.ts), stopped through the
// pool's stop flag by timeout_ms or a cancel. Nothing of it runs on the event loop but packing and unpacking.
import { performance } from 'node:perf_hooks';
import type { Static } from '@sinclair/typebox';
import type { NetworkModel } from '../domain/networkModel.js';
import type { OpfBindingContingencyOut, OpfSecurityOut } from '../schemas/opfResult.js';
import type { SolverPool } from '../engine/pool.js';
import { DEFAULT_SOLVE_OPTIONS, PowerFlowInputError } from '../powerflow/types.js';
import { packNetwork } from '../powerflow/pack.js';
import { AppError } from '../lib/errors.js';
import { networkBridges } from '../sensitivities/compute.js';
import { capacityCheck, emptyResult, opfCallOptions, refuseIslands, unpackOpf, type OpfCall } from './solve.js';
import { packOpf } from './pack.js';
import { PROGRESS_FIELDS } from './worker.js';
import { extraRowsAt, type ScopfPayload } from './securityWorker.js';
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

/** Bounds of one security-constrained OPF (docs/security.md "Bounds on work"), checked before it starts:
 *  LODF entries held on the solver thread (monitored rows × outaged branches, 8 bytes each: 96 MB). */
export const MAX_LODF_ENTRIES = 12_000_000;
/** flow-shift values the core computes (outaged branches × branches): the time of the LODF columns. */
export const MAX_SHIFT_VALUES = 40_000_000;
/** the scan of one round and the set-up of the outages: Σ over contingencies of monitored branches × k, plus
 *  k³ and one connectivity search (branches) for each multi-branch outage of k branches. */
export const MAX_SECURITY_WORK = 50_000_000;
/** Contingencies one list may name. */
const MAX_LISTED = 100_000;
/** |mu| above this (currency/MWh): a binding post-contingency constraint (the reference's rule). */
const BINDING_MU = 1e-6;

interface Outage {
  id: string | number;
  branches: number[];
}

/** The checked, de-duplicated outages of a request and the size of their work. */
export interface SecurityPlan {
  outages: Outage[];
  /** contingencies listed with a set of branches listed before */
  duplicates: number;
  monitored: number[];
  lodfEntries: number;
  shiftValues: number;
  work: number;
}

function invalid(field: string, message: string): never {
  throw new PowerFlowInputError(`${field}: ${message}`, 'VALIDATION_FAILED', { field });
}

/** The listed outages, checked against the network (closed branches that exist), identical ones (the same
 *  set of branches) once: the first listed keeps its id. */
export function securityOutages(network: NetworkModel, req: SecurityRequest): { outages: Outage[]; duplicates: number } {
  const nl = network.branches.length;
  if (req.contingencies === 'n-1-branches') {
    return { outages: network.branches.flatMap((b, l) => (b.status === 'closed' ? [{ id: l, branches: [l] }] : [])), duplicates: 0 };
  }
  if (!Array.isArray(req.contingencies) || req.contingencies.length === 0)
    invalid('security.contingencies', 'give "n-1-branches" or a non-empty list of {id?, branches: [indexes]}');
  if (req.contingencies.length > MAX_LISTED) invalid('security.contingencies', `at most ${MAX_LISTED} contingencies in one list`);
  const seen = new Set<string>();
  const outages: Outage[] = [];
  req.contingencies.forEach((c, p) => {
    if (c === null || typeof c !== 'object' || Array.isArray(c))
      invalid(`security.contingencies[${p}]`, 'each contingency is an object {id?, branches: [indexes]}');
    const extra = Object.keys(c).find((k) => k !== 'id' && k !== 'branches');
    if (extra) invalid(`security.contingencies[${p}].${extra}`, 'unknown field (id, branches)');
    if (c.id !== undefined && (typeof c.id !== 'string' || c.id.length > 128))
      invalid(`security.contingencies[${p}].id`, 'a text of at most 128 characters');
    if (!Array.isArray(c.branches) || c.branches.length === 0 || c.branches.length > 64)
      invalid(`security.contingencies[${p}].branches`, 'name between 1 and 64 branch indexes');
    c.branches.forEach((l, j) => {
      if (!(Number.isInteger(l) && l >= 0 && l < nl))
        invalid(
          `security.contingencies[${p}].branches[${j}]`,
          `branch ${l} does not exist (the network has ${nl} branches, indexes from 0)`,
        );
      if (network.branches[l]!.status !== 'closed')
        invalid(`security.contingencies[${p}].branches[${j}]`, `branch ${l} is already out of service`);
    });
    const branches = [...new Set(c.branches)];
    const key = [...branches].sort((a, b) => a - b).join(',');
    if (seen.has(key)) return;
    seen.add(key);
    outages.push({ id: c.id ?? (c.branches.length === 1 ? c.branches[0]! : `contingency:${p}`), branches });
  });
  return { outages, duplicates: req.contingencies.length - outages.length };
}

/** The checked outages and their work, refused over a bound (422 PARAM_OUT_OF_RANGE with advice) before
 *  anything is queued or solved; every door calls it (src/domain/opf.ts before queueing, the solve again). */
export function securityPlan(network: NetworkModel, req: SecurityRequest): SecurityPlan {
  const limitKind: SecurityLimit = req.limit ?? 'rate_c';
  if (!SECURITY_LIMITS.includes(limitKind)) invalid('security.limit', `must be one of ${SECURITY_LIMITS.join(', ')}`);
  const { outages, duplicates } = securityOutages(network, req);
  const monitored: number[] = [];
  network.branches.forEach((b, l) => {
    if (b.status === 'closed' && b.rate_a > 0) monitored.push(l);
  });
  const closed = network.branches.reduce((n, b) => n + (b.status === 'closed' ? 1 : 0), 0);
  const outaged = new Set<number>();
  const rows = new Set(monitored);
  let work = 0;
  for (const o of outages) {
    const k = o.branches.length;
    for (const l of o.branches) {
      outaged.add(l);
      if (k > 1) rows.add(l);
    }
    work += monitored.length * k + (k > 1 ? k ** 3 + closed : 0);
  }
  const plan = { outages, duplicates, monitored, lodfEntries: rows.size * outaged.size, shiftValues: outaged.size * closed, work };
  const over = (what: string, value: number, limit: number) => {
    throw new AppError(
      'PARAM_OUT_OF_RANGE',
      `security: ${what} (${value}), more than ${limit}: list fewer contingencies, or fewer branches per contingency `
        + '(the ones that matter instead of n-1-branches on a large network), and split the rest over several OPFs',
      { field: 'security.contingencies', value, limit, contingencies: outages.length, duplicates },
    );
  };
  if (plan.lodfEntries > MAX_LODF_ENTRIES)
    over(
      `${rows.size} monitored branches × ${outaged.size} outaged branches = ${plan.lodfEntries} LODF entries`,
      plan.lodfEntries,
      MAX_LODF_ENTRIES,
    );
  if (plan.shiftValues > MAX_SHIFT_VALUES)
    over(
      `${outaged.size} outaged branches × ${closed} branches = ${plan.shiftValues} flow-shift values`,
      plan.shiftValues,
      MAX_SHIFT_VALUES,
    );
  if (work > MAX_SECURITY_WORK)
    over(
      `${outages.length} distinct contingencies × ${monitored.length} monitored branches cost ${work} work units a round`,
      work,
      MAX_SECURITY_WORK,
    );
  return plan;
}

export async function solveSecurityConstrainedDcOpf(
  pool: SolverPool,
  network: NetworkModel,
  req: SecurityRequest,
  call: OpfCall = {},
): Promise<OpfResult & { security: SecurityOutcome }> {
  if ((call.method ?? 'ac') !== 'dc') invalid('security', 'the security-constrained OPF is a DC-OPF: send method "dc" with it');
  if (call.islanding && call.islanding !== 'refuse')
    invalid('security', 'the security-constrained OPF needs a connected network: leave islanding out');
  const limitKind: SecurityLimit = req.limit ?? 'rate_c';
  const plan = securityPlan(network, req);
  const { outages } = plan;
  const o = opfCallOptions(call);
  let rounds = 0;
  let excluded: (string | number)[] = [];
  let binding: BindingContingency[] = [];
  let constraintsAdded = 0;
  const outcome = (): SecurityOutcome => ({
    contingencies: outages.length,
    limit: limitKind,
    binding,
    excluded,
    rounds,
    constraints_added: constraintsAdded,
  });

  refuseIslands(network);
  const packed = packOpf(network, o);
  const capacity = capacityCheck(packed, 'dc');
  if (capacity) return { ...emptyResult('infeasible', o, { message: capacity.message, binding: [capacity] }), security: outcome() };
  if (call.signal?.aborted) return { ...emptyResult('cancelled', o, { message: 'cancelled before it started' }), security: outcome() };

  // OPF-internal numbering: the DC power flow's index of each branch, the monitored limits, the outages
  const nl = packed.nl;
  const opfSlot = new Int32Array(network.branches.length).fill(-1);
  packed.branchOrder.forEach((pos, l) => {
    opfSlot[pos] = l;
  });
  const dc = packNetwork(network, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
  const dcSlot = new Int32Array(network.branches.length).fill(-1);
  dc.branchOrder.forEach((pos, l) => {
    dcSlot[pos] = l;
  });
  const sens = new Int32Array(nl),
    limit = new Float64Array(nl);
  for (let l = 0; l < nl; l++) sens[l] = dcSlot[packed.branchOrder[l]!]!;
  for (const m of plan.monitored) {
    const l = opfSlot[m]!,
      b = network.branches[m]!;
    if (l < 0) continue;
    const r = limitKind === 'rate_a' ? b.rate_a : (b[limitKind] ?? 0);
    limit[l] = r > 0 ? r : b.rate_a;
  }
  const bridges = new Set(networkBridges(network));
  const outageStart = new Int32Array(outages.length + 1);
  const outageBranches: number[] = [];
  const bridge = new Uint8Array(outages.length);
  outages.forEach((out, c) => {
    const internal = out.branches.map((l) => opfSlot[l]!).filter((l) => l >= 0);
    // a branch the OPF leaves out (at an isolated bus) carries nothing: its outage changes nothing
    bridge[c] = internal.length === 0 || (out.branches.length === 1 && bridges.has(out.branches[0]!)) ? 1 : 0;
    outageBranches.push(...internal);
    outageStart[c + 1] = outageBranches.length;
  });
  const task: ScopfPayload = {
    opf: packed.input,
    dc: dc.input,
    dcBranches: dc.nl,
    sens,
    limit,
    outageStart,
    outageBranches: Int32Array.from(outageBranches),
    bridge,
    timeLimitMs: o.timeoutMs,
  };

  const started = performance.now();
  let reported = 0; // progress rows passed to onProgress (each round's as it ends, then the rest from the trailer)
  const report = (from: number, rows: Float64Array) => {
    for (let i = Math.max(reported - from, 0); PROGRESS_FIELDS * i < rows.length && call.onProgress; i++) {
      const p = rows.subarray(PROGRESS_FIELDS * i, PROGRESS_FIELDS * (i + 1));
      reported = from + i + 1;
      call.onProgress({
        iteration: p[0]!,
        maxIterations: o.maxIterations,
        feasibility: p[1]!,
        gradient: p[2]!,
        complementarity: p[3]!,
        objective: p[4]!,
      });
    }
  };
  const ran = await pool.run('scopf', task, { timeoutMs: o.timeoutMs, signal: call.signal, onLive: call.onProgress ? report : undefined });
  if (ran.stopped) {
    const message = ran.stopped === 'timeout' ? `exceeded timeout_ms (${o.timeoutMs} ms)` : 'cancelled';
    return { ...emptyResult(ran.stopped, o, { message, duration_ms: performance.now() - started }), security: outcome() };
  }
  const w = ran.value;
  if (w.end === 'singular')
    throw new PowerFlowInputError('the DC susceptance matrix is singular (a branch with zero reactance?)', 'VALIDATION_FAILED', {});
  rounds = w.rounds;
  constraintsAdded = w.addedOutage.length;
  excluded = Array.from(w.excluded, (c) => outages[c]!.id);
  const full = w.output;
  const n = full[full.length - 1]!;
  const outLen = full.length - 1 - PROGRESS_FIELDS * n;
  report(0, full.subarray(outLen, outLen + PROGRESS_FIELDS * n));
  if (w.end === 'stopped' || outLen <= 0) {
    // the thread's own time limit ended it (a stop by timeout_ms or a cancel answers above, at once)
    const status = call.signal?.aborted ? 'cancelled' : 'timeout';
    return {
      ...emptyResult(status, o, {
        message: status === 'timeout' ? `exceeded timeout_ms after ${rounds} rounds` : 'cancelled',
        duration_ms: performance.now() - started,
      }),
      security: outcome(),
    };
  }
  let result = unpackOpf(network, packed, full.subarray(0, outLen), o);
  const at = extraRowsAt(packed.nb, packed.nl, packed.ng);
  const mu = result.buses.length > 0 ? full.subarray(at, at + constraintsAdded) : new Float64Array(0);
  const flow = new Float64Array(network.branches.length);
  result.branches.forEach((b) => {
    flow[b.index] = b.p_from;
  });
  const modelOf = (l: number) => packed.branchOrder[l]!;
  const rowText = (q: number) =>
    `branch ${modelOf(w.addedBranch[q]!)} after outage ${String(outages[w.addedOutage[q]!]!.id)} (limit ${limit[w.addedBranch[q]!]} MW)`;
  binding = [];
  for (let q = 0; q < constraintsAdded; q++) {
    const v = mu[q] ?? 0;
    if (!(Math.abs(v) > BINDING_MU)) continue;
    const c = w.addedOutage[q]!,
      m = w.addedBranch[q]!,
      a = outageStart[c]!;
    let post = flow[modelOf(m)]!;
    for (let j = w.coefStart[q]!; j < w.coefStart[q + 1]!; j++)
      post += w.coefs[j]! * flow[modelOf(outageBranches[a + j - w.coefStart[q]!]!)]!;
    binding.push({ outage: outages[c]!.id, branch: modelOf(m), flow_mw: post, limit_mw: limit[m]!, mu: v });
  }
  binding.sort((x, y) => Math.abs(y.mu) - Math.abs(x.mu));
  if (result.status === 'infeasible' && constraintsAdded > 0) {
    const from = Math.max(0, constraintsAdded - 20);
    result = {
      ...result,
      message: `no dispatch meets the post-contingency limits: ${Array.from({ length: constraintsAdded - from }, (_, i) => rowText(from + i)).join('; ')}`,
    };
  }
  return { ...result, security: outcome() };
}

