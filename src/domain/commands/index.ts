// Agent commands (SPEC 4.3 "POST /agents/{id}/command", 8.1 command limits): the functions
// every door (REST, GraphQL, WebSocket) calls. docs/agents.md describes the behaviour;
// registry.ts how a command is defined; handlers/ holds one file per command.
export { executeCommand } from './runner.js';
export { executeCommandBatch } from './batch.js';
export { listActions, actionView, type ActionListQuery } from './actions.js';
export { COMMANDS } from './handlers/index.js';
export { COMMAND_LIMITS, PRIORITIES, type CommandAnswer, type CommandRequest, type CommandResult, type Priority } from './vocabulary.js';
