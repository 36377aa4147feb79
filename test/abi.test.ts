// The wasm buffer layouts are defined in assembly/ (abi.ts, study/abi.ts, opf/abi.ts, se/abi.ts); the
// TypeScript side (src/*/abi.generated.ts) is generated from them at build:wasm by scripts/gen-abi.js and
// re-exported, with what only JavaScript writes, by src/powerflow/abi.ts, src/studies/abi.ts, src/opf/abi.ts and
// src/stateEstimation/abi.ts. This test fails when a generated file is stale, reads every `export const X: i32 = N`
// of the assembly ABI files and fails on any difference with the TypeScript side and on any assembly constant that
// has no TypeScript counterpart named here.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as pf from '../src/powerflow/abi.js';
import * as st from '../src/studies/abi.js';
import * as opf from '../src/opf/abi.js';
import * as studyTypes from '../src/studies/types.js';
import { compileWasm, instantiateWasm } from '../src/engine/wasm.js';
import { WASM_PATH } from '../src/paths.js';

function assemblyConstants(file: string): Map<string, number> {
  const text = readFileSync(join(process.cwd(), 'assembly', file), 'utf8');
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^export const (\w+): i32 = (-?\d+);/gm)) out.set(m[1], Number(m[2]));
  assert.ok(out.size > 0, `no constants parsed from assembly/${file}`);
  return out;
}

type Resolver = (name: string) => number | undefined;
const prefixed = (prefix: string, table: Record<string, number>): Resolver => (name) =>
  name.startsWith(prefix) ? table[name.slice(prefix.length)] : undefined;
const exact = (table: Record<string, number>): Resolver => (name) => table[name];

function compare(file: string, resolvers: Resolver[], skip: string[] = []): void {
  const diffs: string[] = [];
  for (const [name, value] of assemblyConstants(file)) {
    if (skip.includes(name)) continue;
    let ts: number | undefined;
    for (const r of resolvers) {
      ts = r(name);
      if (ts !== undefined) break;
    }
    if (ts === undefined) diffs.push(`${name}: no TypeScript counterpart`);
    else if (ts !== value) diffs.push(`${name}: assembly ${value}, TypeScript ${ts}`);
  }
  assert.deepEqual(diffs, [], `assembly/${file} and its TypeScript mirror differ`);
}

it('power-flow ABI: assembly/abi.ts = src/powerflow/abi.ts', () => {
  compare('abi.ts', [
    exact({
      ABI_VERSION: pf.ABI_VERSION, BUS_FIELDS: pf.BUS_FIELDS, BR_FIELDS: pf.BR_FIELDS, GEN_FIELDS: pf.GEN_FIELDS,
      METHOD_NR: pf.METHOD_CODE.newton_raphson, METHOD_FDXB: pf.METHOD_CODE.fast_decoupled, METHOD_DC: pf.METHOD_CODE.dc,
    }),
    prefixed('IN_', pf.IN), prefixed('OUT_BUS_', pf.OUT_BUS), prefixed('OUT_BR_', pf.OUT_BR), prefixed('OUT_GEN_', pf.OUT_GEN),
    prefixed('OUT_', pf.OUT), prefixed('STATUS_', pf.STATUS),
    prefixed('BUS_', pf.BUS), prefixed('BR_', pf.BR), prefixed('GEN_', pf.GEN),
  ]);
  // the offsets helpers follow the field counts
  const nb = 7, nl = 11, ng = 3;
  const o = pf.inputOffsets(nb, nl);
  assert.equal(o.gen - pf.IN.HEADER, pf.BUS_FIELDS * nb + pf.BR_FIELDS * nl);
  assert.equal(pf.genOffsets(nb, nl, ng).end, pf.inputLength(nb, nl, ng));
  assert.equal(o.shift + nl, o.gen);
});

