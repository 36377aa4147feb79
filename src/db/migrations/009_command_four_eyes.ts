// Four-eyes confirmation of control commands (#11 finding 6, SPEC 8.1 "two-factor confirmation"):
// who asked for a command and who confirmed it, as columns of the action (actor objects
// {type, id, tenant}), so the rule "the confirmer is not the requester" reads one row and the
// history shows both people. Older rows keep their values from the free-form `actor` column.
export const sql = `
ALTER TABLE agent_actions ADD COLUMN requested_by jsonb, ADD COLUMN confirmed_by jsonb;
UPDATE agent_actions
   SET requested_by = CASE WHEN actor ? 'requested_by' THEN actor->'requested_by' ELSE actor END,
       confirmed_by = actor->'confirmed_by'
 WHERE actor IS NOT NULL;
`;
