// Generator cost validation: plain functions every door (REST, GraphQL, MATPOWER import, OPF) calls.
// A cost is MATPOWER's gencost row: polynomial coefficients highest order first (currency/h for P in
// MW), or piecewise-linear points x1,y1,x2,y2,... (MW, currency/h). Messages name the generator and
// say what to change, so they can go straight into a 400 body.

import { COST_MODELS, type GeneratorCost, type NetworkModel } from '../domain/networkModel.js';
import type { ValidationIssue } from '../domain/networkValidation.js';

/** Most polynomial coefficients / piecewise-linear points accepted (MATPOWER has no limit; this keeps
 *  a request from asking for a degree-10,000 polynomial). */
export const MAX_COST_TERMS = 64;

/** Problems of one cost, as sentences; empty when the cost is valid. `what` names it ("generator 3");
 *  `unit` is what its x axis is in (MW for `cost`, MVAr for `reactive_cost`). */
export function costProblems(cost: GeneratorCost, what: string, unit: 'MW' | 'MVAr' = 'MW'): string[] {
  const out: string[] = [];
  if (!COST_MODELS.includes(cost.model)) {
    out.push(`${what}: cost model must be "polynomial" or "piecewise_linear", not ${JSON.stringify(cost.model)}`);
    return out;
  }
  if (!Number.isFinite(cost.startup) || !Number.isFinite(cost.shutdown)) out.push(`${what}: cost startup and shutdown must be finite numbers`);
  const c = cost.coefficients;
  if (!Array.isArray(c) || c.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    out.push(`${what}: cost coefficients must be finite numbers`);
    return out;
  }
  if (cost.model === 'polynomial') {
    if (c.length < 1 || c.length > MAX_COST_TERMS)
      out.push(`${what}: a polynomial cost needs 1 to ${MAX_COST_TERMS} coefficients (highest order first), got ${c.length}`);
    return out;
  }
  if (c.length % 2 !== 0) out.push(`${what}: a piecewise-linear cost lists points as x1,y1,x2,y2,...: an even number of values, got ${c.length}`);
  const n = Math.floor(c.length / 2);
  if (n < 2 || n > MAX_COST_TERMS) out.push(`${what}: a piecewise-linear cost needs 2 to ${MAX_COST_TERMS} points, got ${n}`);
  if (out.length > 0) return out;
  let prevSlope = -Infinity;
  for (let k = 1; k < n; k++) {
    const dx = c[2 * k]! - c[2 * k - 2]!;
    if (!(dx > 0)) {
      out.push(`${what}: piecewise-linear cost points must have increasing ${unit} (x${k + 1} = ${c[2 * k]} is not above x${k} = ${c[2 * k - 2]})`);
      return out;
    }
    const slope = (c[2 * k + 1]! - c[2 * k - 1]!) / dx;
    if (slope < prevSlope - 1e-10 * Math.max(1, Math.abs(prevSlope))) {
      out.push(
        `${what}: piecewise-linear cost is not convex: the slope falls from ${fmt(prevSlope)} to ${fmt(slope)} at point ${k + 1}; ` +
          `OPF needs non-decreasing marginal cost`,
      );
      return out;
    }
    prevSlope = slope;
  }
  return out;
}

function fmt(x: number): string {
  return Number(x.toPrecision(6)).toString();
}

/** Issues of the OPF fields of a model being stored (REST/GraphQL create and update): costs that are given
 *  must be valid, branch angle limits ordered. Missing costs are fine here; OPF asks for them. Indices 0-based. */
export function opfFieldIssues(m: NetworkModel): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  m.generators.forEach((g, i) => {
    if (!g.cost) return;
    for (const message of costProblems(g.cost, `generator ${i} (bus ${g.bus})`)) {
      issues.push({ field: `generators[${i}].cost`, message, code: 'VALIDATION_FAILED', details: { generator_index: i } });
    }
  });
  m.generators.forEach((g, i) => {
    if (!g.reactive_cost) return;
    for (const message of costProblems(g.reactive_cost, `generator ${i} (bus ${g.bus}) reactive_cost`, 'MVAr')) {
      issues.push({ field: `generators[${i}].reactive_cost`, message, code: 'VALIDATION_FAILED', details: { generator_index: i } });
    }
  });
  (m.dc_lines ?? []).forEach((d, i) => {
    if (!d.cost) return;
    for (const message of costProblems(d.cost, `DC line ${i} (${d.from}-${d.to})`)) {
      issues.push({ field: `dc_lines[${i}].cost`, message, code: 'VALIDATION_FAILED', details: { dc_line_index: i } });
    }
  });
  m.branches.forEach((br, i) => {
    const lo = br.angmin ?? -360, hi = br.angmax ?? 360;
    if (!(lo <= hi))
      issues.push({
        field: `branches[${i}].angmin`,
        message: `branch ${i} (${br.from}-${br.to}) angmin (${lo}°) must not exceed angmax (${hi}°)`,
        code: 'PARAM_OUT_OF_RANGE',
        details: { branch_index: i },
      });
  });
  return issues;
}

/** Problems of the network's costs for an OPF of `method`: every in-service generator needs a valid cost;
 *  DC-OPF, like MATPOWER's, takes polynomials of degree 2 at most. Generators are named by 0-based index. */
export function opfCostProblems(network: NetworkModel, method: 'dc' | 'ac'): string[] {
  const out: string[] = [];
  network.generators.forEach((g, i) => {
    const what = `generator ${i} (bus ${g.bus})`;
    const cost = g.cost ?? null;
    if (cost === null) {
      if (g.in_service) out.push(`${what}: in service without a cost; OPF needs a cost for every in-service generator`);
      return;
    }
    const p = costProblems(cost, what);
    // the DC-OPF drops reactive costs, as MATPOWER's does
    if (method === 'ac' && g.reactive_cost) p.push(...costProblems(g.reactive_cost, `${what} reactive_cost`, 'MVAr'));
    out.push(...p);
    if (p.length === 0 && method === 'dc' && cost.model === 'polynomial' && trimLeadingZeros(cost.coefficients).length > 3) {
      out.push(
        `${what}: DC-OPF takes polynomial costs up to quadratic; this one has degree ` +
          `${trimLeadingZeros(cost.coefficients).length - 1} (use method "ac" or a piecewise-linear cost)`,
      );
    }
  });
  // a DC line's cost is optional (MATPOWER's mpc.dclinecost; none = zero)
  (network.dc_lines ?? []).forEach((d, i) => {
    if (!d.cost || !d.in_service) return;
    const what = `DC line ${i} (${d.from}-${d.to})`;
    const p = costProblems(d.cost, what);
    out.push(...p);
    if (p.length === 0 && method === 'dc' && d.cost.model === 'polynomial' && trimLeadingZeros(d.cost.coefficients).length > 3) {
      out.push(`${what}: DC-OPF takes polynomial costs up to quadratic; this one has degree ${trimLeadingZeros(d.cost.coefficients).length - 1}`);
    }
  });
  return out;
}

/** Polynomial coefficients without leading zero terms (a 0*P^3 term does not make a cost cubic). */
export function trimLeadingZeros(c: readonly number[]): number[] {
  let k = 0;
  while (k < c.length - 1 && c[k] === 0) k++;
  return c.slice(k);
}
