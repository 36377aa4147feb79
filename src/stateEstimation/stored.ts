// Measurements from the store (CONTRACT "State estimation"): every device of the network may name in
// metadata.measures what it measures ({element, quantity, sigma, metric, tags?}); its reading is the latest
// time-series point of that metric (a series whose tags include the measure's) at or before `at` and not older
// than max_age_s. One SQL statement reads them all (a LATERAL "latest point" per measure).
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../db/database.js';
import { MeasureIn } from '../schemas/stateEstimation.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { MAX_MEASUREMENTS, type Measurement, type MeasurementKind } from './types.js';

const checkMeasure = TypeCompiler.Compile(MeasureIn);
type Measure = Static<typeof MeasureIn>;

/** Where a stored measurement came from, in the order of the measurement list. */
export interface MeasurementSource {
  measurement: number;
  device_id: string;
  metric: string;
  ts: string;
}
export interface Unread {
  device_id: string;
  metric: string;
  kind: MeasurementKind;
  element: number;
  reason: 'no reading within max_age_s';
}

/** The inline kind and element of a measure (quantity p / q at a branch end or a generator, the bus quantities). */
export function measureKind(m: Measure): { kind: MeasurementKind; element: number } | string {
  const e = m.element;
  if (e.type === 'branch') {
    if (m.quantity !== 'p' && m.quantity !== 'q') return `a branch measures p or q, not '${m.quantity}'`;
    return { kind: `${m.quantity}_${e.end}` as MeasurementKind, element: e.index };
  }
  if (e.type === 'generator') {
    if (m.quantity !== 'p' && m.quantity !== 'q') return `a generator measures p or q, not '${m.quantity}'`;
    return { kind: `${m.quantity}_gen` as MeasurementKind, element: e.index };
  }
  if (!['v_mag', 'v_angle', 'p_inj', 'q_inj'].includes(m.quantity))
    return `a bus measures v_mag, v_angle, p_inj or q_inj, not '${m.quantity}'`;
  return { kind: m.quantity as MeasurementKind, element: e.id };
}

export async function storedMeasurements(
  db: Queryable,
  tenantId: string,
  networkId: string,
  at: Date,
  maxAgeS: number,
): Promise<{ measurements: Measurement[]; sources: MeasurementSource[]; unread: Unread[] }> {
  const { rows: devices } = await db.query<{ id: string; metadata: Record<string, unknown> }>(
    `SELECT id, metadata FROM devices
     WHERE tenant_id = $1 AND network_id = $2 AND jsonb_typeof(metadata -> 'measures') = 'array' ORDER BY id`,
    [tenantId, networkId],
  );
  const wanted: { device: string; measure: Measure; kind: MeasurementKind; element: number }[] = [];
  for (const d of devices) {
    (d.metadata.measures as unknown[]).forEach((m, k) => {
      if (!checkMeasure.Check(m)) {
        const err = checkMeasure.Errors(m).First();
        throw new PowerFlowInputError(
          `device ${d.id}: metadata.measures[${k}] ${err ? `${err.path || '/'} ${err.message}` : 'is not a measure'}`,
          'VALIDATION_FAILED',
          { device_id: d.id, measure: k },
        );
      }
      const ke = measureKind(m);
      if (typeof ke === 'string')
        throw new PowerFlowInputError(`device ${d.id}: metadata.measures[${k}]: ${ke}`, 'VALIDATION_FAILED', {
          device_id: d.id,
          measure: k,
        });
      wanted.push({ device: d.id, measure: m, ...ke });
    });
  }
  if (wanted.length > MAX_MEASUREMENTS) {
    throw new PowerFlowInputError(
      `the network's devices name ${wanted.length} measures, more than one estimate takes (${MAX_MEASUREMENTS})`,
      'VALIDATION_FAILED',
      { limit: MAX_MEASUREMENTS },
    );
  }
  if (wanted.length === 0) return { measurements: [], sources: [], unread: [] };
  const { rows } = await db.query<{ k: string; value: number; ts: Date | string }>(
    `SELECT m.k, x.value, x.ts FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS m(metric, tags, k)
     CROSS JOIN LATERAL (
       SELECT p.value, p.ts FROM timeseries_series s JOIN timeseries_points p ON p.series_id = s.id
       WHERE s.tenant_id = $1 AND s.metric = m.metric AND s.tags @> m.tags::jsonb AND p.ts <= $4 AND p.ts >= $5
       ORDER BY p.ts DESC LIMIT 1) x`,
    [
      tenantId,
      wanted.map((w) => w.measure.metric),
      wanted.map((w) => JSON.stringify(w.measure.tags ?? {})),
      at,
      new Date(at.getTime() - maxAgeS * 1000),
    ],
  );
  const reading = new Map(rows.map((r) => [Number(r.k) - 1, r]));
  const measurements: Measurement[] = [],
    sources: MeasurementSource[] = [],
    unread: Unread[] = [];
  wanted.forEach((w, k) => {
    const r = reading.get(k);
    if (!r) {
      unread.push({
        device_id: w.device,
        metric: w.measure.metric,
        kind: w.kind,
        element: w.element,
        reason: 'no reading within max_age_s',
      });
      return;
    }
    sources.push({ measurement: measurements.length, device_id: w.device, metric: w.measure.metric, ts: new Date(r.ts).toISOString() });
    measurements.push({ kind: w.kind, element: w.element, value: Number(r.value), sigma: w.measure.sigma });
  });
  return { measurements, sources, unread };
}
