// A network model read from a case file (MATPOWER, src/matpower/reader.ts; PSS/E, src/psse/mapping.ts):
// the parts each reader maps, put together the same way, with the network's base_kv taken from its buses
// where the file does not state one.
import type { Branch, Bus, DcLine, Generator, Load, NetworkModel } from './networkModel.js';

/** The network base_kv derived from the buses: the most common non-zero BASE_KV (ties: the first
 *  such value in bus order), 110 when every BASE_KV is 0. */
export function mostCommonBaseKv(buses: readonly { base_kv: number }[]): number {
  const count = new Map<number, number>();
  for (const b of buses) if (b.base_kv !== 0) count.set(b.base_kv, (count.get(b.base_kv) ?? 0) + 1);
  let kv = 110;
  let best = 0;
  for (const [value, c] of count)
    if (c > best) {
      best = c;
      kv = value;
    }
  return kv;
}

export interface ImportedParts {
  name: string;
  description: string;
  /** When the file states it (MATPOWER's gridops_base_kv); otherwise mostCommonBaseKv(buses). */
  baseKv?: number;
  baseMva: number;
  buses: Bus[];
  branches: Branch[];
  generators: Generator[];
  loads: Load[];
  dcLines: DcLine[];
}

/** The model of an imported case; dc_lines only when the file has any, no tags. */
export function importedModel(p: ImportedParts): NetworkModel {
  return {
    name: p.name,
    description: p.description,
    base_kv: p.baseKv ?? mostCommonBaseKv(p.buses),
    base_mva: p.baseMva,
    buses: p.buses,
    branches: p.branches,
    generators: p.generators,
    loads: p.loads,
    ...(p.dcLines.length > 0 ? { dc_lines: p.dcLines } : {}),
    tags: {},
  };
}
