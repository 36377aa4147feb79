// The BullMQ job carrying a task when it is not the task's own id: under a stream of small
// solves one job carries several tasks (src/queue/bullmq.ts), and the sweeper follows a
// task to its job through this column. NULL means the job id is the task id.
export const sql = `
ALTER TABLE tasks ADD COLUMN job_id text;
`;
