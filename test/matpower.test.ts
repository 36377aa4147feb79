// MATPOWER reader and writer: every shared case, malformed inputs, write-then-read round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, REFERENCE_DIR } from '../src/paths.js';
import { MatpowerParseError, parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';
import { withDefaults, type NetworkModel } from '../src/domain/networkModel.js';

const caseFiles = readdirSync(CASES_DIR).filter((f) => f.endsWith('.m')).sort();
const readCase = (name: string): string => readFileSync(join(CASES_DIR, name), 'utf8');
const cache = new Map<string, NetworkModel>();
function loadCase(name: string): NetworkModel {
  let m = cache.get(name);
  if (!m) { m = parseMatpower(readCase(name), name); cache.set(name, m); }
  return m;
}

test('the shared case directory holds the 13 cases', () => {
  assert.equal(caseFiles.length, 13);
});

for (const file of caseFiles) {
  const caseName = file.replace(/\.m$/, '');
  test(`${file}: counts match the reference solution`, () => {
    const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, `${caseName}.nr.json`), 'utf8')) as { n_bus: number; n_branch: number; n_gen: number; base_mva: number; bus: { id: number }[] };
    const m = loadCase(file);
    assert.equal(m.name, caseName);
    assert.equal(m.buses.length, ref.n_bus);
    assert.equal(m.branches.length, ref.n_branch);
    assert.equal(m.generators.length, ref.n_gen);
    assert.equal(m.base_mva, ref.base_mva);
    assert.deepEqual(m.buses.map((b) => b.id), ref.bus.map((b) => b.id), 'bus order as in the case');
    assert.equal(m.buses.filter((b) => b.type === 'slack').length, 1);
    assert.ok(m.description.length > 0 && m.description.length <= 256);
    assert.deepEqual(m.tags, {});
    for (const l of m.loads) assert.ok(l.in_service && (l.mw !== 0 || l.mvar !== 0));
  });

  test(`${file}: write then read reproduces the model`, () => {
    const m = loadCase(file);
    assertSameModel(parseMatpower(writeMatpower(m), `${caseName}.m`), m);
  });
}

/** Deep equality, with bus theta and branch shift compared within 1e-12 rad (they go through degrees). */
function assertSameModel(actual: NetworkModel, expected: NetworkModel): void {
  assert.equal(actual.buses.length, expected.buses.length);
  assert.equal(actual.branches.length, expected.branches.length);
  for (let i = 0; i < expected.buses.length; i++) {
    const d = Math.abs(actual.buses[i]!.theta - expected.buses[i]!.theta);
    assert.ok(d <= 1e-12, `bus ${expected.buses[i]!.id} theta differs by ${d}`);
  }
  for (let i = 0; i < expected.branches.length; i++) {
    const d = Math.abs(actual.branches[i]!.shift - expected.branches[i]!.shift);
    assert.ok(d <= 1e-12, `branch ${i + 1} shift differs by ${d}`);
  }
  const sameAngles: NetworkModel = {
    ...actual,
    buses: actual.buses.map((b, i) => ({ ...b, theta: expected.buses[i]!.theta })),
    branches: actual.branches.map((br, i) => ({ ...br, shift: expected.branches[i]!.shift })),
  };
  assert.deepStrictEqual(sameAngles, expected);
}

test('case9: values from the file', () => {
  const m = loadCase('case9.m');
  assert.equal(m.name, 'case9');
  assert.equal(m.description, 'Power flow data for 9 bus, 3 generator case.');
  assert.equal(m.base_kv, 345);
  assert.deepStrictEqual(m.buses[0], { id: 1, type: 'slack', v: 1, theta: 0, area: 1, gs: 0, bs: 0, base_kv: 345, vmin: 0.9, vmax: 1.1, name: '', zone: 1 });
  assert.equal(m.buses[1]!.type, 'pv');
  assert.equal(m.buses[3]!.type, 'pq');
  assert.deepStrictEqual(m.loads, [
    { bus: 5, mw: 90, mvar: 30, in_service: true },
    { bus: 7, mw: 100, mvar: 35, in_service: true },
    { bus: 9, mw: 125, mvar: 50, in_service: true },
  ]);
  assert.deepStrictEqual(m.generators[0], { bus: 1, mw: 72.3, mvar: 27.03, pmin: 10, pmax: 250, qmin: -300, qmax: 300, vg: 1.04, in_service: true, cost: { model: 'polynomial', startup: 1500, shutdown: 0, coefficients: [0.11, 5, 150] } });
  assert.deepStrictEqual(m.branches[1], { from: 4, to: 5, r: 0.017, x: 0.092, b: 0.158, rate_a: 250, ratio: 0, shift: 0, status: 'closed', angmin: -360, angmax: 360 });
});

