// Results (tens of kB of JSON per task) are compressed when stored; lz4 does it several
// times faster than PostgreSQL's default pglz, which showed in the task life cycle under
// load. A server built without lz4 (PGlite, some builds) keeps the default.
export const sql = `
DO $$
BEGIN
  ALTER TABLE tasks ALTER COLUMN result SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'lz4 compression not available: task results stay with the default';
END $$;
`;
