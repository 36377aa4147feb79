// Columns of packed float64 values (power-flow result values, a study case's monitored values, sensitivity rows,
// drawing positions) are stored without PostgreSQL's pglz compression: solved values do not compress (a
// case13659pegase result's 1.7 MB was stored at 1.7 MB after pglz had tried), and the attempt cost about two
// thirds of the insert (32 → 10 ms on PGlite), time in which the embedded database's one connection serves no one
// else. A deflated model (migration 019) is not compressed again either. EXTERNAL keeps them out of line (TOAST)
// as before. Rows stored before keep their form; both read the same.
export const sql = `
ALTER TABLE tasks ALTER COLUMN result_values SET STORAGE EXTERNAL;
ALTER TABLE study_cases ALTER COLUMN monitored SET STORAGE EXTERNAL;
ALTER TABLE sensitivity_rows ALTER COLUMN row_values SET STORAGE EXTERNAL;
ALTER TABLE network_versions ALTER COLUMN layout SET STORAGE EXTERNAL;
ALTER TABLE network_versions ALTER COLUMN model_z SET STORAGE EXTERNAL; -- deflated already (migration 019)
`;
