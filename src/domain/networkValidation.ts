// Checks a network model before it is stored or solved: references between
// elements, impedances, and that every island of in-service branches has a slack.
import type { NetworkModel } from './networkModel.js';
import { connectedComponents, type Components } from '../lib/graph.js';

export interface ValidationIssue {
  field: string;
  message: string;
  code: 'VALIDATION_FAILED' | 'TOPOLOGY_INVALID' | 'ISLANDED_BUS' | 'BUS_NOT_FOUND' | 'PARAM_OUT_OF_RANGE';
  details?: Record<string, unknown>;
}

const MAX_LISTED = 20;

export function validateTopology(m: NetworkModel): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const index = new Map<number, number>();
  m.buses.forEach((b, i) => {
    if (!Number.isInteger(b.id) || b.id <= 0)
      issues.push({ field: `buses[${i}].id`, message: `bus id must be a positive integer, got ${b.id}`, code: 'VALIDATION_FAILED' });
    else if (index.has(b.id))
      issues.push({
        field: `buses[${i}].id`,
        message: `bus ${b.id} is defined twice (buses[${index.get(b.id)}] and buses[${i}])`,
        code: 'VALIDATION_FAILED',
        details: { bus: b.id },
      });
    else index.set(b.id, i);
    if (!(b.v > 0))
      issues.push({
        field: `buses[${i}].v`,
        message: `bus ${b.id} voltage must be positive, got ${b.v}`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { bus: b.id },
      });
    if (!(b.vmin < b.vmax))
      issues.push({
        field: `buses[${i}].vmin`,
        message: `bus ${b.id} vmin (${b.vmin}) must be below vmax (${b.vmax})`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { bus: b.id },
      });
    if ((b.lat === undefined) !== (b.lon === undefined))
      issues.push({
        field: `buses[${i}].${b.lat === undefined ? 'lat' : 'lon'}`,
        message: `bus ${b.id} has ${b.lat === undefined ? 'lon without lat' : 'lat without lon'}: give both coordinates or neither`,
        code: 'VALIDATION_FAILED',
        details: { bus: b.id },
      });
  });
  if (!(m.base_mva > 0)) issues.push({ field: 'base_mva', message: `base_mva must be positive, got ${m.base_mva}`, code: 'PARAM_OUT_OF_RANGE' });
  m.branches.forEach((br, i) => {
    for (const end of ['from', 'to'] as const) {
      if (!index.has(br[end]))
        issues.push({
          field: `branches[${i}].${end}`,
          message: `branch ${i} (${br.from}-${br.to}) refers to bus ${br[end]}, which does not exist`,
          code: 'BUS_NOT_FOUND',
          details: { branch_index: i, bus: br[end] },
        });
    }
    if (br.from === br.to)
      issues.push({
        field: `branches[${i}]`,
        message: `branch ${i} connects bus ${br.from} to itself`,
        code: 'TOPOLOGY_INVALID',
        details: { branch_index: i, bus: br.from },
      });
    if (br.r === 0 && br.x === 0)
      issues.push({
        field: `branches[${i}].x`,
        message: `branch ${i} (${br.from}-${br.to}) has zero impedance (r = x = 0)`,
        code: 'VALIDATION_FAILED',
        details: { branch_index: i },
      });
    if (br.ratio < 0)
      issues.push({
        field: `branches[${i}].ratio`,
        message: `branch ${i} tap ratio must be 0 (none) or positive, got ${br.ratio}`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { branch_index: i },
      });
    if (br.rate_a < 0)
      issues.push({
        field: `branches[${i}].rate_a`,
        message: `branch ${i} rate_a must be 0 (unlimited) or positive`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { branch_index: i },
      });
  });
  m.generators.forEach((g, i) => {
    if (!index.has(g.bus))
      issues.push({
        field: `generators[${i}].bus`,
        message: `generator ${i} is at bus ${g.bus}, which does not exist`,
        code: 'BUS_NOT_FOUND',
        details: { generator_index: i, bus: g.bus },
      });
    if (!(g.vg > 0))
      issues.push({
        field: `generators[${i}].vg`,
        message: `generator ${i} voltage set point must be positive`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { generator_index: i },
      });
    // Limits the wrong way round make every OPF of the network infeasible and Q-limit enforcement
    // meaningless: refused where they are entered, not at the first calculation (#21 probe).
    for (const [lo, hi, unit] of [['pmin', 'pmax', 'MW'], ['qmin', 'qmax', 'MVAr']] as const) {
      const a = g[lo], b = g[hi];
      if (a !== undefined && a !== null && b !== undefined && b !== null && a > b) {
        issues.push({
          field: `generators[${i}].${lo}`,
          message: `generator ${i} at bus ${g.bus} has ${lo} ${a} ${unit} above ${hi} ${b} ${unit}; swap them or correct one`,
          code: 'PARAM_OUT_OF_RANGE',
          details: { generator_index: i, [lo]: a, [hi]: b },
        });
      }
    }
  });
  m.loads.forEach((l, i) => {
    if (!index.has(l.bus))
      issues.push({
        field: `loads[${i}].bus`,
        message: `load ${i} is at bus ${l.bus}, which does not exist`,
        code: 'BUS_NOT_FOUND',
        details: { load_index: i, bus: l.bus },
      });
  });
  if (issues.some((x) => x.code === 'BUS_NOT_FOUND' || x.field.endsWith('.id'))) return issues;

  if (!m.buses.some((b) => b.type === 'slack')) {
    issues.push({ field: 'buses', message: 'the network has no slack bus; mark one bus with type "slack"', code: 'TOPOLOGY_INVALID' });
    return issues;
  }
  issues.push(...islandIssues(m, index));
  return issues;
}

