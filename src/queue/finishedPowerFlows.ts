// The subscriber of finished power flows (issue 40): the queue stores a finished task and announces it;
// what its result means for the rest of the service (alarms, today: src/domain/alarmJudge.ts) is judged by
// the subscriber src/bootstrap.ts wires in as Services.powerFlowJudge. The queue depends on this interface
// only, never on a domain module that judges (test/architecture.test.ts).
import type { Services } from '../services.js';
import type { TaskRow } from '../domain/tasks.js';
import type { NetworkModel } from '../domain/networkModel.js';

/** A network's newest finished power flow, once stored (its seq known) and before it is announced. */
export interface FinishedPowerFlow {
  task: TaskRow;
  /** The result when task.result does not hold it (a task read back without it). */
  result?: Record<string, unknown> | null;
  /** The network version it was solved on, when the caller has it at hand (saves a read). */
  model?: NetworkModel;
}

/** The parts of a statement that judges, beside storing them, the results a subscriber can judge there. */
export interface StatementJudgement {
  /** CTEs, after the caller's (a WITH list goes on with `, ${ctes}`); they may read `tasksCte`'s RETURNING id, seq. */
  ctes: string;
  /** Select-list items the statement returns on its first row, for `followUp`. */
  select: string;
  /** The parameters the parts use, numbered from the caller's `firstParam`. */
  params: unknown[];
}

/**
 * A judgement that can share the statement storing direct runs (src/queue/direct.ts), so that a result judged
 * quickly costs no statement of its own: `takes` picks the results, `sql` adds their judgement to the statement,
 * and `followUp` says, from the statement's first row, whether a network's judgement needs `judge` after all.
 */
export interface InStatementJudgement {
  takes(task: TaskRow, model: NetworkModel): boolean;
  sql(taken: TaskRow[], tasksCte: string, firstParam: number): StatementJudgement;
  followUp(firstRow: Record<string, unknown> | undefined, networkId: string): boolean;
}

export interface PowerFlowJudge {
  /** Judges a finished power flow; `judgedInStatement`: its statement already did part of it (InStatementJudgement). */
  judge(s: Services, finished: FinishedPowerFlow, opts?: { judgedInStatement?: boolean }): Promise<void>;
  inStatement?: InStatementJudgement;
}