test('case118: slack angle 30 degrees, tap ratios, bus names', () => {
  const m = loadCase('case118.m');
  const slack = m.buses.find((b) => b.type === 'slack')!;
  assert.equal(slack.id, 69);
  assert.equal(slack.theta, 30 * Math.PI / 180);
  assert.equal(slack.name, 'Sporn     V2');
  const br = m.branches.find((b) => b.from === 8 && b.to === 5)!;
  assert.deepStrictEqual(br, { from: 8, to: 5, r: 0, x: 0.0267, b: 0, rate_a: 0, ratio: 0.985, shift: 0, status: 'closed', angmin: -360, angmax: 360 });
  assert.equal(m.base_kv, 138);
});

test('case14: names kept verbatim, base_kv 0 everywhere gives the default 110', () => {
  const m = loadCase('case14.m');
  assert.equal(m.buses[0]!.name, 'Bus 1     HV');
  assert.equal(m.base_kv, 110);
});

test('case1354pegase: phase shift in radians', () => {
  const m = loadCase('case1354pegase.m');
  const br = m.branches.find((b) => b.from === 549 && b.to === 5002)!;
  assert.equal(br.shift, 0.072386 * Math.PI / 180);
  assert.equal(br.rate_a, 567);
  assert.equal(br.x, 0.009197);
});

test('case2383wp: Inf generator limits become null (unlimited)', () => {
  const m = loadCase('case2383wp.m');
  const g = m.generators.find((x) => x.bus === 180)!;
  assert.equal(g.qmax, null);
  assert.equal(g.qmin, null);
  assert.equal(g.pmax, 0);
  assert.equal(g.mvar, 16.8544);
});

test('case_ACTIVSg10k: out-of-service generators, negative slack angle, names', () => {
  const m = loadCase('case_ACTIVSg10k.m');
  assert.equal(m.generators.filter((g) => !g.in_service).length, 548);
  const slack = m.buses.find((b) => b.type === 'slack')!;
  assert.ok(Math.abs(slack.theta - (-49.4071 * Math.PI / 180)) < 1e-5);
  assert.equal(m.buses[0]!.name, 'NEAH BAY 1');
});

test('reading the largest cases twice gives the same model (the reader keeps no state between files)', () => {
  // How fast is for bench/, not for a test on a shared machine (#21 item 5).
  for (const file of ['case_ACTIVSg10k.m', 'case13659pegase.m']) {
    const text = readCase(file);
    assert.deepEqual(parseMatpower(text, file), parseMatpower(text, file));
  }
});

// ---------------------------------------------------------------- malformed inputs

const CASE9 = readCase('case9.m');
const case9Lines = CASE9.split('\n');
/** case9 with line `lineNo` (1-based) replaced (or removed with null). */
function case9With(lineNo: number, replacement: string | null): string {
  const lines = case9Lines.slice();
  if (replacement === null) lines.splice(lineNo - 1, 1);
  else lines[lineNo - 1] = replacement;
  return lines.join('\n');
}
function lineOf(prefix: string): number {
  const i = case9Lines.findIndex((l) => l.startsWith(prefix));
  assert.ok(i >= 0, prefix);
  return i + 1;
}
function assertParseError(text: string, line: number, messagePart: RegExp): MatpowerParseError {
  try {
    parseMatpower(text, 'bad.m');
  } catch (e) {
    assert.ok(e instanceof MatpowerParseError, `not a MatpowerParseError: ${String(e)}`);
    assert.equal(e.line, line, e.message);
    assert.match(e.message, new RegExp(`^bad\\.m line ${line}: expected `));
    assert.match(e.message, messagePart);
    assert.equal(typeof e.expected, 'string');
    return e;
  }
  assert.fail('no error thrown');
}

test('malformed: empty file', () => {
  assertParseError('', 1, /empty file/);
  assertParseError('  \n\n', 1, /empty file/);
});

test('malformed: missing mpc.bus', () => {
  const start = lineOf('mpc.bus = [');
  const lines = case9Lines.slice();
  lines.splice(start - 1, 12); // mpc.bus = [ ... ];
  assert.ok(!lines.join('\n').includes('mpc.bus ='));
  const e = assertParseError(lines.join('\n'), lines.length, /mpc\.bus matrix/);
  assert.equal(e.expected, 'an mpc.bus matrix');
});

