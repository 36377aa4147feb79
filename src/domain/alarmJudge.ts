// The alarm rules as the subscriber of finished power flows (src/queue/finishedPowerFlows.ts): a network's
// newest converged result raises, updates and clears its power-flow alarms (docs/alarms.md). Wired in by
// src/bootstrap.ts; the queue never imports this module.
import type { PowerFlowJudge } from '../queue/finishedPowerFlows.js';
import { evaluatePowerFlowAlarms, isQuietResult, POWERFLOW_ALARM_TYPES, quietJudgementSql } from './alarms.js';

export const alarmJudge: PowerFlowJudge = {
  async judge(s, f, opts = {}) {
    await evaluatePowerFlowAlarms(s, f.task, f.result, f.model, { judged: opts.judgedInStatement ?? false }).catch((e) =>
      s.log.error({ err: e, task: f.task.id }, 'alarm evaluation failed'),
    );
  },
  inStatement: {
    takes: isQuietResult,
    sql(taken, tasksCte, firstParam) {
      const parts = quietJudgementSql(`$${firstParam}::jsonb`, tasksCte, `$${firstParam + 1}`);
      const rows = taken.map((t) => ({ task_id: t.id, network_id: t.network_id, tenant_id: t.tenant_id }));
      return { ...parts, params: [JSON.stringify(rows), POWERFLOW_ALARM_TYPES] };
    },
    // A quiet result recorded fresh on a network with open alarms clears them (the whole judgement).
    followUp(row, networkId) {
      const fresh = (row?.judged_fresh as string[] | null) ?? [];
      const open = (row?.judged_open as string[] | null) ?? [];
      return fresh.includes(networkId) && open.includes(networkId);
    },
  },
};
