// One place per command: defineCommand({name, params, control, slot, anyState, run}) says
// everything the service needs to know about a command — its parameters (a TypeBox schema,
// checked by params.ts), whether it changes the grid (control: two-step confirmation by a
// second person, 100 ms spacing, constraint check), whether it holds the agent's single
// command slot, whether a paused/stopped agent takes it, and what it does. handlers/ holds
// one file per command; handlers/index.ts lists them.
import type { Static, TObject } from '@sinclair/typebox';
import type { NetworkModel } from '../networkModel.js';
import type { CommandContext } from './context.js';

/** A control command's change, planned on a model (nothing stored yet). */
export interface ChangePlan {
  model: NetworkModel;
  change: Record<string, unknown>;
}

export interface CommandDefinition<P extends TObject = TObject> {
  name: string;
  /** The params object: properties, ranges, enums (additionalProperties is always false). */
  params: P;
  /** Rules across several params the schema does not express (e.g. "index, or from and to"); throws AppError. */
  require?: (p: Static<P>) => void;
  /** Changes the grid: confirmation by a second person, 100 ms spacing, constraint check. */
  control: boolean;
  /** Holds the agent's single command slot while it runs. */
  slot: boolean;
  /** Taken in every agent state (lifecycle commands still obey the transition table). */
  anyState: boolean;
  /** Control commands: the change on the current model, checked before a confirmation token is handed out. */
  plan?: (model: NetworkModel, p: Static<P>) => ChangePlan;
  run: (ctx: CommandContext, p: Static<P>) => Promise<Record<string, unknown>>;
}

export function defineCommand<P extends TObject>(def: CommandDefinition<P>): CommandDefinition {
  return def as unknown as CommandDefinition;
}