test('malformed: a branch row with too few columns', () => {
  const line = lineOf('\t4\t5\t0.017');
  const e = assertParseError(case9With(line, '\t4\t5\t0.017\t0.092\t0.158\t250\t250\t250\t0\t0\t1;'), line, /13 numeric columns in mpc\.branch row, found 11$/);
  assert.equal(e.expected, '13 numeric columns in mpc.branch row');
});

test('malformed: a non-number token', () => {
  const line = lineOf('\t5\t1\t90');
  assertParseError(case9With(line, '\t5\t1\t90\tthirty\t0\t0\t1\t1\t0\t345\t1\t1.1\t0.9;'), line, /a number in mpc\.bus, found 'thirty'/);
  assertParseError(case9With(line, '\t5\t1\t90\t30\t0\t0\t1\t1\t0\t345\t1\t1.1\tNaN;'), line, /found 'NaN'/);
});

test('malformed: unterminated matrix (end of file, or the next statement)', () => {
  const open = lineOf('mpc.gencost = [');
  const cut = case9Lines.slice(0, open + 2).join('\n'); // gencost never closed
  assertParseError(cut, open, /'\]' closing the mpc\.gencost matrix.*end of file/);
  const busOpen = lineOf('mpc.bus = [');
  const unclosed = case9With(lineOf('];'), ''); // the bus matrix's '];'
  assertParseError(unclosed, busOpen, /'\]' closing the mpc\.bus matrix.*'mpc\.gen' at line/);
});

test('malformed: unknown bus type', () => {
  const line = lineOf('\t6\t1\t0');
  assertParseError(case9With(line, '\t6\t7\t0\t0\t0\t0\t1\t1\t0\t345\t1\t1.1\t0.9;'), line, /bus type .* found 7$/);
});

test('malformed: branch or generator to an unknown bus', () => {
  const line = lineOf('\t8\t9\t0.032');
  assertParseError(case9With(line, '\t8\t99\t0.032\t0.161\t0.306\t250\t250\t250\t0\t0\t1\t-360\t360;'), line, /T_BUS .* bus 99, which is not in mpc\.bus/);
  const gline = lineOf('\t2\t163');
  assertParseError(case9With(gline, '\t12\t163\t6.54\t300\t-300\t1.025\t100\t1\t300\t10\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0;'), gline, /GEN_BUS .* bus 12/);
});

test('malformed: duplicate and non-integer bus numbers, bad baseMVA, wrong version', () => {
  const line = lineOf('\t6\t1\t0');
  assertParseError(case9With(line, '\t5\t1\t0\t0\t0\t0\t1\t1\t0\t345\t1\t1.1\t0.9;'), line, /unique bus number.*bus 5 again \(first at line \d+\)/);
  assertParseError(case9With(line, '\t6.5\t1\t0\t0\t0\t0\t1\t1\t0\t345\t1\t1.1\t0.9;'), line, /positive integer bus number/);
  const mva = lineOf('mpc.baseMVA');
  assertParseError(case9With(mva, 'mpc.baseMVA = abc;'), mva, /positive number for mpc\.baseMVA/);
  const ver = lineOf('mpc.version');
  assertParseError(case9With(ver, "mpc.version = '1';"), ver, /version '2'/);
});

test('malformed: bus_name with the wrong count, computed statements', () => {
  const text = `${CASE9}\nmpc.bus_name = {\n\t'a';\n\t'b';\n};\n`;
  const nameLine = case9Lines.length + 1;
  assertParseError(text, nameLine, /9 names in mpc\.bus_name.*found 2/);
  const after = case9Lines.length + 1;
  assertParseError(`${CASE9}\nmpc.bus(1, 3) = 5;\n`, after, /plain assignment mpc\.bus/);
});

// ---------------------------------------------------------------- tolerated syntax

