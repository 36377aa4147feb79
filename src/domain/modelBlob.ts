// A network version's stored form (migration 019): the model's JSON deflated, compressed and inflated on libuv's
// thread pool so neither the event loop nor the database connection carries ~10 MB of jsonb for a large model.
import { promisify } from 'node:util';
import { deflate, inflate, constants } from 'node:zlib';
import type { NetworkModel } from './networkModel.js';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/** Columns for an INSERT into network_versions: (model_z, bus_ids). */
export interface ModelBlob { z: Buffer; busIds: number[] }

export async function encodeModel(model: NetworkModel): Promise<ModelBlob> {
  // Level 1: a 13,659-bus model's JSON shrinks ~5x at a fraction of the default level's time.
  const z = await deflateAsync(Buffer.from(JSON.stringify(model)), { level: constants.Z_BEST_SPEED });
  return { z, busIds: model.buses.map((b) => b.id) };
}

/** A stored row's model: model_z for versions written since 019, the jsonb model for rows written before. */
export async function decodeModel(row: { model: NetworkModel | string | null; model_z: Uint8Array | null }): Promise<NetworkModel> {
  if (row.model_z) return JSON.parse((await inflateAsync(row.model_z)).toString('utf8')) as NetworkModel;
  if (typeof row.model === 'string') return JSON.parse(row.model) as NetworkModel;
  if (!row.model) throw new Error('network version has neither model nor model_z');
  return row.model;
}
