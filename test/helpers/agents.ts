// The REST calls of the agents and commands tests, bound to one app and its callers:
// `h` sends everything, `second` (another operator of the tenant) confirms control
// commands (four eyes). Used by test/agents.test.ts and test/commands.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, type TestApp } from './app.js';
import { type Headers, restClient } from './rest.js';
import { CASES_DIR } from '../../src/paths.js';

export type { Res } from './rest.js';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function agentsClient(get: () => { app: TestApp; h: Headers; second: Headers }) {
  const { call, ok, err } = restClient(get);
  const importCase = async (c: string, name?: string) => {
    const r = await call('POST', `/api/v1/networks/import?format=matpower${name ? `&name=${name}` : ''}`, readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), { 'content-type': 'text/plain' });
    assert.equal(r.statusCode, 201, r.body);
    return json(r).data.id as string;
  };
  const agent = async (extra: Record<string, unknown> = {}) => ok('POST', '/api/v1/agents', { name: `a-${Math.random().toString(36).slice(2, 8)}`, type: 'dispatch', auto_start: true, ...extra }, 201);
  const cmd = (id: string, body: Record<string, unknown>, headers: Headers = {}) => call('POST', `/api/v1/agents/${id}/command`, body, headers);
  /** Both steps of a control command, the second by another operator (after the 100 ms spacing since the previous one). */
  const confirmed = async (id: string, command: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const p = await cmd(id, { command, params, ...extra });
    assert.equal(p.statusCode, 200, p.body);
    const d = json(p).data;
    assert.equal(d.status, 'confirmation_required', p.body);
    await sleep(110);
    return cmd(id, { command, params: { ...params, confirmation_token: d.result.confirmation_token }, ...extra }, get().second);
  };
  const network = (id: string) => ok('GET', `/api/v1/networks/${id}`);
  const actions = async (id: string, q = '') => ok('GET', `/api/v1/agents/${id}/actions${q}`);
  const waitAction = async (agentId: string, commandId: string, states: string[], ms = 20000) => {
    const until = Date.now() + ms;
    for (;;) {
      const a = (await actions(agentId, '?page_size=100')).find((x: { command_id: string }) => x.command_id === commandId);
      if (a && states.includes(a.status)) return a;
      if (Date.now() > until) assert.fail(`command ${commandId} did not reach ${states.join('/')}: ${JSON.stringify(a)}`);
      await sleep(25);
    }
  };
  const bodyOf = (n: { buses: unknown[]; branches: unknown[]; generators: unknown[]; loads: unknown[] }, name: string, branches = n.branches) => ({ name, buses: n.buses, branches, generators: n.generators, loads: n.loads });
  return { call, ok, err, importCase, agent, cmd, confirmed, network, actions, waitAction, bodyOf };
}
