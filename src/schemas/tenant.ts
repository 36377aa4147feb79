import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.js';

export const QuotaViewOut = Type.Object({
  tenant_id: Type.String(),
  plan: Type.String(),
  quotas: Type.Object({
    api_requests_per_hour: Type.Number(), ws_connections: Type.Number(), sse_connections: Type.Number(), concurrent_powerflow: Type.Number(),
    timeseries_daily_gb: Type.Number(), timeseries_daily_points: Type.Number(), agent_count: Type.Number(), network_count: Type.Number(),
    study_cases: Type.Optional(Type.Number()),
    result_storage_mb: Type.Optional(Type.Number({ description: 'megabytes of stored results (matrices, study rows, task results)' })),
  }),
  usage: Type.Object({
    api_requests_this_hour: Type.Number(), ws_connections: Type.Number(), sse_connections: Type.Number(), concurrent_powerflow: Type.Number(),
    timeseries_today_gb: Type.Number(), timeseries_today_points: Type.Number(), agent_count: Type.Number(), network_count: Type.Number(),
    result_storage_mb: Type.Optional(Type.Number({ description: 'stored results, MB (2^20 bytes)' })),
    result_storage_bytes: Type.Optional(Type.Number()),
  }),
  temporary: Type.Array(Type.Object({ id: Type.String(), quotas: Type.Record(Type.String(), Type.Number()), reason: Type.String(), expires_at: Timestamp })),
  reset_at: Timestamp,
});
