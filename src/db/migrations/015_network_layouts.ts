// A network version's drawing (src/layout/networkLayout.ts): bus positions as little-endian float32 x, y
// pairs in the model's bus order, computed once on first request and kept with the version it draws
// (a new version has none until asked; deleting the network deletes it).
export const sql = `
ALTER TABLE network_versions ADD COLUMN layout bytea;
`;
