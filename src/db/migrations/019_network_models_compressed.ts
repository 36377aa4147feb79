// Large models (13,659 buses, ~10 MB of JSON) as jsonb cost ~0.5 s of PGlite's single connection per INSERT and
// again per read, during which every other tenant's query waits. New versions store the model's JSON deflated
// (model_z, compressed on libuv's pool) and the bus ids as an int array (bus_ids, for the device placement
// check that used to scan model->'buses'). Rows written before keep their jsonb model and still read.
export const sql = `
ALTER TABLE network_versions ALTER COLUMN model DROP NOT NULL;
ALTER TABLE network_versions ADD COLUMN model_z bytea;
ALTER TABLE network_versions ADD COLUMN bus_ids int[];
`;