it('study ABI: assembly/study/abi.ts = src/studies/abi.ts', () => {
  compare('study/abi.ts', [
    exact({
      // the codes the JavaScript side decodes a chunk with (src/studies/types.ts)
      VIOL_OVERLOAD: studyTypes.VIOLATION_CODE.branch_overload, VIOL_LOW_V: studyTypes.VIOLATION_CODE.low_voltage,
      VIOL_HIGH_V: studyTypes.VIOLATION_CODE.high_voltage, CODE_ISLANDED: studyTypes.CASE_CODE.ISLANDED,
      CODE_SLACK_LOST: studyTypes.CASE_CODE.SLACK_LOST, CODE_QLIM_INFEASIBLE: studyTypes.CASE_CODE.QLIM_INFEASIBLE,
    }),
    exact({ CASE_FIELDS: st.CASE_FIELDS, SCEN_FIELDS: st.SCEN_FIELDS, VIOL_FIELDS: st.VIOL_FIELDS }),
    prefixed('SIN_', st.SIN), prefixed('SEC_', st.SEC), prefixed('REC_', st.REC), prefixed('CASE_', st.CASE), prefixed('SCEN_', st.SCEN),
    prefixed('CORR_', st.CORR), prefixed('SGEN_', st.SGEN), prefixed('VIOL_', st.VIOL), prefixed('MON_BR_', st.MON_BR),
    prefixed('MON_BUS_', st.MON_BUS),
  ]);
});

it('study sections: src/studies/abi.ts studySections = the core\'s StudySections (assembly/study/sections.ts)', () => {
  type Core = { memory: { buffer: ArrayBuffer }; studyInputPtr(len: number): number; studySections(nb: number, nl: number, ng: number): number };
  const core = instantiateWasm<Core>(compileWasm(WASM_PATH), 'powerflow.wasm', { progress: () => 0, opfProgress: () => 0 });
  const nb = 7, nl = 11, ng = 3;
  // a distinct count per section, with and without the estimate's trigger section
  for (const sharpen of [0, 6]) {
    const header = new Float64Array(st.SIN.HEADER);
    header[st.SIN.NCASES] = 5; header[st.SIN.NMONBR] = 2; header[st.SIN.NMONBUS] = 4; header[st.SIN.NSCEN] = 3;
    header[st.SIN.NOUT] = 13; header[st.SIN.NCORR] = 17; header[st.SIN.NSGEN] = 19; header[st.SIN.ESTIMATE_SHARPEN] = sharpen;
    new Float64Array(core.memory.buffer, core.studyInputPtr(header.length), header.length).set(header);
    const at = core.studySections(nb, nl, ng);
    const wasm = Array.from(new Int32Array(core.memory.buffer, at, st.SEC.COUNT + 1));
    const ts = st.studySections(header, nb, nl, ng);
    assert.deepEqual(ts.start, wasm);
    assert.equal(ts.end, wasm[st.SEC.COUNT]);
    assert.equal(ts.trigger, sharpen > 0 ? ts.end - nl : ts.end);
    // the named offsets are the starts of their sections, in SEC order
    const named = [ts.rate, ts.vmin, ts.vmax, ts.vg, ts.monBr, ts.monBus, ts.cases, ts.outages, ts.scen, ts.corr, ts.sgen, ts.trigger];
    assert.deepEqual(named, ts.start.slice(0, st.SEC.COUNT));
  }
});

it('OPF ABI: assembly/opf/abi.ts = src/opf/abi.ts', () => {
  compare('opf/abi.ts', [
    exact({
      OPF_ABI_VERSION: opf.OPF_ABI_VERSION,
      OPF_BUS_FIELDS: opf.BUS_FIELDS, OPF_BR_FIELDS: opf.BR_FIELDS, OPF_GEN_FIELDS: opf.GEN_FIELDS,
      OPF_OUT_BUS_FIELDS: opf.OUT_BUS_FIELDS, OPF_OUT_BR_FIELDS: opf.OUT_BR_FIELDS, OPF_OUT_GEN_FIELDS: opf.OUT_GEN_FIELDS,
      OPF_METHOD_DC: opf.METHOD_CODE.dc, OPF_METHOD_AC: opf.METHOD_CODE.ac,
      COST_NONE: opf.COST_CODE.none, COST_PWL: opf.COST_CODE.piecewise_linear, COST_POLY: opf.COST_CODE.polynomial,
      OPF_BAD_INPUT: opf.STATUS.BAD_INPUT,
    }),
    prefixed('OPF_IN_', opf.IN), prefixed('OPF_OUT_BUS_', opf.OUT_BUS), prefixed('OPF_OUT_BR_', opf.OUT_BR),
    prefixed('OPF_OUT_GEN_', opf.OUT_GEN), prefixed('OPF_OUT_', opf.OUT),
    prefixed('OPF_BUS_', opf.BUS), prefixed('OPF_BR_', opf.BR), prefixed('OPF_GEN_', opf.GEN), prefixed('OPF_START_', opf.START_CODE),
    prefixed('OPF_LP_', opf.LP),
  ]);
});

