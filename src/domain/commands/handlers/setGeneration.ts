// set_generation (control): changes one generator's MW output (within pmin..pmax) and/or its
// voltage set point; the generator is named by position or by its bus (its only in-service one).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../lib/errors.js';
import type { NetworkModel } from '../../networkModel.js';
import type { ChangePlan } from '../registry.js';
import type { Params } from '../vocabulary.js';
import { defineControlCommand } from './control.js';

function planGeneration(model: NetworkModel, p: Params): ChangePlan {
  let i: number;
  if (p.index !== undefined) {
    i = p.index as number;
    if (i >= model.generators.length)
      throw new AppError(
        'VALIDATION_FAILED',
        `generator index ${i} does not exist (the network has ${model.generators.length} generators, 0-based)`,
        { field: 'params.index', index: i },
      );
    if (p.bus !== undefined && model.generators[i].bus !== p.bus)
      throw new AppError('VALIDATION_FAILED', `generator ${i} is at bus ${model.generators[i].bus}, not ${String(p.bus)}`, {
        field: 'params.bus',
        index: i,
      });
  } else {
    const bus = p.bus as number;
    if (!model.buses.some((b) => b.id === bus)) throw new AppError('BUS_NOT_FOUND', `bus ${bus} does not exist`, { bus });
    const at = model.generators.map((g, k) => (g.bus === bus && g.in_service ? k : -1)).filter((k) => k >= 0);
    if (at.length === 0) throw new AppError('VALIDATION_FAILED', `bus ${bus} has no in-service generator`, { field: 'params.bus', bus });
    if (at.length > 1)
      throw new AppError('VALIDATION_FAILED', `bus ${bus} has ${at.length} generators; name one with params.index (${at.join(', ')})`, {
        field: 'params.index',
        bus,
        indexes: at,
      });
    i = at[0];
  }
  const g = model.generators[i];
  if (!g.in_service) throw new AppError('VALIDATION_FAILED', `generator ${i} (bus ${g.bus}) is out of service`, { field: 'params.index', index: i });
  const mw = p.mw as number | undefined;
  const vg = p.vg as number | undefined;
  if (mw !== undefined && ((g.pmin !== null && mw < g.pmin) || (g.pmax !== null && mw > g.pmax))) {
    throw new AppError(
      'PARAM_OUT_OF_RANGE',
      `params.mw ${mw} is outside generator ${i}'s limits [${g.pmin ?? '-∞'}, ${g.pmax ?? '∞'}] MW`,
      { field: 'params.mw', index: i, pmin: g.pmin, pmax: g.pmax },
    );
  }
  if ((mw === undefined || mw === g.mw) && (vg === undefined || vg === g.vg)) {
    throw new AppError('CONFLICT', `generator ${i} (bus ${g.bus}) already runs at ${g.mw} MW, vg ${g.vg}`, { index: i, mw: g.mw, vg: g.vg });
  }
  const generators = model.generators.slice();
  generators[i] = { ...g, ...(mw !== undefined ? { mw } : {}), ...(vg !== undefined ? { vg } : {}) };
  return {
    model: { ...model, generators },
    change: {
      kind: 'generation.set',
      generator: { index: i, bus: g.bus },
      ...(mw !== undefined ? { mw, previous_mw: g.mw } : {}),
      ...(vg !== undefined ? { vg, previous_vg: g.vg } : {}),
    },
  };
}

export default defineControlCommand({
  name: 'set_generation',
  params: Type.Object({
    index: Type.Optional(Type.Integer({ minimum: 0 })),
    bus: Type.Optional(Type.Integer({ minimum: 1 })),
    mw: Type.Optional(Type.Number()),
    vg: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1.5 })),
  }),
  require(p) {
    if (p.index === undefined && p.bus === undefined)
      throw new AppError(
        'VALIDATION_FAILED',
        'set_generation needs the generator: params.index (position in the generator list) or params.bus',
        { field: 'params.index' },
      );
    if (p.mw === undefined && p.vg === undefined)
      throw new AppError('VALIDATION_FAILED', 'set_generation needs params.mw (MW) and/or params.vg (p.u. voltage set point)', {
        field: 'params.mw',
      });
  },
  plan: planGeneration,
});
