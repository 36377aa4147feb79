#!/usr/bin/env node
// The TypeScript side of the wasm ABI, generated from the AssemblyScript ABI files (the one source of every
// buffer offset and column) at build:wasm. Each `export const NAME: i32 = N;` of an ABI file becomes a constant
// of the same name, and the constants sharing a prefix listed below also form a frozen object (IN_TOL → IN.TOL),
// the shape the TypeScript code reads. The hand-written twins (src/*/abi.ts) re-export these and add what only
// JavaScript writes. `node scripts/gen-abi.js --check` fails when a generated file is out of date
// (test/abi.test.ts runs it, so an edit of an ABI file without a rebuild is caught).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** from: the AssemblyScript ABI file; to: the generated module; groups: prefixes gathered into objects. */
export const ABIS = [
  {
    from: 'assembly/abi.ts',
    to: 'src/powerflow/abi.generated.ts',
    groups: ['IN_', 'OUT_BUS_', 'OUT_BR_', 'OUT_GEN_', 'OUT_', 'STATUS_', 'BUS_', 'BR_', 'GEN_', 'METHOD_'],
  },
  {
    from: 'assembly/study/abi.ts',
    to: 'src/studies/abi.generated.ts',
    groups: ['SIN_', 'SEC_', 'REC_', 'CASE_', 'SCEN_', 'CORR_', 'SGEN_', 'VIOL_', 'MON_BR_', 'MON_BUS_', 'CODE_'],
  },
  {
    from: 'assembly/opf/abi.ts',
    to: 'src/opf/abi.generated.ts',
    groups: [
      'OPF_IN_', 'OPF_OUT_BUS_', 'OPF_OUT_BR_', 'OPF_OUT_GEN_', 'OPF_OUT_', 'OPF_BUS_', 'OPF_BR_', 'OPF_GEN_',
      'OPF_START_', 'OPF_METHOD_', 'OPF_LP_', 'COST_',
    ],
  },
  {
    from: 'assembly/se/abi.ts',
    to: 'src/stateEstimation/abi.generated.ts',
    groups: [
      'SE_IN_', 'SE_BUS_', 'SE_BR_', 'SE_GEN_', 'SE_MEAS_', 'SE_KIND_', 'SE_OUT_BUS_', 'SE_OUT_MEAS_', 'SE_OUT_', 'SE_STATUS_',
    ],
  },
];

/** The `export const NAME: i32 = N;` lines of an ABI file, in order, with their trailing comments. */
export function abiConstants(text) {
  const out = [];
  for (const m of text.matchAll(/^export const (\w+): i32 = (-?\d+);[ \t]*(?:\/\/[ \t]*(.*))?$/gm)) {
    out.push({ name: m[1], value: Number(m[2]), comment: m[3] ?? '' });
  }
  return out;
}

/** The generated module's text for one ABI. */
export function generate(abi, text) {
  const constants = abiConstants(text);
  if (constants.length === 0) throw new Error(`${abi.from}: no \`export const NAME: i32 = N;\` found`);
  const source = relative(dirname(abi.to), abi.from).split('\\').join('/');
  const lines = [
    `// Generated from ${abi.from} by scripts/gen-abi.js at build:wasm: do not edit (edit ${source}).`,
    '',
  ];
  for (const c of constants) lines.push(`export const ${c.name} = ${c.value};${c.comment ? ` // ${c.comment}` : ''}`);
  // longest prefix first, so OUT_BUS_VM goes to OUT_BUS, not OUT
  const prefixes = [...abi.groups].sort((a, b) => b.length - a.length);
  const members = new Map(abi.groups.map((p) => [p, []]));
  for (const c of constants) {
    const p = prefixes.find((q) => c.name.startsWith(q) && c.name.length > q.length);
    if (p) members.get(p).push(c);
  }
  for (const p of abi.groups) {
    const list = members.get(p);
    if (list.length === 0) throw new Error(`${abi.from}: no constant starts with ${p}`);
    lines.push('', `export const ${p.slice(0, -1)} = {`);
    for (const c of list) lines.push(`  ${c.name.slice(p.length)}: ${c.name},`);
    lines.push('} as const;');
  }
  return `${lines.join('\n')}\n`;
}

function main() {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const abi of ABIS) {
    const text = generate(abi, readFileSync(join(root, abi.from), 'utf8'));
    const target = join(root, abi.to);
    let current = null;
    try {
      current = readFileSync(target, 'utf8');
    } catch {}
    if (current === text) continue;
    if (check) stale.push(abi.to);
    else writeFileSync(target, text);
  }
  if (stale.length > 0) {
    console.error(`out of date (run npm run build:wasm or node scripts/gen-abi.js): ${stale.join(', ')}`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
