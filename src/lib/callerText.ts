// Control characters in text a caller sends (#35 item 6). PostgreSQL refuses NUL in text and jsonb, and
// no id or name needs any control character, so they are refused at the door with 400 INVALID_FIELD
// naming the field, before anything is stored:
//
// - ids and names (a key `id`, `name`, `username`, `…_id`, `…_ids`, `…_name`, `…Id`, `…Name`, every object key): no
//   C0 control character (U+0000–U+001F) and no DEL (U+007F), tab and line breaks included;
// - any other text (descriptions, reasons, messages, payloads): tab, line feed and carriage return are
//   allowed (free text has lines), every other C0 character and DEL is refused.
//
// Behind it, a refusal by the database of a value (SQLSTATE class 22, data exception: a door this walk
// does not cover) is the caller's mistake too: 400 INVALID_FIELD and a warning, never a 500 at error level.
import { AppError } from './errors.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const STRICT = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const STRICT_KEY = /(?:^|_)(?:id|ids|name|username)$|[a-z](?:Id|Ids|Name)$/; // snake_case (REST) and camelCase (GraphQL)

const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

function refuse(field: string, found: string, strict: boolean): never {
  const which = codePoint(found);
  const rule = strict
    ? 'ids and names may not contain control characters'
    : 'text may contain tab and line breaks but no other control character';
  throw new AppError('INVALID_FIELD', `${field || 'value'}: ${rule} (found ${which})`, { field: field || undefined, character: which });
}

/** The first control character a rule refuses in s, or undefined. */
export function controlCharacter(s: string, strict: boolean): string | undefined {
  const m = (strict ? STRICT : TEXT).exec(s);
  return m ? m[0] : undefined;
}

/** Throws INVALID_FIELD naming `field` when s has a control character (strict: ids and names). */
export function assertText(field: string, s: string, strict = true): void {
  const c = controlCharacter(s, strict);
  if (c !== undefined) refuse(field, c, strict);
}

/**
 * Walks a parsed value (a JSON body, a query, path parameters, GraphQL arguments) and throws INVALID_FIELD
 * naming the first field (`security.contingencies[0].id`) whose text has a control character its kind
 * refuses. Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function assertCallerText(value: unknown, root = ''): void {
  const stack: { v: unknown; path: string; strict: boolean }[] = [{ v: value, path: root, strict: false }];
  while (stack.length > 0) {
    const { v, path, strict } = stack.pop()!;
    if (typeof v === 'string') {
      const c = controlCharacter(v, strict);
      if (c !== undefined) refuse(path, c, strict);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]`, strict });
    } else if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) {
      for (const k of Object.keys(v)) {
        const at = path ? `${path}.${k}` : k;
        const c = controlCharacter(k, true);
        if (c !== undefined) refuse(at, c, true);
        stack.push({ v: (v as Record<string, unknown>)[k], path: at, strict: STRICT_KEY.test(k) });
      }
    }
  }
}

/** PostgreSQL's SQLSTATE class 22 (data exception): the database refused a value, e.g. NUL in text (22021, 22P05). */
export function isDataException(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** The 400 a client sees for a value the database refused; the SQLSTATE says which kind. */
export function dataExceptionError(err: unknown): AppError {
  const code = String((err as { code?: unknown }).code);
  return new AppError(
    'INVALID_FIELD',
    'the database refused a value of this request (a control character or an invalid value in text); correct the value and retry',
    { sqlstate: code },
  );
}