test('tolerated: commas, rows without a trailing semicolon, several rows on a line, comments, continuation, Inf', () => {
  const text = [
    'function mpc = tiny % a comment',
    '% TINY   Two buses.',
    "mpc.version = '2';",
    'mpc.baseMVA = 100.0 ;',
    'mpc.areas = [1 1; 2 2];',
    'mpc.bus = [',
    '  1, 3, 0, 0, 0, 0, 1, 1.0e0, 0, 230, 1, 1.1, 0.9   % slack',
    '  2 1 1.5e1 -5 0 0 1 1 -0.5 230 ...',
    '    1 1.1 0.9; ];',
    'mpc.gen = [1 10 0 Inf -Inf 1.02 100 1 +Inf -inf];',
    'mpc.branch = [ 1 2 0.01 0.1 0 Inf 0 0 0 0 1 -360 360 ];',
    "mpc.genfuel = { 'coal' };",
    'return;',
  ].join('\n');
  const m = parseMatpower(text, '/some/dir/tiny.m');
  assert.equal(m.name, 'tiny');
  assert.equal(m.description, 'Two buses.');
  assert.equal(m.base_kv, 230);
  assert.equal(m.buses.length, 2);
  assert.equal(m.buses[1]!.theta, -0.5 * Math.PI / 180);
  assert.equal(m.buses[1]!.vmax, 1.1);
  assert.deepStrictEqual(m.loads, [{ bus: 2, mw: 15, mvar: -5, in_service: true }]);
  assert.deepStrictEqual(m.generators[0], { bus: 1, mw: 10, mvar: 0, pmin: null, pmax: null, qmin: null, qmax: null, vg: 1.02, in_service: true, cost: null });
  assert.equal(m.branches[0]!.rate_a, 0);
});

test('tolerated: block comments, double-quoted names with escapes, bus_name before mpc.bus, no function line', () => {
  const text = [
    '%{',
    'mpc.bus = [ this is commented out ];',
    '%}',
    'mpc.bus_name = { "A ""quoted"" name", \'it\'\'s\' };',
    'mpc.baseMVA = 10;',
    'mpc.bus = [1 3 0 0 0 0 1 1 0 0 1 1.1 0.9; 2 1 0 0 0 0 1 1 0 0 1 1.1 0.9];',
    'mpc.gen = [1 0 0 10 -10 1 10 0 10 0];',
    'mpc.branch = [1 2 0 0.1 0 0 0 0 0 0 0 -360 360];',
  ].join('\n');
  const m = parseMatpower(text, 'noname.m');
  assert.equal(m.name, 'noname');
  assert.equal(m.description, '');
  assert.deepEqual(m.buses.map((b) => b.name), ['A "quoted" name', "it's"]);
  assert.equal(m.generators[0]!.in_service, false);
  assert.equal(m.branches[0]!.status, 'open');
  assert.equal(m.base_kv, 110);
  assertParseError('%{\nmpc.baseMVA = 1;\n', 1, /'%\}' closing the block comment/);
});

test('numbers are read exactly as Number() reads them (fast path and fallback)', () => {
  const tokens = ['1.', '.5', '-0', '+2.5e+3', '1e-300', '-1.7976931348623157e308', '123456789012345678', '0.1', '0.30000000000000004',
    '9007199254740993', '1.0116409', '-39.843601', '20.7700', '1e22', '1e23', '1.5E-7', '000012.5000', '4.9e-324', '123456789012345.6'];
  for (let i = 0; i < 2000; i++) tokens.push(((Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 20 - 10)).toPrecision(1 + Math.floor(Math.random() * 17)));
  const rows = tokens.map((tk, i) => `${i + 1} 1 ${tk} 1 0 0 1 1 0 0 1 1.1 0.9`);
  const text = `function mpc = nums\nmpc.baseMVA = 100;\nmpc.bus = [\n${rows.join('\n')}\n];\nmpc.gen = [];\nmpc.branch = [];\n`;
  const m = parseMatpower(text);
  assert.equal(m.loads.length, tokens.length);
  m.loads.forEach((l, i) => assert.ok(Object.is(l.mw, Number(tokens[i])), `${tokens[i]} read as ${l.mw}`));
});

test('tolerated: CRLF line ends and a byte order mark', () => {
  const crlf = `\ufeff${CASE9.replace(/\n/g, '\r\n')}`;
  assert.deepStrictEqual(parseMatpower(crlf, 'case9.m'), loadCase('case9.m'));
  const bad = case9With(lineOf('\t4\t5\t0.017'), '\t4\t5\t0.017').replace(/\n/g, '\r\n');
  assertParseError(bad, lineOf('\t4\t5\t0.017'), /found 3$/);
});

test('the struct name comes from the function line; version 1 files are refused', () => {
  const text = CASE9.replace('function mpc = case9', 'function s = case9').replace(/^mpc\./gm, 's.');
  assert.deepStrictEqual(parseMatpower(text, 'case9.m'), loadCase('case9.m'));
  assertParseError('function [baseMVA, bus, gen, branch] = old\nbaseMVA = 100;\n', 1, /version 1 files/);
});

