// What runs a claimed task of one kind (type-only: the table is filled in bootstrap.ts and held
// by Services, so the queue's life cycle does not import what it runs).
import type { Services } from '../services.js';
import type { TaskRow } from '../domain/tasks.js';

export type TaskRunner = (s: Services, task: TaskRow, signal: AbortSignal) => Promise<void>;

/** Task kind ('powerflow', 'study', 'opf') -> its runner. */
export type TaskRunners = Readonly<Record<string, TaskRunner>>;
