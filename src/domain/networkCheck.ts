// What every stored model passes (all doors, imports too): no control characters in names and
// text, defaults filled in, a sound topology and OPF fields MATPOWER could use. Pure, so an import's
// reader thread runs it beside the parse (workers/matpower.ts, workers/psse.ts): for a 13,659-bus
// case it is tens of milliseconds the event loop no longer spends (issue 35's heavy drill).
import { AppError } from '../lib/errors.js';
import { assertCallerText } from '../lib/callerText.js';
import { opfFieldIssues } from '../opf/costs.js';
import { withDefaults, type NetworkInput, type NetworkModel } from './networkModel.js';
import { validateTopology, type ValidationIssue } from './networkValidation.js';
import { encodeModel, encodeModelSync, modelHead, receivedModel, type EncodedModel } from './modelBlob.js';

declare const checked: unique symbol;
/** A model that passed checkModel (a type-only mark: it says where the value came from). */
export type CheckedModel = NetworkModel & { readonly [checked]: true };

/** A checked model in its stored form (src/domain/modelBlob.ts): what storeNetwork takes. */
export type StorableModel = EncodedModel & { readonly [checked]: true };

/** On the main thread: the deflate runs on libuv's pool; the JSON text is made here (small models, updates). */
export async function storable(model: CheckedModel): Promise<StorableModel> {
  return { head: modelHead(model), blob: await encodeModel(model) } as StorableModel;
}

/** On a reader thread (workers/matpower.ts, workers/psse.ts): the JSON text and the deflate both stay there. */
export function storableSync(model: CheckedModel): StorableModel {
  return encodeModelSync(model) as StorableModel;
}

/** A reader thread's storableSync result, received on the main thread (only threads that checked the model send one). */
export function receivedStorable(e: EncodedModel): StorableModel {
  return receivedModel(e) as StorableModel;
}

/** Longest network name; an imported case's longer function name is cut to it. */
export const NAME_MAX = 64;

export function firstIssueError(issues: ValidationIssue[]): AppError {
  const first = issues[0]!;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''}; POST /validate lists them all)` : '';
  return new AppError(first.code, first.message + more, { field: first.field, ...first.details, errors: issues.slice(0, 50) });
}

export function checkModel(input: NetworkInput): CheckedModel {
  // names and text of every door (a MATPOWER file's too): no control characters (src/lib/callerText.ts)
  assertCallerText(input);
  const model = withDefaults(input);
  // OPF fields too (costs MATPOWER could not use, angmin > angmax): refused when stored, not at the first OPF.
  // A split network is stored as it is (open breakers are part of a real model): only a
  // calculation refuses its islands, and by default only (CONTRACT "Islands").
  const issues = [...validateTopology(model), ...opfFieldIssues(model)].filter((i) => i.code !== 'ISLANDED_BUS');
  if (issues.length > 0) throw firstIssueError(issues);
  return model as CheckedModel;
}

/** An imported model as it is stored: named by the request (or its file, cut to NAME_MAX), then checked. */
export function checkImported(model: NetworkModel, name?: string): CheckedModel {
  if (name) model.name = name;
  if (model.name.length > NAME_MAX) model.name = model.name.slice(0, NAME_MAX);
  return checkModel(model);
}

/** An AppError as it crosses a thread boundary (its class does not). */
export interface AppErrorFields {
  code: AppError['code'];
  message: string;
  details?: Record<string, unknown>;
}

export function appErrorFields(e: AppError): AppErrorFields {
  return { code: e.code, message: e.message, details: e.details };
}
