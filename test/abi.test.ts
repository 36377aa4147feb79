// Issue #22 item 1: the wasm buffer layouts are defined in assembly/ (layout.ts,
// study/layout.ts, opf/layout.ts) and mirrored by hand in src/powerflow/abi.ts,
// src/studies/abi.ts and src/opf/abi.ts. This test reads every `export const X: i32 = N`
// of the assembly layout files and fails on any difference with the TypeScript side,
// and on any assembly constant that has no TypeScript counterpart named here.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as pf from '../src/powerflow/abi.js';
import * as st from '../src/studies/abi.js';
import * as opf from '../src/opf/abi.js';

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

it('power-flow ABI: assembly/layout.ts = src/powerflow/abi.ts', () => {
  compare('layout.ts', [
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

it('study ABI: assembly/study/layout.ts = src/studies/abi.ts', () => {
  compare('study/layout.ts', [
    exact({ CASE_FIELDS: st.CASE_FIELDS, SCEN_FIELDS: st.SCEN_FIELDS, VIOL_FIELDS: st.VIOL_FIELDS }),
    prefixed('SIN_', st.SIN), prefixed('REC_', st.REC),
  ], [
    // read by the core only; the JavaScript side decodes them through src/studies (codes, violation types)
    'VIOL_OVERLOAD', 'VIOL_LOW_V', 'VIOL_HIGH_V', 'CODE_ISLANDED', 'CODE_SLACK_LOST', 'CODE_QLIM_INFEASIBLE',
  ]);
});

it('OPF ABI: assembly/opf/layout.ts = src/opf/abi.ts', () => {
  compare('opf/layout.ts', [
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
  ]);
});

// Columns are read through the named constants of the layout files, never as a raw
// `busOff + 5 * nb` (that is Gs).
const NOT_YET_NAMED: string[] = [];

it('assembly/ reads buffer columns through named constants, not raw offsets', () => {
  // a column c > 0 of a table section (busOff + 5 * nb), or column 1 written as `busOff + nb`
  const raw = /\b(\w*Off|oBus|oBr|oGen|bus|br|gen) \+ \d+ \* n[blg]\b|\b(busOff|brOff|genOff|oBus|oBr|oGen|bus|br|gen) \+ n[blg]\b/;
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name), r = rel ? `${rel}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, r);
      else if (name.endsWith('.ts') && !/(^|\/)layout\.ts$/.test(r) && !NOT_YET_NAMED.includes(r)) {
        readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
          if (raw.test(line)) found.push(`assembly/${r}:${i + 1}: ${line.trim()}`);
        });
      }
    }
  };
  walk(join(process.cwd(), 'assembly'), '');
  assert.deepEqual(found, []);
});
