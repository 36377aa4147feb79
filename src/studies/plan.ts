// planStudy: a study request checked against one network version and turned into the
// deterministic case list (see types.ts for the case order and ids). Every door (REST,
// GraphQL, CLI, a ROLE=worker process re-planning a chunk) calls it; bad input is an
// AppError INVALID_FIELD (400) naming the field and what to do about it.
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../lib/errors.js';
import type { NetworkModel } from '../domain/networkModel.js';
import { StudyRequestSchema, type StudyContingency, type StudyPlan, type StudyRequest, type StudyScenarios } from './types.js';

/** Defaults of a study's solve options (CONTRACT: "as power flow"). */
export const STUDY_DEFAULTS = {
  tolerance: 1e-8, maxIterations: 50, loadingLimitPercent: 100,
  /** CONTRACT "Violations relative to the base case" */
  flowIncreasePercent: 10, voltageIncreasePu: 0.01,
  /** CONTRACT "Contingency screening": ac_linear at 90 % (docs/studies.md "Screening" says why) */
  screeningMethod: 'ac_linear', screeningThresholdPercent: 90,
} as const;

const invalid = (field: string, message: string): never => {
  throw new AppError('INVALID_FIELD', `${field}: ${message}`, { field });
};

/** The first schema error of a raw body, as an INVALID_FIELD (for doors without route validation). */
export function checkStudyRequest(body: unknown): StudyRequest {
  if (Value.Check(StudyRequestSchema, body)) return body;
  const e = Value.Errors(StudyRequestSchema, body).First();
  const field = e ? e.path.replace(/^\//, '').replace(/\//g, '.') || 'body' : 'body';
  return invalid(field, e ? e.message : 'not a study request');
}

/** A branch is in service when closed and both of its buses are solved (not isolated). */
function branchInService(net: NetworkModel, busType: Map<number, string>, i: number): boolean {
  const br = net.branches[i]!;
  return br.status === 'closed' && busType.has(br.from) && busType.get(br.from) !== 'isolated'
    && busType.has(br.to) && busType.get(br.to) !== 'isolated';
}
function generatorInService(net: NetworkModel, busType: Map<number, string>, i: number): boolean {
  const g = net.generators[i]!;
  return g.in_service && busType.has(g.bus) && busType.get(g.bus) !== 'isolated';
}
function loadInService(net: NetworkModel, busType: Map<number, string>, i: number): boolean {
  const l = net.loads[i]!;
  return l.in_service && busType.has(l.bus) && busType.get(l.bus) !== 'isolated';
}

function contingencyList(net: NetworkModel, busType: Map<number, string>, spec: StudyRequest['contingencies']): StudyContingency[] {
  const out: StudyContingency[] = [];
  if (spec === 'n-1-branches' || spec === 'n-1') {
    for (let i = 0; i < net.branches.length; i++) {
      if (branchInService(net, busType, i)) out.push({ id: `branch:${i}`, branches: [i], generators: [] });
    }
  }
  if (spec === 'n-1-generators' || spec === 'n-1') {
    for (let i = 0; i < net.generators.length; i++) {
      if (generatorInService(net, busType, i)) out.push({ id: `generator:${i}`, branches: [], generators: [i] });
    }
  }
  if (typeof spec === 'string') {
    if (out.length === 0) invalid('contingencies', `'${spec}' names no in-service element of this network version`);
    return out;
  }
  const list = spec ?? [];
  if (list.length === 0) invalid('contingencies', 'the list is empty: name at least one contingency, or use n-1-branches, n-1-generators or n-1');
  const seen = new Set<string>();
  list.forEach((c, p) => {
    const field = `contingencies[${p}]`;
    const branches = c.branches ?? [], generators = c.generators ?? [];
    if (branches.length + generators.length === 0) invalid(field, 'an outage needs at least one branch or generator index');
    const check = (idx: number[], what: 'branches' | 'generators') => {
      const n = what === 'branches' ? net.branches.length : net.generators.length;
      const inService = what === 'branches' ? branchInService : generatorInService;
      const dup = new Set<number>();
      idx.forEach((i, q) => {
        const f = `${field}.${what}[${q}]`;
        if (!Number.isInteger(i) || i < 0 || i >= n)
          invalid(
            f,
            `${what === 'branches' ? 'branch' : 'generator'} index ${i} does not exist (the network version has ${n}, indexes 0 to ${n - 1})`,
          );
        if (dup.has(i)) invalid(f, `index ${i} is listed twice`);
        dup.add(i);
        if (!inService(net, busType, i)) invalid(f, `${what === 'branches' ? 'branch' : 'generator'} ${i} is already out of service in this network version`);
      });
    };
    check(branches, 'branches');
    check(generators, 'generators');
    const id = c.id ?? `contingency:${p}`;
    if (seen.has(id)) invalid(`${field}.id`, `contingency id '${id}' is used twice`);
    seen.add(id);
    out.push({ id, branches: [...branches], generators: [...generators] });
  });
  return out;
}

function column(values: number[], count: number, field: string, min: number): Float64Array {
  if (values.length !== count) invalid(field, `has ${values.length} values, but scenarios.count is ${count}: give one value per scenario`);
  const a = Float64Array.from(values);
  for (let s = 0; s < count; s++) {
    if (!Number.isFinite(a[s]!) || a[s]! < min) invalid(`${field}[${s}]`, min === 0 ? 'must be a finite number ≥ 0' : 'must be a finite number');
  }
  return a;
}

function scenarioColumns(net: NetworkModel, busType: Map<number, string>, spec: NonNullable<StudyRequest['scenarios']>): StudyScenarios {
  const count = spec.count;
  const loads = Object.entries(spec.loads ?? {}).map(([key, v]) => {
    const index = Number(key);
    const field = `scenarios.loads.${key}`;
    if (!Number.isInteger(index) || index >= net.loads.length)
      invalid(
        field,
        `load index ${key} does not exist (the network version has ${net.loads.length} loads, indexes 0 to ${net.loads.length - 1})`,
      );
    if (!loadInService(net, busType, index)) invalid(field, `load ${index} is out of service in this network version`);
    return { index, p: column(v.p_mw, count, `${field}.p_mw`, -Infinity), q: v.q_mvar ? column(v.q_mvar, count, `${field}.q_mvar`, -Infinity) : null };
  }).sort((a, b) => a.index - b.index);
  const generators = Object.entries(spec.generators ?? {}).map(([key, v]) => {
    const index = Number(key);
    const field = `scenarios.generators.${key}`;
    if (!Number.isInteger(index) || index >= net.generators.length)
      invalid(
        field,
        `generator index ${key} does not exist (the network version has ${net.generators.length} generators, indexes 0 to ${net.generators.length - 1})`,
      );
    if (!generatorInService(net, busType, index)) invalid(field, `generator ${index} is out of service in this network version`);
    return { index, p: column(v.p_mw, count, `${field}.p_mw`, -Infinity) };
  }).sort((a, b) => a.index - b.index);
  return {
    count,
    loadScale: spec.load_scale ? column(spec.load_scale, count, 'scenarios.load_scale', 0) : null,
    loads,
    generators,
  };
}

function monitorLists(net: NetworkModel, busType: Map<number, string>, spec: StudyRequest['monitor']): StudyPlan['monitor'] {
  const branches: number[] = [];
  const buses: number[] = [];
  if (spec?.branches === 'all') for (let i = 0; i < net.branches.length; i++) branches.push(i);
  else for (const [q, i] of (spec?.branches ?? []).entries()) {
    if (!Number.isInteger(i) || i < 0 || i >= net.branches.length)
      invalid(
        `monitor.branches[${q}]`,
        `branch index ${i} does not exist (the network version has ${net.branches.length}, indexes 0 to ${net.branches.length - 1})`,
      );
    branches.push(i);
  }
  if (spec?.buses === 'all') for (const b of net.buses) buses.push(b.id);
  else for (const [q, id] of (spec?.buses ?? []).entries()) {
    if (!busType.has(id)) invalid(`monitor.buses[${q}]`, `bus ${id} does not exist in this network version (buses are named by their bus id)`);
    buses.push(id);
  }
  const uniq = (a: number[]) => [...new Set(a)].sort((x, y) => x - y);
  return { branches: uniq(branches), buses: uniq(buses) };
}

/** Checks `request` against `network` and returns the study's plan (throws AppError INVALID_FIELD). */
export function planStudy(network: NetworkModel, request: StudyRequest): StudyPlan {
  const req = checkStudyRequest(request);
  const method = req.method ?? 'newton_raphson';
  const busType = new Map<number, string>();
  for (const b of network.buses) busType.set(b.id, b.type);

  let contingencies: StudyContingency[] = [];
  let scenarios: StudyScenarios | null = null;
  if (req.kind === 'contingency') {
    if (req.scenarios !== undefined) invalid('scenarios', "scenarios belong to kind 'scenarios' (which may also name contingencies)");
    if (req.warm_start === 'previous') invalid('warm_start', "warm_start 'previous' applies to kind 'scenarios' (a contingency starts from the base solution)");
    contingencies = contingencyList(network, busType, req.contingencies ?? 'n-1-branches');
  } else {
    if (req.screening !== undefined) invalid('screening', "screening applies to kind 'contingency' (a scenario sweep solves every scenario)");
    if (req.scenarios === undefined) invalid('scenarios', "kind 'scenarios' needs scenarios: {count, load_scale?, loads?, generators?}");
    scenarios = scenarioColumns(network, busType, req.scenarios!);
    if (req.contingencies !== undefined) contingencies = contingencyList(network, busType, req.contingencies);
  }
  const caseCount = scenarios ? scenarios.count * Math.max(contingencies.length, 1) : contingencies.length;
  return {
    kind: req.kind,
    options: {
      method,
      tolerance: req.tolerance ?? STUDY_DEFAULTS.tolerance,
      maxIterations: req.max_iterations ?? STUDY_DEFAULTS.maxIterations,
      enforceQLimits: req.enforce_q_limits ?? false,
    },
    contingencies,
    scenarios,
    caseCount,
    monitor: monitorLists(network, busType, req.monitor),
    loadingLimitPercent: req.loading_limit_percent ?? STUDY_DEFAULTS.loadingLimitPercent,
    islanding: req.islanding ?? 'isolate',
    screening: req.screening ? {
      method: req.screening.method ?? STUDY_DEFAULTS.screeningMethod,
      thresholdPercent: req.screening.threshold_percent ?? STUDY_DEFAULTS.screeningThresholdPercent,
    } : null,
    violationFilter: {
      flowIncreasePercent: req.violation_filter?.flow_increase_percent ?? STUDY_DEFAULTS.flowIncreasePercent,
      voltageIncreasePu: req.violation_filter?.voltage_increase_pu ?? STUDY_DEFAULTS.voltageIncreasePu,
    },
    warmStart: req.warm_start ?? 'default',
  };
}

/** Scenario and contingency position of case k (see the case order in types.ts). */
export function studyCaseAt(plan: StudyPlan, k: number): { scenario: number | null; contingency: number | null } {
  if (!plan.scenarios) return { scenario: null, contingency: k };
  const nc = plan.contingencies.length;
  if (nc === 0) return { scenario: k, contingency: null };
  return { scenario: Math.floor(k / nc), contingency: k % nc };
}

/** The case id of case k. */
export function studyCaseId(plan: StudyPlan, k: number): string {
  const { scenario, contingency } = studyCaseAt(plan, k);
  const c = contingency === null ? null : plan.contingencies[contingency]!.id;
  if (scenario === null) return c!;
  return c === null ? `scenario:${scenario}` : `scenario:${scenario}/${c}`;
}
