// Power-flow results are written once and returned whole, never queried inside:
// plain json keeps the order of their fields (id, v, theta, … as the solver wrote
// them) and is cheaper to store than jsonb, which re-sorts keys and re-encodes.
export const sql = `
ALTER TABLE tasks ALTER COLUMN result TYPE json USING result::json;
`;
