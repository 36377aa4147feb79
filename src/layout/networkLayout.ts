// A network version's drawing for the console (GET /api/v1/networks/{id}/layout): where each bus goes.
//
// - Every bus has coordinates (`lat`/`lon`): they are the drawing, projected (equirectangular around the
//   network's middle latitude, so a degree of longitude is as wide as it is there); nothing is computed.
// - Otherwise the structure layout (./stressLayout.ts) is computed once per version on a solver thread, the
//   buses that have coordinates pinned at them, and stored with the version (network_versions.layout,
//   float32 pairs): every later request, from any browser or API process, reads it.
// Concurrent first requests for one version share one computation.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { NetworkModel } from '../domain/networkModel.js';
import { getModel } from '../domain/networks.js';
import { AppError } from '../lib/errors.js';

export const LAYOUT_SOURCES = ['coordinates', 'computed', 'mixed'] as const;
export type LayoutSource = (typeof LAYOUT_SOURCES)[number];

export interface NetworkLayout {
  network_id: string;
  version: number;
  /** coordinates: every bus's own; computed: the structure layout; mixed: computed around the buses that have them */
  source: LayoutSource;
  /** bus ids in model order, and x, y per bus interleaved (arbitrary units, y up; about one unit per branch) */
  bus_ids: number[];
  positions: number[];
}

const inFlight = new Map<string, Promise<Float64Array>>();

export async function getNetworkLayout(s: Pick<Services, 'db' | 'solver'>, caller: Caller, id: string): Promise<NetworkLayout> {
  const { summary, model } = await getModel(s, caller, id);
  const version = summary.version;
  const pinned = projectedCoordinates(model);
  const bus_ids = model.buses.map((b) => b.id);
  if (pinned.count === model.buses.length && pinned.count > 0) {
    return { network_id: id, version, source: 'coordinates', bus_ids, positions: Array.from(pinned.xy) };
  }
  const source: LayoutSource = pinned.count > 0 ? 'mixed' : 'computed';
  const { rows } = await s.db.query<{ layout: Uint8Array | null }>('SELECT layout FROM network_versions WHERE network_id = $1 AND version = $2', [id, version]);
  const stored = rows[0]?.layout;
  if (stored && stored.byteLength === 8 * model.buses.length) {
    const copy = new Uint8Array(stored.byteLength);
    copy.set(stored);
    return { network_id: id, version, source, bus_ids, positions: Array.from(new Float32Array(copy.buffer)) };
  }
  const key = `${id}:${version}`;
  let running = inFlight.get(key);
  if (!running) {
    running = computeAndStore(s, id, version, model, pinned.count > 0 ? pinned.xy : null).finally(() => inFlight.delete(key));
    inFlight.set(key, running);
  }
  return { network_id: id, version, source, bus_ids, positions: Array.from(await running) };
}

async function computeAndStore(
  s: Pick<Services, 'db' | 'solver'>,
  id: string,
  version: number,
  model: NetworkModel,
  pinned: Float64Array | null,
): Promise<Float64Array> {
  if (!s.solver)
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'this process has no solver threads (ROLE=api): a network drawing is laid out by an API process with ROLE=all',
      { dependency: 'solver' },
    );
  const index = new Map(model.buses.map((b, i) => [b.id, i]));
  const edges: number[] = [];
  for (const br of model.branches) {
    // every branch, open ones too: the drawing shows the network as built
    const a = index.get(br.from), b = index.get(br.to);
    if (a !== undefined && b !== undefined && a !== b) edges.push(a, b);
  }
  const ran = await s.solver.run('layout', { n: model.buses.length, edges: Int32Array.from(edges), pinned: pinned ? pinned.slice() : null });
  if (ran.stopped) throw new Error('a layout without a signal or timeout is never stopped');
  const xy = ran.value;
  const f32 = Float32Array.from(xy);
  await s.db.query('UPDATE network_versions SET layout = $3 WHERE network_id = $1 AND version = $2',
    [id, version, Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength)]);
  return Float64Array.from(f32); // what a later read returns, to the same precision
}

/** x, y per bus from lat/lon (NaN where a bus has none): equirectangular around the middle latitude, y north. */
export function projectedCoordinates(model: NetworkModel): { xy: Float64Array; count: number } {
  const n = model.buses.length, xy = new Float64Array(2 * n).fill(Number.NaN);
  let count = 0, lo = Infinity, hi = -Infinity;
  for (const b of model.buses) if (b.lat !== undefined && b.lon !== undefined) { lo = Math.min(lo, b.lat); hi = Math.max(hi, b.lat); }
  const shrink = Math.cos((((lo + hi) / 2) * Math.PI) / 180);
  model.buses.forEach((b, i) => {
    if (b.lat === undefined || b.lon === undefined) return;
    xy[2 * i] = b.lon * shrink; xy[2 * i + 1] = b.lat; count++;
  });
  return { xy, count };
}
