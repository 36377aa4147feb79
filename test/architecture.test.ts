// The shape the architecture issues (#12, #22) fixed, kept: no module of src/ or workers/ over 700
// lines (split by concern instead). Runtime import cycles are checked by dpdm in `npm run lint`.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MAX_LINES = 700;

it(`no module in src/ or workers/ is over ${MAX_LINES} lines`, () => {
  const long: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts')) {
        const lines = readFileSync(p, 'utf8').split('\n').length - 1;
        if (lines > MAX_LINES) long.push(`${p.slice(process.cwd().length + 1)}: ${lines} lines`);
      }
    }
  };
  for (const d of ['src', 'workers']) walk(join(process.cwd(), d));
  assert.deepEqual(long, []);
});

// #22 item 5: the core keeps its state in objects (Topology and its lazily built systems, StudyWorkspace,
// StudyResults, SolveResult, DcSensitivities…). Module-level variables are left only where the wasm
// instance's ABI buffers live (the entry modules JavaScript calls; se/entry.ts also keeps the last estimate's
// analysis) and in the analysis counter.
const STATE_ALLOWED = new Set(['index.ts', 'opf/entry.ts', 'se/entry.ts', 'sparse/exports.ts', 'analysis.ts']);

it('assembly/ holds no module-level mutable state outside its entry modules', () => {
  const found: string[] = [];
  const root = join(process.cwd(), 'assembly');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !STATE_ALLOWED.has(p.slice(root.length + 1))) {
        readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
          if (/^(export\s+)?(let|var)\s/.test(line)) found.push(`${p.slice(root.length + 1)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
  };
  walk(root);
  assert.deepEqual(found, [], 'move these into the object that owns them (a workspace, a result struct, a solver system)');
});

it("Topology's per-method systems are built lazily by their accessors, each in its own module", () => {
  const topology = readFileSync(join(process.cwd(), 'assembly', 'topology.ts'), 'utf8');
  for (const [accessor, klass] of [['newton', 'NewtonSystem'], ['reducedB', 'ReducedB'], ['decoupled', 'DecoupledSystem'], ['dc', 'DcSystem']]) {
    assert.match(topology, new RegExp(`\\n  ${accessor}\\(\\): ${klass} \\{`), `Topology.${accessor}()`);
  }
  assert.doesNotMatch(topology, /SparseLU/, 'no LU solver is a field of Topology');
});
