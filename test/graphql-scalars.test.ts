// The custom scalars of SPEC 2 (DateTime, JSON, Float64, UInt64, Decimal) and the
// schema-version negotiation, without a server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kind, GraphQLError } from 'graphql';
import { DateTime, Decimal, Float64, UInt64, decimalSum, canonicalDecimal } from '../src/graphql/scalars.js';
import { negotiateVersion, versionFromAccept } from '../src/graphql/versions.js';
import { AppError } from '../src/lib/errors.js';

describe('GraphQL scalars', () => {
  it('UInt64: unsigned, exact; a number up to 2^53-1, a decimal string above', () => {
    assert.equal(UInt64.serialize(42), 42);
    assert.equal(UInt64.serialize(2 ** 53 - 1), 2 ** 53 - 1);
    assert.equal(UInt64.serialize(2n ** 53n), '9007199254740992');
    assert.equal(UInt64.serialize('18446744073709551615'), '18446744073709551615');
    assert.equal(UInt64.parseValue('18446744073709551615'), 18446744073709551615n);
    assert.equal(UInt64.parseLiteral({ kind: Kind.INT, value: '12' }, undefined), 12n);
    for (const bad of [-1, 1.5, '18446744073709551616', '-3', 'x', 2 ** 60, true]) assert.throws(() => UInt64.parseValue(bad), GraphQLError, String(bad));
    assert.throws(() => UInt64.parseLiteral({ kind: Kind.INT, value: '-1' }, undefined), GraphQLError);
  });

  it('Decimal: string-backed, canonical, exact sums', () => {
    assert.equal(Decimal.serialize('001.2300'), '1.23');
    assert.equal(Decimal.serialize(0.1), '0.1');
    assert.equal(Decimal.parseValue('1234.567890123456789012'), '1234.567890123456789012');
    assert.equal(canonicalDecimal('1e-7'), '0.0000001');
    assert.equal(canonicalDecimal('-0.000'), '0');
    assert.equal(decimalSum([0.1, 0.2]), '0.3');
    assert.equal(decimalSum(['1.5', -2, '0.25']), '-0.25');
    assert.equal(decimalSum([]), '0');
    for (const bad of ['1,5', 'abc', NaN, Infinity, '']) assert.throws(() => Decimal.parseValue(bad), GraphQLError, String(bad));
  });

  it('Float64: finite doubles only', () => {
    assert.equal(Float64.serialize(1e-300), 1e-300);
    assert.throws(() => Float64.serialize(Number.NaN), GraphQLError);
    assert.throws(() => Float64.parseValue('1'), GraphQLError);
  });

  it('DateTime: RFC 3339 in, UTC out', () => {
    assert.equal(DateTime.serialize(new Date('2026-07-01T12:00:00+02:00')), '2026-07-01T10:00:00.000Z');
    assert.equal((DateTime.parseValue('2026-07-01T12:00:00.5Z') as Date).toISOString(), '2026-07-01T12:00:00.500Z');
    for (const bad of ['2026-07-01', 'yesterday', 5, '2026-13-01T00:00:00Z']) assert.throws(() => DateTime.parseValue(bad), GraphQLError, String(bad));
  });
});

describe('GraphQL schema-version negotiation', () => {
  it('reads Schema-Version, then the Accept version parameter, else the current version', () => {
    assert.equal(versionFromAccept('application/json, application/graphql+json; version=2026-04'), '2026-04');
    assert.equal(versionFromAccept('application/graphql; charset=utf-8; version="2026-01"'), '2026-01');
    assert.equal(versionFromAccept('text/html; version=2026-01'), undefined);
    assert.equal(negotiateVersion({}).info.version, '2026-07');
    assert.equal(negotiateVersion({ 'schema-version': '2026-04', accept: 'application/graphql; version=2026-01' }).info.version, '2026-04');
    const dep = negotiateVersion({ accept: 'application/graphql; version=2026-01' });
    assert.deepEqual(dep.headers, { 'Schema-Version': '2026-01', Deprecation: 'true', Sunset: 'Fri, 31 Jul 2026 23:59:59 GMT', Link: '</graphql>; rel="successor-version"; version="2026-07"' });
    assert.deepEqual(negotiateVersion({ 'schema-version': '2026-07' }).headers, { 'Schema-Version': '2026-07' });
    for (const v of ['2026-10', '2025-12', 'v1']) {
      assert.throws(() => negotiateVersion({ 'schema-version': v }), (e: unknown) => e instanceof AppError && e.code === 'VALIDATION_FAILED' && e.details?.reason === 'UNSUPPORTED_SCHEMA_VERSION');
    }
  });
});
