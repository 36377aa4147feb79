// POST /agents/{id}/commands: up to 50 commands for one agent, run one after another,
// highest priority first (stable); each entry succeeds or fails alone.
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import { AppError } from '../../lib/errors.js';
import { batchError, findAgentRow } from '../agents.js';
import { executeCommand } from './runner.js';
import { COMMAND_LIMITS, priorityRank, type CommandRequest, type CommandResult } from './vocabulary.js';

/** Entries that hit the per-second or control-interval limit wait for their turn (at most a few seconds) instead of failing. */
export async function executeCommandBatch(s: Services, caller: Caller, agentId: string, entries: CommandRequest[]) {
  if (entries.length > COMMAND_LIMITS.batchMax)
    throw new AppError('VALIDATION_FAILED', `a command batch holds at most ${COMMAND_LIMITS.batchMax} commands, got ${entries.length}`, {
      limit: COMMAND_LIMITS.batchMax,
    });
  await findAgentRow(s.db, caller, agentId);
  const order = entries.map((e, i) => ({ e, i, rank: priorityRank(e?.priority) })).sort((x, y) => x.rank - y.rank || x.i - y.i);
  const succeeded: { index: number; id: string; status: string; result: CommandResult }[] = [];
  const failed: { index: number; error: ReturnType<typeof batchError> }[] = [];
  for (const { e, i } of order) {
    for (let attempt = 0; ; attempt++) {
      try {
        const { result } = await executeCommand(s, caller, agentId, { ...e, await_result: true });
        succeeded.push({ index: i, id: result.command_id, status: result.status, result });
        break;
      } catch (err) {
        const wait = err instanceof AppError && err.code === 'RATE_LIMITED' ? Number(err.details?.retry_after_ms ?? 0) : 0;
        if (wait > 0 && wait <= 2000 && attempt < 5) {
          await new Promise((r) => setTimeout(r, wait + 5));
          continue;
        }
        failed.push({ index: i, error: batchError(err) });
        break;
      }
    }
  }
  succeeded.sort((x, y) => x.index - y.index);
  failed.sort((x, y) => x.index - y.index);
  return { succeeded, failed };
}
