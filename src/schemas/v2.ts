// The /api/v2 preview shapes (SPEC 9 "planned v2 differences", docs/versioning.md):
// nested fields over the same stored resources as v1 (same ids, one store).
//   bus_count -> topology.buses.count      branch_count -> topology.branches.count
//   (generator_count, load_count -> topology.generators.count, topology.loads.count)
//   created_at -> metadata.created_at      (updated_at -> metadata.updated_at)
//   bus v -> voltage.magnitude             bus theta -> voltage.angle
// Converters only; every v2 route calls the same domain function as its v1 twin.
import type { NetworkDetail, NetworkSummary } from '../domain/networks.js';
import type { NetworkInput } from '../domain/networkModel.js';

export const V2_META = { version: 'v2', stability: 'preview' } as const;
/** SPEC 9: v2 defaults. */
export const V2_DEFAULT_PAGE_SIZE = 50;
export const V2_POWERFLOW_TIMEOUT_MS = 60_000;

type Voltage = { magnitude: number; angle: number };

export function networkV2(n: NetworkSummary) {
  return {
    id: n.id,
    name: n.name,
    description: n.description,
    base_kv: n.base_kv,
    base_mva: n.base_mva,
    status: n.status,
    tags: n.tags,
    version: n.version,
    topology: {
      buses: { count: n.bus_count },
      branches: { count: n.branch_count },
      generators: { count: n.generator_count },
      loads: { count: n.load_count },
    },
    metadata: { created_at: n.created_at, updated_at: n.updated_at },
  };
}

/** A bus with voltage {magnitude, angle} in place of v and theta (works for model buses and result buses). */
export function busV2<T extends { v: number; theta: number }>(b: T): Omit<T, 'v' | 'theta'> & { voltage: Voltage } {
  const { v, theta, ...rest } = b;
  return { ...rest, voltage: { magnitude: v, angle: theta } } as Omit<T, 'v' | 'theta'> & { voltage: Voltage };
}

export function networkDetailV2(n: NetworkDetail) {
  const base = networkV2(n);
  return {
    ...base,
    topology: {
      buses: { count: n.bus_count, items: n.buses.map(busV2) },
      branches: { count: n.branch_count, items: n.branches },
      generators: { count: n.generator_count, items: n.generators },
      loads: { count: n.load_count, items: n.loads },
    },
  };
}

/** v2 network input (buses with voltage {magnitude, angle}) -> the v1/domain input. */
export function networkInputV1(input: Record<string, unknown>): NetworkInput & { status?: 'draft' | 'ready' | 'archived' } {
  const buses = (input.buses as Record<string, unknown>[]).map((b) => {
    const { voltage, ...rest } = b as { voltage?: Partial<Voltage> } & Record<string, unknown>;
    return {
      ...rest,
      ...(voltage?.magnitude !== undefined ? { v: voltage.magnitude } : {}),
      ...(voltage?.angle !== undefined ? { theta: voltage.angle } : {}),
    };
  });
  return { ...input, buses } as unknown as NetworkInput & { status?: 'draft' | 'ready' | 'archived' };
}

/** A power-flow result (or a task carrying one) with v2 buses. */
export function resultV2(r: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!r) return r;
  const buses = r.buses as { v: number; theta: number }[] | undefined;
  return Array.isArray(buses) ? { ...r, buses: buses.map(busV2) } : r;
}
