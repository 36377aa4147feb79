// The matrix of an asynchronous PTDF / LODF task (CONTRACT "Sensitivities", async: true), one row
// per matrix row: little-endian float64 values (NaN for an LODF column of a bridge). Rows are
// written in batches as they are computed and read back in order, streamed, so a matrix of
// millions of entries is never one value in memory or in one statement. Float64 values hardly
// compress: stored out of line, uncompressed (EXTERNAL).
export const sql = `
CREATE TABLE sensitivity_rows (
  task_id text NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  row_index int NOT NULL,
  row_values bytea NOT NULL,
  PRIMARY KEY (task_id, row_index)
);
ALTER TABLE sensitivity_rows ALTER COLUMN row_values SET STORAGE EXTERNAL;
`;
