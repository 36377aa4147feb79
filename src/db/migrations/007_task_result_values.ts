// A result's per-element values (buses, branches, generators) are stored in binary
// (src/powerflow/resultValues.ts) beside its small JSON header in tasks.result. Float64
// values hardly compress, so PostgreSQL is told not to try (EXTERNAL: out of line,
// uncompressed). Rows stored before this keep their values inside tasks.result.
export const sql = `
ALTER TABLE tasks ADD COLUMN result_values bytea;
ALTER TABLE tasks ALTER COLUMN result_values SET STORAGE EXTERNAL;
`;