/** Every connected component of non-isolated buses over closed branches needs a slack bus. */
function islandIssues(m: NetworkModel, index: Map<number, number>): ValidationIssue[] {
  const { label } = busIslands(m, index);
  const hasSlack = new Set<number>();
  m.buses.forEach((b, i) => {
    if (b.type === 'slack') hasSlack.add(label[i]!);
  });
  const orphans: number[] = [];
  m.buses.forEach((b, i) => {
    if (b.type !== 'isolated' && !hasSlack.has(label[i]!)) orphans.push(b.id);
  });
  if (orphans.length === 0) return [];
  return [
    {
      field: 'buses',
      message: `${orphans.length} bus(es) are not connected to any slack bus through closed branches: ` +
        `${orphans.slice(0, MAX_LISTED).join(', ')}${orphans.length > MAX_LISTED ? ', …' : ''}; connect them, give their ` +
        `island a slack bus, or mark them "isolated"`,
      code: 'ISLANDED_BUS',
      details: { buses: orphans.slice(0, 100), count: orphans.length },
    },
  ];
}

/** Islands of a network's buses (by position in m.buses) over closed branches; an isolated bus is an island of its own. */
export function busIslands(m: NetworkModel, index: Map<number, number> = new Map(m.buses.map((b, i) => [b.id, i]))): Components {
  return connectedComponents(m.buses.length, (link) => {
    for (const br of m.branches) {
      if (br.status !== 'closed') continue;
      const a = index.get(br.from);
      const b = index.get(br.to);
      if (a === undefined || b === undefined || m.buses[a]!.type === 'isolated' || m.buses[b]!.type === 'isolated') continue;
      link(a, b);
    }
  });
}

/** The islands of a network for POST /validate: buses, the first slack (null: none; a power flow refuses it by default), the largest first. */
export function islandSummaries(m: NetworkModel): { buses: number[]; slack_bus: number | null }[] {
  const { label, count } = busIslands(m);
  const out = Array.from({ length: count }, () => ({ buses: [] as number[], slack_bus: null as number | null }));
  m.buses.forEach((b, i) => {
    const isl = out[label[i]!]!;
    isl.buses.push(b.id);
    if (b.type === 'slack' && isl.slack_bus === null) isl.slack_bus = b.id;
  });
  return out.sort((a, b) => b.buses.length - a.buses.length);
}
