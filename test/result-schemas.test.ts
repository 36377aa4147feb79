// The power-flow result's TypeBox schemas (src/schemas/powerflowResult.ts) are the one source of its
// shape (#22 item 4): real answers of every kind (sync, async read back, islanded) match them with no
// field left undescribed, every GraphQL field of the result types is a schema property (camelCase),
// and the OpenAPI document describes the answer with them. Both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TSchema, type TObject, FormatRegistry, Kind } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { GraphQLObjectType, GraphQLList, GraphQLNonNull, type GraphQLOutputType } from 'graphql';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';
import { buildGraphqlSchema } from '../src/graphql/build.js';
import {
  BranchResultOut,
  BusResultOut,
  GeneratorResultOut,
  IslandSummaryOut,
  LossesOut,
  PowerFlowResultOut,
} from '../src/schemas/powerflowResult.js';
import {
  OpfBindingContingencyOut,
  OpfDcLineOut,
  OpfEarlierRunOut,
  OpfSecurityOut,
  OpfBranchOut,
  OpfBusOut,
  OpfGeneratorOut,
  OpfResultOut,
} from '../src/schemas/opfResult.js';
import { StudyTaskResultOut, TaskResultOut } from '../src/schemas/taskResults.js';
import { SensitivityTaskResultOut } from '../src/schemas/sensitivities.js';
import { StateEstimationResultOut } from '../src/schemas/stateEstimation.js';

FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d\d-\d\dT/.test(v));
const checkResult = TypeCompiler.Compile(PowerFlowResultOut);
const checkOpf = TypeCompiler.Compile(OpfResultOut);

/** Paths of values in `v` that the schema does not name (TypeBox objects accept extra keys by default). */
function undescribed(schema: TSchema, v: unknown, at = '$'): string[] {
  if (v === null || typeof v !== 'object') return [];
  if (Array.isArray(v)) {
    const items = (schema as { items?: TSchema }).items;
    return items && v.length > 0 ? undescribed(items, v[0], `${at}[0]`) : [];
  }
  if (schema[Kind] === 'Union') return (schema as unknown as { anyOf: TSchema[] }).anyOf.flatMap((s) => (s[Kind] === 'Object' ? undescribed(s, v, at) : []));
  if (schema[Kind] !== 'Object') return [];
  const props = (schema as TObject).properties;
  return Object.entries(v).flatMap(([k, x]) => (k in props ? undescribed(props[k]!, x, `${at}.${k}`) : [`${at}.${k}`]));
}

