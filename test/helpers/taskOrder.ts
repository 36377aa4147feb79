// Per-tenant FIFO, as the direct-path tests check it: two tasks of one tenant both completed, the earlier started first.
import assert from 'node:assert/strict';

export interface StartedRow {
  id: string;
  status: string;
  started_at: Date | null;
}

export function assertCompletedInOrder(rows: StartedRow[], earlier: string, later: string): void {
  const e = rows.find((t) => t.id === earlier)!;
  const l = rows.find((t) => t.id === later)!;
  assert.equal(e.status, 'completed');
  assert.equal(l.status, 'completed');
  assert.ok(new Date(e.started_at!).getTime() <= new Date(l.started_at!).getTime(), 'the earlier task started first');
}
