// The WHERE builder of the list functions (src/db/where.ts): placeholders are
// numbered in the order the conditions are added, jsonb's `?` survives raw().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Where } from '../src/db/where.js';

test('numbers the parameters in the order the conditions are added', () => {
  const w = Where.tenant('t1').add('status = ?', 'open').raw(`topic <> 'audit'`).add('created_at >= ? AND created_at < ? + interval \'1 day\'', '2026-01-01');
  assert.deepEqual(w.toSql(), {
    where: `tenant_id = $1 AND status = $2 AND topic <> 'audit' AND created_at >= $3 AND created_at < $3 + interval '1 day'`,
    params: ['t1', 'open', '2026-01-01'],
  });
});

test('raw() keeps the jsonb ? operator; param() gives the next placeholder', () => {
  const w = Where.tenant('t1');
  w.raw(`tags ? ${w.param('region')}`).add('tags @> ?::jsonb', '{"a":"b"}');
  assert.deepEqual(w.toSql(), { where: 'tenant_id = $1 AND tags ? $2 AND tags @> $3::jsonb', params: ['t1', 'region', '{"a":"b"}'] });
});

test('no condition is TRUE', () => {
  assert.deepEqual(new Where().toSql(), { where: 'TRUE', params: [] });
});
