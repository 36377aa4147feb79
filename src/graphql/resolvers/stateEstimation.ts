// runStateEstimation: the same domain function as POST /networks/{id}/state-estimation (src/domain/stateEstimation.ts).
import { runStateEstimation } from '../../domain/stateEstimation.js';
import type { MeasurementKind, StateEstimationResult } from '../../stateEstimation/types.js';
import { mutation } from '../guard.js';
import type { GqlEnum, IdArgs, Opt } from '../args.js';
import { defined, down } from './map.js';

interface RunStateEstimationArgs extends IdArgs {
  measurements?: Opt<{ kind: GqlEnum<MeasurementKind>; element: number; value: number; sigma: number }[]>;
  at?: Opt<Date | string>;
  maxAgeS?: Opt<number>;
  badData?: Opt<boolean>;
  threshold?: Opt<number>;
  maxIterations?: Opt<number>;
  timeoutMs?: Opt<number>;
  async?: Opt<boolean>;
}

const up = (k: string) => k.toUpperCase();

export const stateEstimationResolvers = {
  Mutation: {
    runStateEstimation: mutation(
      { permission: 'compute', resourceType: 'network', rate: { ipClass: 'compute' } },
      async (caller, a: RunStateEstimationArgs, ctx) => {
        const at = a.at == null ? undefined : a.at instanceof Date ? a.at.toISOString() : String(a.at);
        const answer = await runStateEstimation(
          ctx.s,
          caller,
          a.id,
          defined({
            measurements: a.measurements?.map((m) => ({
              kind: down<MeasurementKind>(m.kind)!,
              element: m.element,
              value: m.value,
              sigma: m.sigma,
            })),
            at,
            max_age_s: a.maxAgeS ?? undefined,
            bad_data:
              a.badData === false ? (false as const) : a.threshold != null ? { method: 'lnr' as const, threshold: a.threshold } : undefined,
            max_iterations: a.maxIterations ?? undefined,
            timeout_ms: a.timeoutMs ?? undefined,
            async: a.async ?? undefined,
          }),
        );
        if (answer.kind === 'queued')
          return { taskId: answer.task.task_id, status: 'QUEUED', buses: [], branches: [], generators: [], badData: [], residuals: [] };
        const r = answer.result as unknown as StateEstimationResult & { task_id: string };
        return {
          taskId: r.task_id,
          status: up(r.status),
          iterations: r.iterations,
          passes: r.passes,
          J: r.J,
          dof: r.dof,
          chiSquare: { J: r.chi_square.J, dof: r.chi_square.dof, quantile99: r.chi_square.quantile_99, passed: r.chi_square.passed },
          buses: r.buses,
          branches: r.branches.map((b) => ({
            index: b.index,
            from: b.from,
            to: b.to,
            pFrom: b.p_from,
            qFrom: b.q_from,
            pTo: b.p_to,
            qTo: b.q_to,
            loading: b.loading,
          })),
          generators: r.generators.map((g) => ({ index: g.index, bus: g.bus, pMw: g.p_mw, qMvar: g.q_mvar })),
          badData: r.bad_data.map((d) => ({
            measurement: d.measurement,
            kind: up(d.kind),
            element: d.element,
            value: d.value,
            normalizedResidual: d.normalized_residual,
          })),
          residuals: r.residuals.map((x) => ({
            measurement: x.measurement,
            kind: up(x.kind),
            element: x.element,
            value: x.value,
            estimate: x.estimate,
            residual: x.residual,
            normalizedResidual: x.normalized_residual,
            critical: x.critical,
          })),
          observability: { observable: r.observability.observable, unobservableBuses: r.observability.unobservable_buses },
        };
      },
    ),
  },
};
