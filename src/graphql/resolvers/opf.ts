// runOpf: the same domain function as POST /networks/{id}/opf (src/domain/opf.ts).
import { runOpf } from '../../domain/opf.js';
import type { OpfBranch, OpfBus, OpfGenerator, OpfMethod, OpfResult } from '../../opf/types.js';
import type { OpfStart } from '../../schemas/vocabulary.js';
import type { IslandingRule } from '../../powerflow/types.js';
import { mutation } from '../guard.js';
import type { SecurityOutcome, SecurityRequest } from '../../opf/security.js';
import type { GqlEnum, IdArgs, Opt } from '../args.js';
import { defined, down } from './map.js';

interface RunOpfArgs extends IdArgs {
  method?: Opt<GqlEnum<OpfMethod>>;
  async?: Opt<boolean>;
  timeoutMs?: Opt<number>;
  tolerance?: Opt<number>;
  maxIterations?: Opt<number>;
  islanding?: Opt<GqlEnum<IslandingRule>>;
  start?: Opt<GqlEnum<OpfStart>>;
  security?: Opt<{ n1Branches?: Opt<boolean>; contingencies?: Opt<{ id?: Opt<string>; branches: number[] }[]>; limit?: Opt<'RATE_C' | 'RATE_B' | 'RATE_A'> }>;
}

function securityRequest(s: NonNullable<RunOpfArgs['security']>): SecurityRequest {
  const list = s.contingencies?.map((c) => (c.id == null ? { branches: c.branches } : { id: c.id, branches: c.branches }));
  return {
    contingencies: list && list.length > 0 ? list : 'n-1-branches',
    ...(s.limit ? { limit: s.limit.toLowerCase() as SecurityRequest['limit'] } : {}),
  };
}

interface StoredOpf {
  start?: OpfStart;
  earlier_runs?: OpfResult['earlier_runs'];
  security?: SecurityOutcome;
  task_id: string;
  status: string;
  method: OpfMethod;
  solver?: string;
  objective: number;
  iterations: number;
  buses: OpfBus[];
  generators: OpfGenerator[];
  branches: OpfBranch[];
  dc_lines?: OpfResult['dc_lines'];
  lost_load_mw?: number;
  lost_generation_mw?: number;
}

export const opfResolvers = {
  Mutation: {
    runOpf: mutation(
      { permission: 'compute', resourceType: 'network', rate: { ipClass: 'compute', endpoint: 'POST /networks/:id/opf' } },
      async (caller, a: RunOpfArgs, ctx) => {
        const method = down<OpfMethod>(a.method) ?? 'ac';
        const answer = await runOpf(
          ctx.s,
          caller,
          a.id,
          defined({
            method,
            async: a.async ?? undefined,
            timeout_ms: a.timeoutMs ?? undefined,
            tolerance: a.tolerance ?? undefined,
            max_iterations: a.maxIterations ?? undefined,
            islanding: down<IslandingRule>(a.islanding),
            start: down<OpfStart>(a.start),
            security: a.security ? securityRequest(a.security) : undefined,
          }),
        );
        if (answer.kind === 'queued')
          return {
            taskId: answer.task.task_id,
            status: 'QUEUED',
            method: method.toUpperCase(),
            solver: null,
            objective: null,
            iterations: null,
            buses: [],
            generators: [],
            branches: [],
          };
        const r = answer.result as unknown as StoredOpf;
        return {
          taskId: r.task_id,
          status: r.status.toUpperCase(),
          method: r.method.toUpperCase(),
          solver: r.solver ?? 'mips',
          objective: r.objective,
          iterations: r.iterations,
          buses: r.buses.map((b) => ({
            id: b.id,
            v: b.v,
            theta: b.theta,
            lmpP: b.lmp_p,
            lmpQ: b.lmp_q,
            muVmin: b.mu_vmin,
            muVmax: b.mu_vmax,
            energized: b.energized ?? null,
          })),
          lostLoadMw: r.lost_load_mw ?? null,
          lostGenerationMw: r.lost_generation_mw ?? null,
          generators: r.generators.map((g) => ({
            index: g.index,
            bus: g.bus,
            pMw: g.p_mw,
            qMvar: g.q_mvar,
            muPmin: g.mu_pmin,
            muPmax: g.mu_pmax,
            muQmin: g.mu_qmin,
            muQmax: g.mu_qmax,
          })),
          branches: r.branches.map((b) => ({
            index: b.index,
            from: b.from,
            to: b.to,
            pFrom: b.p_from,
            qFrom: b.q_from,
            pTo: b.p_to,
            qTo: b.q_to,
            loading: b.loading,
            muSf: b.mu_sf,
            muSt: b.mu_st,
          })),
          dcLines:
            r.dc_lines?.map((d) => ({
              index: d.index,
              from: d.from,
              to: d.to,
              inService: d.in_service,
              pFrom: d.p_from,
              pTo: d.p_to,
              qFrom: d.q_from,
              qTo: d.q_to,
              vFrom: d.v_from,
              vTo: d.v_to,
              muPmin: d.mu_pmin,
              muPmax: d.mu_pmax,
              muQminFrom: d.mu_qmin_from,
              muQmaxFrom: d.mu_qmax_from,
              muQminTo: d.mu_qmin_to,
              muQmaxTo: d.mu_qmax_to,
            })) ?? null,
          start: r.start?.toUpperCase() ?? null,
          earlierRuns:
            r.earlier_runs?.map((e) => ({
              start: e.start.toUpperCase(),
              status: e.status.toUpperCase(),
              iterations: e.iterations,
              durationMs: e.duration_ms,
              message: e.message ?? null,
            })) ?? null,
          security: r.security
            ? {
                contingencies: r.security.contingencies,
                limit: r.security.limit.toUpperCase(),
                rounds: r.security.rounds,
                constraintsAdded: r.security.constraints_added,
                excluded: r.security.excluded.map(String),
                binding: r.security.binding.map((b) => ({
                  outage: String(b.outage),
                  branch: b.branch,
                  flowMw: b.flow_mw,
                  limitMw: b.limit_mw,
                  mu: b.mu,
                })),
              }
            : null,
        };
      },
    ),
  },
};
