// TypeBox schema of POST /api/v1/networks/{id}/state-estimation (CONTRACT "State estimation").
import { Type } from '@sinclair/typebox';
import { literals, SE_MEASUREMENT_KINDS, SE_STATUSES } from './vocabulary.js';
import { MAX_MEASUREMENTS } from '../stateEstimation/types.js';

export const MeasurementIn = Type.Object(
  {
    kind: literals(SE_MEASUREMENT_KINDS),
    // a 0-based branch or generator index, or a bus id
    element: Type.Integer({ minimum: 0 }),
    value: Type.Number(),
    sigma: Type.Number({ exclusiveMinimum: 0 }),
  },
  { additionalProperties: false },
);

export const StateEstimationIn = Type.Object(
  {
    at: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; default now' })),
    max_age_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 366 * 86400 })),
    // inline measurements replace the stored ones
    measurements: Type.Optional(Type.Array(MeasurementIn, { minItems: 1, maxItems: MAX_MEASUREMENTS })),
    // false, or {method: "lnr", threshold: 3.0}: checked in src/domain/stateEstimation.ts (a union here would answer
    // "must be boolean" for a bad threshold)
    bad_data: Type.Optional(
      Type.Unsafe<false | { method?: 'lnr'; threshold?: number }>({
        description: 'false (no removal), or {method: "lnr", threshold: 3.0}: largest normalized residual removal',
      }),
    ),
    max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600000 })),
    async: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** A device's `metadata.measures` entry (docs/state-estimation.md). */
export const MeasureIn = Type.Object({
  element: Type.Union([
    Type.Object({
      type: Type.Literal('branch'),
      index: Type.Integer({ minimum: 0 }),
      end: Type.Union([Type.Literal('from'), Type.Literal('to')]),
    }),
    Type.Object({ type: Type.Literal('bus'), id: Type.Integer({ minimum: 0 }) }),
    Type.Object({ type: Type.Literal('generator'), index: Type.Integer({ minimum: 0 }) }),
  ]),
  quantity: Type.String(),
  sigma: Type.Number({ exclusiveMinimum: 0 }),
  metric: Type.String({ minLength: 1, maxLength: 200 }),
  tags: Type.Optional(Type.Record(Type.String(), Type.String())),
});

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

/** The result (documented; written as it is, src/stateEstimation/types.ts StateEstimationResult). */
export const StateEstimationResultOut = Type.Object(
  {
    status: literals(SE_STATUSES),
    iterations: Type.Integer(),
    total_iterations: Type.Integer(),
    passes: Type.Integer(),
    J: Nullable(Type.Number()),
    dof: Type.Integer(),
    chi_square: Type.Object({
      J: Nullable(Type.Number()),
      dof: Type.Integer(),
      quantile_99: Nullable(Type.Number()),
      passed: Type.Union([Type.Boolean(), Type.Null()]),
    }),
    buses: Type.Array(Type.Object({ id: Type.Integer(), v: Type.Number(), theta: Type.Number() })),
    branches: Type.Array(
      Type.Object({
        index: Type.Integer(),
        from: Type.Integer(),
        to: Type.Integer(),
        p_from: Type.Number(),
        q_from: Type.Number(),
        p_to: Type.Number(),
        q_to: Type.Number(),
        loading: Type.Number(),
      }),
    ),
    generators: Type.Array(Type.Object({ index: Type.Integer(), bus: Type.Integer(), p_mw: Type.Number(), q_mvar: Type.Number() })),
    bad_data: Type.Array(
      Type.Object({
        measurement: Type.Integer(),
        kind: literals(SE_MEASUREMENT_KINDS),
        element: Type.Integer(),
        value: Type.Number(),
        normalized_residual: Type.Number(),
      }),
    ),
    residuals: Type.Array(
      Type.Object({
        measurement: Type.Integer(),
        kind: literals(SE_MEASUREMENT_KINDS),
        element: Type.Integer(),
        value: Type.Number(),
        estimate: Type.Number(),
        residual: Type.Number(),
        normalized_residual: Nullable(Type.Number()),
        critical: Type.Boolean(),
      }),
    ),
    observability: Type.Object({ observable: Type.Boolean(), unobservable_buses: Type.Array(Type.Integer()) }),
    measurements_used: Type.Integer(),
    duration_ms: Type.Number(),
  },
  { additionalProperties: true },
);
