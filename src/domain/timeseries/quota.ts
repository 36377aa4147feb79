// Time series, the daily quota (docs/timeseries.md).
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import { AppError } from '../../lib/errors.js';
import { consumeTimeseriesQuota, getQuotas } from '../../security/quotas.js';

// The daily quota (timeseries_daily_points, timeseries_daily_gb per UTC day) is the
// security module's: its effective quotas and its atomic counter in tenant_usage_daily.
// Here only: a batch that does not fit whole keeps the longest prefix that does.

const GB = 1e9;

/** Reserves quota for the longest prefix of the points that fits; returns its size and bytes. */
export async function reserve(s: Pick<Services, 'db' | 'security'>, caller: Caller, sizes: Float64Array): Promise<{ n: number; bytes: number }> {
  let bytes = 0;
  for (const b of sizes) bytes += b;
  let refusal: unknown;
  try {
    await consumeTimeseriesQuota(s, caller, sizes.length, bytes);
    return { n: sizes.length, bytes };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED') throw e;
    refusal = e;
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const quotas = await getQuotas(s, caller.tenantId);
    const { rows } = await s.db.query<{ points: number; bytes: number }>(
      `SELECT points, bytes FROM tenant_usage_daily WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
      [caller.tenantId],
    );
    let roomPoints = quotas.timeseries_daily_points - Number(rows[0]?.points ?? 0);
    let roomBytes = Math.round(quotas.timeseries_daily_gb * GB) - Number(rows[0]?.bytes ?? 0);
    let n = 0;
    bytes = 0;
    while (n < sizes.length && roomPoints > 0 && sizes[n] <= roomBytes) {
      roomPoints--;
      roomBytes -= sizes[n];
      bytes += sizes[n++];
    }
    if (n === 0) break;
    try {
      await consumeTimeseriesQuota(s, caller, n, bytes);
      return { n, bytes };
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED') throw e;
      refusal = e; // a concurrent writer took the room: look again
    }
  }
  throw refusal;
}

/** Gives back what a batch reserved but could not store. */
export async function refund(s: Pick<Services, 'db'>, tenantId: string, n: number, bytes: number) {
  await s.db.query(
    `UPDATE tenant_usage_daily SET points = GREATEST(points - $2, 0), bytes = GREATEST(bytes - $3, 0)
     WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
    [tenantId, n, bytes],
  );
}
