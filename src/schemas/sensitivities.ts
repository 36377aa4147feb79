// TypeBox schemas of POST /api/v1/networks/{id}/sensitivities (CONTRACT "Sensitivities").
import { Type } from '@sinclair/typebox';

// No schema minimum: a negative position is a branch that does not exist, 400 INVALID_FIELD naming it
// (src/sensitivities/compute.ts, docs/sensitivities.md), not the schema's 422 for a number out of bounds.
const Index = Type.Integer();

export const SensitivityIn = Type.Object({
  kind: Type.Union([Type.Literal('ptdf'), Type.Literal('lodf')]),
  branches: Type.Optional(Type.Array(Index, { maxItems: 100_000, description: 'rows: branch positions (default every in-service branch)' })),
  buses: Type.Optional(Type.Array(Type.Integer(), { maxItems: 100_000, description: 'PTDF columns: bus ids (default every bus)' })),
  outages: Type.Optional(Type.Array(Index, { maxItems: 100_000, description: 'LODF columns: outaged branch positions (default the rows)' })),
  async: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const SensitivityQuery = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) });

/** A completed sensitivities task's result (GET /tasks/{id}?include=result): the matrix's head, its values inline
 *  when it is small (src/domain/sensitivities.ts INLINE_ENTRIES), else from values_url. */
export const SensitivityTaskResultOut = Type.Object({
  task_id: Type.String(),
  network_id: Type.String(),
  network_version: Type.Integer(),
  kind: Type.String({ description: 'ptdf or lodf' }),
  rows: Type.Array(Type.Integer(), { description: 'branch positions' }),
  columns: Type.Array(Type.Integer(), { description: 'bus ids (PTDF) or outaged branch positions (LODF)' }),
  bridges: Type.Array(Type.Integer(), { description: 'closed branches whose outage splits the network' }),
  entries: Type.Integer({ description: 'rows × columns' }),
  duration_ms: Type.Number(),
  started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  completed_at: Type.String({ format: 'date-time' }),
  values_url: Type.String({ description: 'the matrix streamed as JSON (format=csv for CSV)' }),
  values: Type.Optional(Type.Array(Type.Array(Type.Union([Type.Number(), Type.Null()])), { description: 'row-major, only when entries ≤ 100 000' })),
});

export const SensitivityOut = Type.Object({
  network_id: Type.String(),
  network_version: Type.Integer(),
  kind: Type.String(),
  rows: Type.Array(Type.Integer(), { description: 'branch positions' }),
  columns: Type.Array(Type.Integer(), { description: 'bus ids (PTDF) or outaged branch positions (LODF)' }),
  values: Type.Array(Type.Array(Type.Union([Type.Number(), Type.Null()])), { description: 'row-major, MW per MW; an LODF column of a bridge is null' }),
  bridges: Type.Array(Type.Integer(), { description: 'closed branches whose outage splits the network' }),
});