test('error message names the file by its base name', () => {
  assert.throws(() => parseMatpower('function mpc = x\nmpc.baseMVA = 100;\n', '/a/b/c.m'), /^MatpowerParseError: c\.m line \d+: expected an mpc\.bus matrix/);
});

// ---------------------------------------------------------------- writer

function richModel(): NetworkModel {
  return withDefaults({
    name: "O'Brien grid #1",
    description: 'Hand-built: names, open branches, offline gens and loads',
    base_kv: 66,
    base_mva: 50,
    buses: [
      { id: 10, type: 'slack', v: 1.03, theta: -0.2, name: "O'Brien North", base_kv: 132, vmin: 0.95, vmax: 1.05, gs: 1.5, bs: -2, area: 2, zone: 3 },
      { id: 20, type: 'pv', v: 1.01, name: 'South "B"', base_kv: 132 },
      { id: 30, type: 'pq', theta: -0 },
      { id: 40, type: 'isolated', name: '' },
    ],
    branches: [
      { from: 10, to: 20, r: 0.01, x: 0.1, b: 0.02, rate_a: 120 },
      { from: 20, to: 30, r: 0.02, x: 0.2, status: 'open', ratio: 1.05, shift: 0.1 },
      { from: 10, to: 30, r: 0.03, x: 0.3, status: 'maintenance', shift: -Math.PI / 7 },
    ],
    generators: [
      { bus: 10, mw: 80, vg: 1.03, pmin: 0, pmax: 200, qmin: -50, qmax: 60 },
      { bus: 20, mw: 40, mvar: 5, in_service: false, vg: 1.01 },
      { bus: 20, mw: 0.1 + 0.2, qmin: null, qmax: 1e21 },
    ],
    loads: [
      { bus: 30, mw: 60, mvar: 20 },
      { bus: 20, mw: 1e-7, mvar: -3.3 },
      { bus: 30, mw: 15, mvar: 2, in_service: false },
      { bus: 40, mw: 7, in_service: false },
    ],
  });
}

test('writer: round trip of names, open/maintenance branches, out-of-service gens and loads', () => {
  const model = richModel();
  const text = writeMatpower(model);
  assert.match(text, /^function mpc = O_Brien_grid__1\n/);
  assert.match(text, /mpc\.version = '2';/);
  assert.match(text, /mpc\.bus_name = \{\n\t'O''Brien North';/);
  const back = parseMatpower(text, 'rich.m');
  // loads come back in bus order (one per bus), then the out-of-service ones
  const expected: NetworkModel = {
    ...model,
    loads: [
      { bus: 20, mw: 1e-7, mvar: -3.3, in_service: true },
      { bus: 30, mw: 60, mvar: 20, in_service: true },
      { bus: 30, mw: 15, mvar: 2, in_service: false },
      { bus: 40, mw: 7, mvar: 0, in_service: false },
    ],
  };
  assertSameModel(back, expected);
  assert.ok(Object.is(back.buses[2]!.theta, -0));
  // and writing again gives the same text
  assert.equal(writeMatpower(back), text);
});

test('writer: several in-service loads at one bus are summed into Pd/Qd', () => {
  const model = withDefaults({
    name: 'sum', buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }],
    branches: [{ from: 1, to: 2, r: 0, x: 0.1 }], generators: [{ bus: 1, mw: 0 }],
    loads: [{ bus: 2, mw: 10, mvar: 1 }, { bus: 2, mw: 5, mvar: 2 }],
  });
  const back = parseMatpower(writeMatpower(model));
  assert.deepStrictEqual(back.loads, [{ bus: 2, mw: 15, mvar: 3, in_service: true }]);
  assert.equal(back.name, 'sum');
  assert.equal(back.base_kv, 110);
  // no extension fields needed for this one
  assert.doesNotMatch(writeMatpower(model), /gridops_/);
});

// ---------------------------------------------------------------- generator costs and angle limits

