// The shape the architecture issue (#12) fixed, kept: no module of src/ or workers/ over 700
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