function assertDescribed(
  r: unknown,
  what: string,
  schema: TObject = PowerFlowResultOut,
  check: { Errors(v: unknown): Iterable<{ path: string; message: string }> } = checkResult,
): void {
  const errors = [...check.Errors(r)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(errors, [], `${what} matches its schema`);
  assert.deepEqual(undescribed(schema, r), [], `${what}: every field is in the schema`);
}

/** case118 with branch 183 open: bus 117 (20 MW) is cut off. */
function splitCase118(): string {
  const m = parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
  return writeMatpower({ ...m, name: 'case118_split', branches: m.branches.map((b, k) => (k === 183 ? { ...b, status: 'open' as const } : b)) });
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const named = (t: GraphQLOutputType): GraphQLOutputType => (t instanceof GraphQLNonNull || t instanceof GraphQLList ? named(t.ofType) : t);

describe('power-flow result schemas against the GraphQL types and the OpenAPI document', () => {
  const gql = buildGraphqlSchema();
  // GraphQL-only fields: links and task state the REST answer carries elsewhere (the task resource).
  const graphqlOnly = new Set(['network', 'createdAt', 'pollUrl', 'progress', 'error']);
  const pairs: [string, TObject][] = [
    ['PowerFlowResult', PowerFlowResultOut],
    ['BusResult', BusResultOut],
    ['BranchResult', BranchResultOut],
    ['GeneratorResult', GeneratorResultOut],
    ['Losses', LossesOut],
    ['Island', IslandSummaryOut],
    ['OpfResult', OpfResultOut],
    ['OpfBus', OpfBusOut],
    ['OpfGenerator', OpfGeneratorOut],
    ['OpfBranch', OpfBranchOut],
    ['OpfSecurity', OpfSecurityOut],
    ['OpfBindingContingency', OpfBindingContingencyOut],
    ['OpfEarlierRun', OpfEarlierRunOut],
    ['OpfDcLine', OpfDcLineOut],
  ];
  for (const [type, schema] of pairs) {
    it(`every field of GraphQL ${type} is a property of its schema`, () => {
      const t = gql.getType(type);
      assert.ok(t instanceof GraphQLObjectType, `${type} exists`);
      const fields = Object.keys(t.getFields()).filter((f) => !(type.endsWith('Result') && graphqlOnly.has(f)));
      const missing = fields.filter((f) => !(snake(f) in schema.properties));
      assert.deepEqual(missing, [], `${type} fields without a schema property`);
      // and the nested lists are the same element types
      for (const f of fields) {
        const inner = named(t.getFields()[f]!.type);
        if (inner instanceof GraphQLObjectType) assert.ok(pairs.some(([n]) => n === inner.name), `${type}.${f}: ${inner.name} is checked too`);
      }
    });
  }
  it('a hand-made result with an unknown field is caught (the check can fail)', () => {
    assert.deepEqual(undescribed(PowerFlowResultOut, { buses: [{ id: 1, surprise: 2 }] }), ['$.buses[0].surprise']);
  });
});

for (const mode of MODES) {
  describe(`power-flow answers match their schema (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let net9: string, split: string;
    const { call, ok } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const a = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), {
        'content-type': 'text/plain',
      });
      net9 = json(a).data.id;
      const b = await call('POST', '/api/v1/networks/import?format=matpower', splitCase118(), { 'content-type': 'text/plain' });
      split = json(b).data.id;
    });
    after(async () => app?.close());

    it('synchronous answers of every method, and an islanded one', async () => {
      for (const method of ['newton_raphson', 'fast_decoupled', 'dc'])
        assertDescribed(await ok('POST', `/api/v1/networks/${net9}/powerflow`, { method }), method);
      const iso = await ok('POST', `/api/v1/networks/${split}/powerflow`, { islanding: 'isolate' });
      assert.ok(iso.islands.length === 2 && iso.lost_load_mw === 20);
      assertDescribed(iso, 'islanded');
    });

    it('an async task read back with include=result', async () => {
      const q = await ok('POST', `/api/v1/networks/${net9}/powerflow`, { async: true }, 202);
      assert.deepEqual(Object.keys(q).sort(), ['created_at', 'network_id', 'poll_url', 'status', 'task_id']);
      assert.ok(await app.services.tasks.waitFor(q.task_id, 60_000));
      const t = await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`);
      assertDescribed(t.result, 'task result');
    });

    it('OPF answers (DC and AC, sync and async) match their schema', async () => {
      for (const method of ['dc', 'ac']) assertDescribed(await ok('POST', `/api/v1/networks/${net9}/opf`, { method }), `opf ${method}`, OpfResultOut, checkOpf);
      const q = await ok('POST', `/api/v1/networks/${net9}/opf`, { method: 'dc', async: true }, 202);
      assert.ok(await app.services.tasks.waitFor(q.task_id, 60_000));
      assertDescribed((await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`)).result, 'opf task result', OpfResultOut, checkOpf);
      const applied = await ok('POST', `/api/v1/networks/${net9}/opf`, { method: 'dc', apply: true });
      assert.ok(applied.applied.network_version > 1);
      assertDescribed(applied, 'opf applied', OpfResultOut, checkOpf);
    });

    it('a sensitivities and a study task read back with include=result match the schemas of their kind', async () => {
      const sens = await ok('POST', `/api/v1/networks/${net9}/sensitivities`, { kind: 'ptdf', async: true }, 202);
      const study = await ok('POST', `/api/v1/networks/${net9}/studies`, { kind: 'contingency', contingencies: [{ branches: [0] }, { branches: [3] }] }, 202);
      for (const [id, schema, what] of [[sens.task_id, SensitivityTaskResultOut, 'sensitivities'], [study.task_id, StudyTaskResultOut, 'study']] as const) {
        assert.ok(await app.services.tasks.waitFor(id, 60_000));
        const t = await ok('GET', `/api/v1/tasks/${id}?include=result`);
        assert.equal(t.status, 'completed', JSON.stringify(t.error));
        assertDescribed(t.result, `${what} task result`, schema, TypeCompiler.Compile(schema));
        // and the union the document gives for every kind takes it
        assert.deepEqual([...TypeCompiler.Compile(TaskResultOut).Errors(t.result)].length, 0, `${what}: one of TaskResultOut`);
      }
    });

    it('the OpenAPI document types GET /tasks/{id}?include=result with the result schema of every kind', async () => {
      const doc = json(await app.app!.inject({ method: 'GET', url: '/api/v1/openapi.json' }));
      const resolve = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
      const data = resolve(doc.paths['/api/v1/tasks/{id}'].get.responses['200'].content['application/json'].schema.properties.data);
      const kinds = (data.properties.result.anyOf as { $ref?: string; type?: string }[]).map(resolve).filter((s) => s.type !== 'null');
      const keys = (s: { properties: object }) => Object.keys(s.properties).sort().join(',');
      for (const schema of [PowerFlowResultOut, OpfResultOut, StateEstimationResultOut, SensitivityTaskResultOut, StudyTaskResultOut]) {
        assert.ok(kinds.some((k) => keys(k) === keys(schema)), `the document names ${Object.keys(schema.properties).slice(0, 4).join(', ')}, …`);
      }
      assert.ok(data.properties.task_id && data.properties.status, 'the task fields are still there');
    });

    it('the OpenAPI document describes the answer with the schema', async () => {
      const doc = json(await app.app!.inject({ method: 'GET', url: '/api/v1/openapi.json' }));
      const op = doc.paths['/api/v1/networks/{id}/powerflow'].post;
      const data = op.responses['200'].content['application/json'].schema.properties.data;
      const resolve = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
      const result = resolve(data);
      assert.deepEqual(Object.keys(result.properties).sort(), Object.keys(PowerFlowResultOut.properties).sort());
      assert.deepEqual(Object.keys(resolve(result.properties.buses.items).properties).sort(), Object.keys(BusResultOut.properties).sort());
      const opf = resolve(doc.paths['/api/v1/networks/{id}/opf'].post.responses['200'].content['application/json'].schema.properties.data);
      assert.deepEqual(Object.keys(opf.properties).sort(), Object.keys(OpfResultOut.properties).sort());
      const accepted = resolve(op.responses['202'].content['application/json'].schema.properties.data);
      assert.ok(accepted.properties.poll_url, 'the 202 answer names poll_url');
    });
  });
}
