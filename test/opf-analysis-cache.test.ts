// The kept KKT analysis (assembly/opf/analysisCache.ts): an OPF of the same network again takes the last
// solve's pivot sequence and symbolic LU, and its answer is the one a fresh solver instance gives, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import { packOpf } from '../src/opf/pack.js';
import { DEFAULT_OPF_OPTIONS, type OpfOptions } from '../src/opf/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

const load = (name: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), `${name}.m`);
const ac: OpfOptions = { ...DEFAULT_OPF_OPTIONS, method: 'ac' };
const solve = (engine: PowerFlowEngine, net: NetworkModel) => engine.solveOpf(packOpf(net, ac).input);
/** A fresh wasm instance's answer: nothing kept. */
const fresh = (net: NetworkModel) => solve(new PowerFlowEngine(), net);

test('the same network again takes the kept analysis and gives the fresh instance\'s answer, bit for bit', () => {
  const engine = new PowerFlowEngine();
  const net = load('case118');
  const first = solve(engine, net);
  assert.equal(engine.keptOpfAnalysisHits, 0);
  const again = solve(engine, net);
  assert.equal(engine.keptOpfAnalysisHits, 1, 'the second solve took the kept analysis');
  assert.deepEqual(again, first);
  assert.deepEqual(again, fresh(net));
});

test('other loads on the same network: the first KKT matrix is the same, so the analysis is kept; the answer is the fresh one', () => {
  const engine = new PowerFlowEngine();
  const net = load('case300');
  solve(engine, net);
  const heavier = load('case300');
  for (const l of heavier.loads) { l.mw *= 1.03; l.mvar *= 1.03; }
  const r = solve(engine, heavier);
  assert.equal(engine.keptOpfAnalysisHits, 1);
  assert.deepEqual(r, fresh(heavier));
  assert.notDeepEqual(r, solve(new PowerFlowEngine(), net), 'the loads changed the answer');
});

test('another network, a changed limit or a cleared cache: analysed afresh', () => {
  const engine = new PowerFlowEngine();
  const a = load('case118');
  solve(engine, a);
  solve(engine, load('case57'));
  assert.equal(engine.keptOpfAnalysisHits, 0, 'another network');
  const limited = load('case57');
  limited.generators[0]!.qmax = limited.generators[0]!.qmax! / 2; // a bound moves the start point
  const r = solve(engine, limited);
  assert.equal(engine.keptOpfAnalysisHits, 0, 'a changed limit');
  assert.deepEqual(r, fresh(limited));
  engine.clearCache();
  solve(engine, limited);
  assert.equal(engine.keptOpfAnalysisHits, 0, 'cleared with the topology cache');
  solve(engine, limited);
  assert.equal(engine.keptOpfAnalysisHits, 1);
});
