// A network version's stored form (migration 019): the model's JSON deflated, compressed and inflated on libuv's
// thread pool so neither the event loop nor the database connection carries ~10 MB of jsonb for a large model.
// A large import is encoded on its reader thread instead (encodeModelSync, workers/matpower.ts, workers/psse.ts):
// the main thread then gets only the blob and the row's few columns, never the model's object graph (issue 35).
import { promisify } from 'node:util';
import { deflate, deflateSync, inflate, constants } from 'node:zlib';
import type { NetworkModel } from './networkModel.js';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);
// Level 1: a 13,659-bus model's JSON shrinks ~5x at a fraction of the default level's time.
const LEVEL = { level: constants.Z_BEST_SPEED };

/** Columns for an INSERT into network_versions: (model_z, bus_ids). */
export interface ModelBlob { z: Buffer; busIds: number[] }

/** The networks row's columns taken from the model (what an insert and its answer need besides the blob). */
export interface ModelHead {
  name: string;
  description: string;
  base_kv: number;
  base_mva: number;
  tags: Record<string, string>;
  bus_count: number;
  branch_count: number;
  generator_count: number;
  load_count: number;
}

/** A model ready to store: its row's columns and its blob. */
export interface EncodedModel { head: ModelHead; blob: ModelBlob }

export function modelHead(m: NetworkModel): ModelHead {
  return {
    name: m.name, description: m.description, base_kv: m.base_kv, base_mva: m.base_mva, tags: m.tags,
    bus_count: m.buses.length, branch_count: m.branches.length, generator_count: m.generators.length, load_count: m.loads.length,
  };
}

export async function encodeModel(model: NetworkModel): Promise<ModelBlob> {
  const z = await deflateAsync(Buffer.from(JSON.stringify(model)), LEVEL);
  return { z, busIds: model.buses.map((b) => b.id) };
}

/** encodeModel's bytes, synchronously: for a reader thread, whose event loop serves no one. */
export function encodeModelSync(model: NetworkModel): EncodedModel {
  const z = deflateSync(Buffer.from(JSON.stringify(model)), LEVEL);
  return { head: modelHead(model), blob: { z, busIds: model.buses.map((b) => b.id) } };
}

/** What to list in postMessage's transfer list so the blob moves to the main thread instead of being copied. */
export function blobTransfer(e: EncodedModel): ArrayBuffer[] {
  const z = e.blob.z;
  // a Buffer may be a view on a shared pool: move only a buffer that is the blob's alone (the clone copies others)
  return z.byteOffset === 0 && z.byteLength === z.buffer.byteLength && z.buffer instanceof ArrayBuffer ? [z.buffer] : [];
}

/** An EncodedModel as it arrives from another thread: the blob is a Uint8Array there (a Buffer's class does not cross). */
export function receivedModel(e: EncodedModel): EncodedModel {
  const z = e.blob.z as Uint8Array;
  return { head: e.head, blob: { z: Buffer.from(z.buffer, z.byteOffset, z.byteLength), busIds: e.blob.busIds } };
}

/** A stored row's model: model_z for versions written since 019, the jsonb model for rows written before. */
export async function decodeModel(row: { model: NetworkModel | string | null; model_z: Uint8Array | null }): Promise<NetworkModel> {
  if (row.model_z) return JSON.parse((await inflateAsync(row.model_z)).toString('utf8')) as NetworkModel;
  if (typeof row.model === 'string') return JSON.parse(row.model) as NetworkModel;
  if (!row.model) throw new Error('network version has neither model nor model_z');
  return row.model;
}