it('the generated TypeScript ABI is up to date with assembly/ (scripts/gen-abi.js --check)', () => {
  const run = spawnSync(process.execPath, [join(process.cwd(), 'scripts', 'gen-abi.js'), '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
});

it('scripts/gen-abi.js groups by the longest prefix and refuses an ABI file without constants', async () => {
  // @ts-expect-error: a plain JavaScript module without types
  const gen = await import('../../scripts/gen-abi.js');
  const text = 'export const OUT_HEADER: i32 = 16;  // slots\nexport const OUT_BUS_VM: i32 = 0;\nexport const OUT_BUS_FIELDS: i32 = 1;\n';
  const out: string = gen.generate({ from: 'assembly/x.ts', to: 'src/x/abi.generated.ts', groups: ['OUT_', 'OUT_BUS_'] }, text);
  assert.match(out, /export const OUT_HEADER = 16; \/\/ slots/);
  assert.match(out, /export const OUT = \{\n {2}HEADER: OUT_HEADER,\n\} as const;/);
  assert.match(out, /export const OUT_BUS = \{\n {2}VM: OUT_BUS_VM,\n {2}FIELDS: OUT_BUS_FIELDS,\n\} as const;/);
  assert.throws(() => gen.generate({ from: 'assembly/y.ts', to: 'y.ts', groups: [] }, '// nothing'), /no `export const/);
});

// Columns are read through the named constants of the ABI files, never as a raw `busOff + 5 * nb` (that is Gs),
// a raw `oBus + 2` or a literal index of an ABI buffer (`input[4]`); and no module outside the ABI files defines a
// layout constant of its own (`const LP_HEADER: i32 = 8` was defined twice, here and in src/opf/lp.ts).
const RAW_COLUMN = [
  // a column c > 0 of a table section (busOff + 5 * nb), or column 1 written as `busOff + nb`
  /\b(\w*Off|oBus|oBr|oGen|bus|br|gen) \+ \d+ \* n[blg]\b|\b(busOff|brOff|genOff|oBus|oBr|oGen|bus|br|gen) \+ n[blg]\b/,
  // a sub-record column by number: `[caseOff + 2]`, `[oBus + 1]`
  /\[(\w*Off|oBus|oBr|oGen|oMeas) \+ \d+\]/,
  // a header slot of an ABI buffer by number
  /(?<![.\w])(input|inp|opfInput|studyIn|sensIn|seInput|output|opfOutput|seOutput|records|monitor|violations)\[\d+\]/,
];
// (a module-level count, limit or status code of a file's own is fine: MAX_CACHED, MIPS_CONVERGED)
const MODULE_LAYOUT_CONSTANT = /^(export )?const [A-Z][A-Z0-9_]*(HEADER|FIELDS|_OFF|_AT)(: i32)? = \d+;/;

function rawOffsets(root: string, fileFilter: (rel: string) => boolean, constants: boolean): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name), r = rel ? `${rel}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, r);
      else if (name.endsWith('.ts') && !/(^|\/)abi(\.generated)?\.ts$/.test(r) && fileFilter(r)) {
        readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
          if (RAW_COLUMN.some((re) => re.test(line)) || (constants && MODULE_LAYOUT_CONSTANT.test(line))) {
            found.push(`${root}/${r}:${i + 1}: ${line.trim()}`);
          }
        });
      }
    }
  };
  walk(join(process.cwd(), root), '');
  return found;
}

it('assembly/ reads buffer columns through named constants, not raw offsets', () => {
  assert.deepEqual(rawOffsets('assembly', () => true, true), []);
});

it('the TypeScript side unpacks the core buffers through the named columns too', () => {
  assert.deepEqual([...rawOffsets('src', () => true, false), ...rawOffsets('workers', () => true, false)], []);
});
