// Custom scalars of SPEC 2 "GraphQL custom scalars": DateTime, JSON, Float64,
// UInt64, Decimal. Each refuses what it cannot represent exactly with a
// GraphQLError (reported as VALIDATION_FAILED).
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode, type ObjectValueNode } from 'graphql';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function toDate(v: unknown): Date {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return v;
  }
  if (typeof v === 'string' && RFC3339.test(v)) {
    const d = new Date(v);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new GraphQLError(`DateTime must be an RFC 3339 date-time such as 2026-07-01T12:00:00Z, got ${JSON.stringify(v)}`);
}

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(v) {
    if (typeof v === 'string') return toDate(v).toISOString();
    if (typeof v === 'number') return new Date(v).toISOString();
    return toDate(v).toISOString();
  },
  parseValue: (v) => toDate(v),
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    return toDate(ast.value);
  },
});

function literalToJson(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.ENUM:
      return ast.value;
    case Kind.LIST:
      return ast.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries((ast as ObjectValueNode).fields.map((f) => [f.name.value, literalToJson(f.value, variables)]));
    case Kind.VARIABLE:
      return variables ? variables[ast.name.value] : undefined;
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, variables) => literalToJson(ast, variables),
});

function float64(v: unknown): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new GraphQLError(`Float64 must be a finite IEEE 754 double, got ${JSON.stringify(v)}`);
  return n;
}

export const Float64 = new GraphQLScalarType({
  name: 'Float64',
  serialize: float64,
  parseValue: (v) => {
    if (typeof v !== 'number') throw new GraphQLError(`Float64 must be a number, got ${JSON.stringify(v)}`);
    return float64(v);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.FLOAT && ast.kind !== Kind.INT) throw new GraphQLError('Float64 must be a number', { nodes: ast });
    return float64(Number(ast.value));
  },
});

const UINT64_MAX = (1n << 64n) - 1n;

function uint64(v: unknown): bigint {
  let b: bigint;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new GraphQLError(`UInt64 must be an integer (as a string above 2^53-1), got ${v}`);
    b = BigInt(v);
  } else if (typeof v === 'string' && /^\d{1,20}$/.test(v)) b = BigInt(v);
  else throw new GraphQLError(`UInt64 must be an unsigned integer, got ${JSON.stringify(v)}`);
  if (b < 0n || b > UINT64_MAX) throw new GraphQLError(`UInt64 must be between 0 and ${UINT64_MAX}, got ${b}`);
  return b;
}

export const UInt64 = new GraphQLScalarType({
  name: 'UInt64',
  serialize(v) {
    const b = uint64(v);
    return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b.toString();
  },
  parseValue: (v) => uint64(v),
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new GraphQLError('UInt64 must be an integer or a decimal string', { nodes: ast });
    if (ast.kind === Kind.INT && ast.value.startsWith('-')) throw new GraphQLError('UInt64 must not be negative', { nodes: ast });
    return uint64(ast.kind === Kind.INT ? ast.value : ast.value);
  },
});

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Canonical decimal text (no exponent, no superfluous zeros) of a decimal string or finite number. */
export function canonicalDecimal(v: unknown): string {
  let s: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new GraphQLError(`Decimal must be finite, got ${v}`);
    s = String(v);
  } else if (typeof v === 'string' && v.length <= 400 && DECIMAL.test(v.trim())) s = v.trim(); // length first: no regex over a huge string
  else if (typeof v === 'bigint') s = v.toString();
  else throw new GraphQLError(`Decimal must be a decimal number as a string such as "1234.5678", got ${JSON.stringify(v)}`);
  const { digits, scale, negative } = parseDecimal(s);
  return formatDecimal(digits, scale, negative);
}

function parseDecimal(s: string): { digits: bigint; scale: number; negative: boolean } {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s)!;
  const negative = m[1] === '-';
  const int = m[2] || '0';
  const frac = m[3] ?? '';
  const exp = m[4] ? Number(m[4]) : 0;
  if (Math.abs(exp) > 300) throw new GraphQLError('Decimal exponent out of range');
  let digits = BigInt(int + frac);
  let scale = frac.length - exp;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits, scale, negative: negative && digits !== 0n };
}

function formatDecimal(digits: bigint, scale: number, negative: boolean): string {
  let s = digits.toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
    // Trailing zeros (and a bare point) dropped by a scan: /\.?0+$/ is quadratic over inner zeros.
    let end = s.length;
    while (s.charCodeAt(end - 1) === 48) end--;
    if (s.charCodeAt(end - 1) === 46) end--;
    s = s.slice(0, end);
  }
  return (negative && s !== '0' ? '-' : '') + s;
}

/** Exact sum of decimal values (numbers are taken at their shortest round-trip text). */
export function decimalSum(values: Iterable<number | string>): string {
  let scale = 0;
  const parts: { digits: bigint; scale: number }[] = [];
  for (const v of values) {
    const p = parseDecimal(typeof v === 'number' ? String(v) : v);
    parts.push({ digits: p.negative ? -p.digits : p.digits, scale: p.scale });
    scale = Math.max(scale, p.scale);
  }
  let total = 0n;
  for (const p of parts) total += p.digits * 10n ** BigInt(scale - p.scale);
  return formatDecimal(total < 0n ? -total : total, scale, total < 0n);
}

export const Decimal = new GraphQLScalarType({
  name: 'Decimal',
  serialize: canonicalDecimal,
  parseValue: canonicalDecimal,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING && ast.kind !== Kind.FLOAT && ast.kind !== Kind.INT)
      throw new GraphQLError('Decimal must be a string or number', { nodes: ast });
    return canonicalDecimal(ast.value);
  },
});

export const scalars = { DateTime, JSON: JSONScalar, Float64, UInt64, Decimal };
