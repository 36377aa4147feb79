// The checks of a command request, the same for every door: the request's own fields, then
// the command's params against its TypeBox schema (registry.ts). A failed check answers the
// SPEC 7.2 code a client can act on: INVALID_REQUEST for an unknown key, INVALID_FIELD for a
// wrong type or enum value, PARAM_OUT_OF_RANGE for a number outside its range,
// VALIDATION_FAILED for a missing one.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TObject, TSchema } from '@sinclair/typebox';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import type { CommandDefinition } from './registry.js';
import { COMMANDS, commandDefinition } from './handlers/index.js';
import { COMMAND_LIMITS, PRIORITIES, type CheckedRequest, type CommandRequest, type Params } from './vocabulary.js';

function fieldError(code: ErrorCode, field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(code, message, { field, ...extra });
}

const compiled = new WeakMap<TObject, TypeCheck<TObject>>();
function checkerOf(schema: TObject): TypeCheck<TObject> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c;
}

/** The literal values of a union of literals (an enum), else null. */
function literals(s: TSchema): string[] | null {
  const any = (s as { anyOf?: TSchema[] }).anyOf;
  return any?.every((x) => 'const' in x) ? any.map((x) => String((x as unknown as { const: unknown }).const)) : null;
}

/** Why `value` fails the property schema `s` of params.`key`, in words and with its code. */
function describe(command: string, key: string, s: TSchema, value: unknown): AppError {
  const field = `params.${key}`;
  if (value === undefined) {
    const allowed = literals(s);
    return fieldError('VALIDATION_FAILED', field, `${command} needs ${field}${allowed ? `: ${allowed.map((a) => `"${a}"`).join(' or ')}` : ''}`);
  }
  if (key === 'confirmation_token') return fieldError('INVALID_FIELD', field, `${field} must be the token string a previous call returned`);
  const allowed = literals(s);
  if (allowed) return fieldError('INVALID_FIELD', field, `${field} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`, { allowed });
  const t = (s as { type?: string }).type;
  if (t === 'number' || t === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value) || (t === 'integer' && !Number.isInteger(value))) {
      return fieldError('INVALID_FIELD', field, `${field} must be ${t === 'integer' ? 'an integer' : 'a number'}`);
    }
    const { minimum, maximum, exclusiveMinimum } = s as { minimum?: number; maximum?: number; exclusiveMinimum?: number };
    const range = [
      minimum !== undefined ? `>= ${minimum}` : exclusiveMinimum !== undefined ? `> ${exclusiveMinimum}` : '',
      maximum !== undefined ? `<= ${maximum}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return fieldError('PARAM_OUT_OF_RANGE', field, `${field} must be ${range}, got ${value}`, { minimum: minimum ?? exclusiveMinimum, maximum });
  }
  if (t === 'boolean') return fieldError('INVALID_FIELD', field, `${field} must be true or false`);
  if (t === 'string')
    return fieldError(
      'INVALID_FIELD',
      field,
      `${field} must be a string of at most ${(s as { maxLength?: number }).maxLength ?? 256} characters`,
    );
  return fieldError('INVALID_FIELD', field, `${field} is not valid`);
}

/** Checks params for a command; returns them without the confirmation token. */
export function checkParams(def: CommandDefinition, p: Params): Params {
  const props = def.params.properties as Record<string, TSchema>;
  const known = Object.keys(props);
  for (const k of Object.keys(p)) {
    if (!(k in props)) {
      throw new AppError(
        'INVALID_REQUEST',
        `params has an unknown field "${k}" for command ${def.name}; known: ${known.join(', ') || 'none'}`,
        { field: `params.${k}`, known },
      );
    }
  }
  const check = checkerOf(def.params);
  if (!check.Check(p)) {
    const first = check.Errors(p).First();
    const key = first?.path.split('/')[1] ?? '';
    throw props[key] ? describe(def.name, key, props[key], p[key]) : fieldError('INVALID_FIELD', 'params', `params: ${first?.message ?? 'invalid'}`);
  }
  def.require?.(p);
  const { confirmation_token: _t, ...rest } = p;
  void _t;
  return rest;
}

export function checkRequest(req: CommandRequest): CheckedRequest & { def: CommandDefinition } {
  const def = typeof req.command === 'string' ? commandDefinition(req.command) : undefined;
  if (!def) {
    throw new AppError('VALIDATION_FAILED', `unknown command "${String(req.command)}"; known commands: ${COMMANDS.join(', ')}`, {
      field: 'command',
      known: COMMANDS,
    });
  }
  const raw = req.params ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fieldError('INVALID_FIELD', 'params', 'params must be an object');
  const priority = req.priority ?? 'normal';
  if (!PRIORITIES.includes(priority))
    throw fieldError('INVALID_FIELD', 'priority', `priority must be one of ${PRIORITIES.join(', ')}`, { allowed: PRIORITIES });
  const timeoutMs = req.timeout_ms ?? COMMAND_LIMITS.defaultTimeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > COMMAND_LIMITS.maxTimeoutMs) {
    throw fieldError('PARAM_OUT_OF_RANGE', 'timeout_ms', `timeout_ms must be an integer from 1 to ${COMMAND_LIMITS.maxTimeoutMs}`, {
      minimum: 1,
      maximum: COMMAND_LIMITS.maxTimeoutMs,
    });
  }
  if (req.await_result !== undefined && typeof req.await_result !== 'boolean')
    throw fieldError('INVALID_FIELD', 'await_result', 'await_result must be true or false');
  const params = checkParams(def, raw as Params);
  const token = (raw as Params).confirmation_token as string | undefined;
  return { def, command: def.name, params, token, priority, timeoutMs, awaitResult: req.await_result ?? true };
}