test('gencost: piecewise-linear costs, angle limits and a generator without cost round-trip', () => {
  const m = structuredClone(loadCase('case9.m'));
  m.generators[1]!.cost = { model: 'piecewise_linear', startup: 10, shutdown: 5, coefficients: [0, 0, 100, 2000, 200, 5000] };
  m.generators[2]!.cost = null;
  m.branches[0]!.angmin = -30;
  m.branches[0]!.angmax = 45.5;
  const text = writeMatpower(m);
  assert.match(text, /mpc\.gencost = \[/);
  assert.match(text, /\t1\t10\t5\t3\t0\t0\t100\t2000\t200\t5000;/);
  assertSameModel(parseMatpower(text, 'case9.m'), m);
});

test('gencost: a network without any cost writes no gencost and reads back with null costs', () => {
  const m = withDefaults({ name: 'tiny', buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }], generators: [{ bus: 1, mw: 10 }] });
  const text = writeMatpower(m);
  assert.doesNotMatch(text, /gencost/);
  const back = parseMatpower(text, 'tiny.m');
  assert.equal(back.generators[0]!.cost, null);
  assert.deepEqual([back.branches[0]!.angmin, back.branches[0]!.angmax], [-360, 360]);
});

const GENCOST9 = /mpc\.gencost = \[[^\]]*\];/;
const withGencost = (rows: string): string => CASE9.replace(GENCOST9, `mpc.gencost = [\n${rows}\n];`);

test('gencost: reactive-power rows (2*ng) become reactive_cost and round-trip, placeholders included', () => {
  const rows = '2 0 0 3 0.11 5 150;\n2 0 0 3 0.085 1.2 600;\n2 0 0 3 0.1225 1 335;\n2 0 0 3 0.2 0 0;\n1 0 0 3 -300 150 0 0 300 300;\n2 0 0 2 1 0;';
  const m = parseMatpower(withGencost(rows), 'case9.m');
  assert.deepEqual(m.generators.map((g) => g.cost!.coefficients), [[0.11, 5, 150], [0.085, 1.2, 600], [0.1225, 1, 335]]);
  assert.deepEqual(m.generators[0]!.reactive_cost, { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0.2, 0, 0] });
  assert.deepEqual(m.generators[1]!.reactive_cost, { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [-300, 150, 0, 0, 300, 300] });
  assertSameModel(parseMatpower(writeMatpower(m), 'case9.m'), m);
  // a generator without a reactive cost beside one with: its row is a placeholder and reads back absent
  delete m.generators[2]!.reactive_cost;
  const text = writeMatpower(m);
  assert.match(text, /mpc\.gridops_gen_without_cost = \[6\];/);
  assert.match(text, /\t2\t0\t0\t3\t0\.11\t5\t150\t0\t0\t0;/, 'rows padded to one width');
  const back = parseMatpower(text, 'case9.m');
  assert.equal(back.generators[2]!.reactive_cost, undefined);
  assertSameModel(back, m);
});

test('gencost: a non-convex reactive cost is refused naming its row and MVAr', () => {
  const rows = '2 0 0 3 0.11 5 150;\n2 0 0 3 0.085 1.2 600;\n2 0 0 3 0.1225 1 335;\n2 0 0 1 0;\n1 0 0 2 10 0 -10 5;\n2 0 0 1 0;';
  assert.throws(() => parseMatpower(withGencost(rows), 'case9.m'),
    (e: unknown) => e instanceof MatpowerParseError && /row 5 \(reactive power of generator row 2\).*increasing MVAr/.test(e.message));
});

test('gencost: wrong row count, short rows, bad model and non-convex costs are refused', () => {
  const cases: [string, RegExp][] = [
    ['2 0 0 3 0.11 5 150;\n2 0 0 3 0.085 1.2 600;', /3 rows in mpc\.gencost.*or 6 with reactive.*found 2 rows/],
    ['2 0 0 3 0.11 5 150;\n2 0 0 3 0.085 1.2;\n2 0 0 3 0.1225 1 335;', /3 cost values after NCOST = 3/],
    ['2 0 0 3 0.11 5 150;\n3 0 0 1 5;\n2 0 0 3 0.1225 1 335;', /MODEL 1 \(piecewise linear\) or 2/],
    ['2 0 0 3 0.11 5 150;\n1 0 0 3 0 0 100 3000 200 4000;\n2 0 0 3 0.1225 1 335;', /not convex: the slope falls from 30 to 10/],
    ['2 0 0 3 0.11 5 150;\n1 0 0 2 100 0 50 10;\n2 0 0 3 0.1225 1 335;', /increasing MW/],
  ];
  for (const [rows, re] of cases) {
    assert.throws(() => parseMatpower(withGencost(rows), 'case9.m'), (e: unknown) => e instanceof MatpowerParseError && re.test(e.message), rows);
  }
});
