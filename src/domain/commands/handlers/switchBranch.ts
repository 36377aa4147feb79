// switch_branch (control): opens or closes one branch, named by its buses (either orientation)
// or by its position in the branch list (required when circuits are parallel).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../lib/errors.js';
import type { NetworkModel } from '../../networkModel.js';
import { branchIds } from '../../alarmRules.js';
import type { ChangePlan } from '../registry.js';
import type { Params } from '../vocabulary.js';
import { defineControlCommand } from './control.js';

function findBranch(model: NetworkModel, p: Params): number {
  if (p.index !== undefined) {
    const i = p.index as number;
    if (i >= model.branches.length)
      throw new AppError(
        'BRANCH_NOT_FOUND',
        `branch index ${i} does not exist (the network has ${model.branches.length} branches, 0-based)`,
        { index: i, branch_count: model.branches.length },
      );
    const br = model.branches[i];
    if ((p.from !== undefined && p.from !== br.from) || (p.to !== undefined && p.to !== br.to)) {
      throw new AppError('VALIDATION_FAILED', `branch index ${i} connects ${br.from}-${br.to}, not ${String(p.from)}-${String(p.to)}`, {
        field: 'params.index',
        index: i,
        from: br.from,
        to: br.to,
      });
    }
    return i;
  }
  const from = p.from as number;
  const to = p.to as number;
  const matches: number[] = [];
  model.branches.forEach((br, i) => {
    if ((br.from === from && br.to === to) || (br.from === to && br.to === from)) matches.push(i);
  });
  if (matches.length === 0) throw new AppError('BRANCH_NOT_FOUND', `no branch connects bus ${from} and bus ${to}`, { from, to });
  if (matches.length > 1)
    throw new AppError(
      'VALIDATION_FAILED',
      `${matches.length} parallel branches connect bus ${from} and bus ${to}; name one with params.index (${matches.join(', ')})`,
      { field: 'params.index', from, to, indexes: matches },
    );
  return matches[0];
}
function planSwitch(model: NetworkModel, p: Params): ChangePlan {
  const i = findBranch(model, p);
  const br = model.branches[i];
  const state = p.state as 'open' | 'closed';
  if (br.status === state)
    throw new AppError('CONFLICT', `branch ${branchIds(model)[i]} (index ${i}) is already ${state}`, {
      index: i,
      from: br.from,
      to: br.to,
      state,
    });
  const branches = model.branches.slice();
  branches[i] = { ...br, status: state };
  return {
    model: { ...model, branches },
    change: { kind: 'branch.switched', branch: { index: i, from: br.from, to: br.to, id: branchIds(model)[i] }, state, previous_state: br.status },
  };
}

export default defineControlCommand({
  name: 'switch_branch',
  params: Type.Object({
    index: Type.Optional(Type.Integer({ minimum: 0 })),
    from: Type.Optional(Type.Integer({ minimum: 1 })),
    to: Type.Optional(Type.Integer({ minimum: 1 })),
    state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  }),
  require(p) {
    if (p.index === undefined && (p.from === undefined || p.to === undefined)) {
      throw new AppError(
        'VALIDATION_FAILED',
        "switch_branch needs the branch: params.from and params.to (bus numbers), or params.index (position in the network's branch list)",
        { field: 'params.from' },
      );
    }
  },
  plan: planSwitch,
});
