// Stored results count against a tenant's storage quota (quota result_storage_mb, docs/security.md "Storage
// quota and retention"): each task records the bytes of what it stored (its result and values, a sensitivity
// matrix's rows, a study's case rows), added as they are written, so a tenant's use is one indexed sum and
// deleting a task (DELETE /tasks/{id}, the retention sweep) gives its bytes back with its rows.
export const sql = `
ALTER TABLE tasks ADD COLUMN result_bytes bigint NOT NULL DEFAULT 0;
CREATE INDEX tasks_tenant_result_bytes ON tasks (tenant_id) INCLUDE (result_bytes) WHERE result_bytes > 0;
CREATE INDEX tasks_completed_at ON tasks (completed_at) WHERE completed_at IS NOT NULL;
UPDATE tasks t SET result_bytes = coalesce(octet_length(t.result::text), 0) + coalesce(octet_length(t.result_values), 0)
  + coalesce((SELECT sum(octet_length(r.row_values)) FROM sensitivity_rows r WHERE r.task_id = t.id), 0)
  + coalesce((SELECT sum(64 + coalesce(octet_length(c.monitored), 0) + coalesce(octet_length(c.violations::text), 0)
                          + coalesce(octet_length(c.islanded::text), 0))
              FROM studies st JOIN study_cases c ON c.study_id = st.id WHERE st.task_id = t.id), 0)
WHERE t.result IS NOT NULL OR t.kind IN ('study', 'sensitivities');
`;
