// Every command the service takes, in the order SPEC and the docs list them.
import type { CommandDefinition } from '../registry.js';
import status from './status.js';
import runPowerflow from './runPowerflow.js';
import switchBranch from './switchBranch.js';
import setGeneration from './setGeneration.js';
import emergencyShutdown from './emergencyShutdown.js';
import { start, stop, pause, resume } from './lifecycle.js';

export const COMMAND_DEFINITIONS: readonly CommandDefinition[] = [
  status,
  runPowerflow,
  switchBranch,
  setGeneration,
  emergencyShutdown,
  start,
  stop,
  pause,
  resume,
];

const BY_NAME = new Map(COMMAND_DEFINITIONS.map((d) => [d.name, d]));

/** Names of the commands, for "unknown command" answers. */
export const COMMANDS: readonly string[] = COMMAND_DEFINITIONS.map((d) => d.name);

export function commandDefinition(name: string): CommandDefinition | undefined {
  return BY_NAME.get(name);
}
