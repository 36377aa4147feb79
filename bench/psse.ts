// PSS/E RAW import speed (#37 item 5: a 10,000-bus RAW import under 1 s): reads
// test/reference/psse/case_ACTIVSg10k.raw.gz (case_ACTIVSg10k written by MATPOWER's save2psse) and
// the shared PSS/E files with src/psse, the median of several reads after one warm-up, and prints a
// table beside MATPOWER psse2mpc's time for the same 10k file (make_activsg10k.m records it).
//   npm run bench:psse [repeats]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ROOT, SHARED_DIR } from '../src/paths.js';
import { parsePsse } from '../src/psse/reader.js';

const repeats = Number(process.argv[2] ?? 7);
const OWN = join(ROOT, 'test', 'reference', 'psse');
const CASES = join(SHARED_DIR, 'reference', 'psse', 'cases');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(text: string): { ms: number; buses: number; branches: number } {
  parsePsse(text); // warm-up
  const ms: number[] = [];
  let out = parsePsse(text);
  for (let k = 0; k < repeats; k++) {
    const t0 = performance.now();
    out = parsePsse(text);
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), buses: out.model.buses.length, branches: out.model.branches.length };
}

const rows: string[] = ['| file | buses | branches | size | gridops import (median) | MATPOWER psse2mpc (Octave) |', '|---|---:|---:|---:|---:|---:|'];
const big = join(OWN, 'case_ACTIVSg10k.raw.gz');
const ref = join(OWN, 'case_ACTIVSg10k_save2psse.json.gz');
if (existsSync(big)) {
  const text = gunzipSync(readFileSync(big)).toString('utf8');
  const r = time(text);
  const octave = existsSync(ref) ? (JSON.parse(gunzipSync(readFileSync(ref)).toString('utf8')) as { psse2mpc_seconds: number }).psse2mpc_seconds : NaN;
  rows.push(`| case_ACTIVSg10k.raw (save2psse) | ${r.buses} | ${r.branches} | ${(text.length / 1e6).toFixed(1)} MB | ${r.ms.toFixed(0)} ms | ${octave.toFixed(1)} s |`);
}
for (const f of ['powsybl/illinois_IEEE300Bus.raw', 'matpower/t_psse_case3.raw', 'powsybl/IEEE_24_bus_rev35.rawx']) {
  const p = join(CASES, f);
  if (!existsSync(p)) continue;
  const text = readFileSync(p, 'utf8');
  const r = time(text);
  rows.push(`| ${f} | ${r.buses} | ${r.branches} | ${(text.length / 1e3).toFixed(0)} kB | ${r.ms.toFixed(2)} ms | |`);
}
process.stdout.write(`${rows.join('\n')}\n`);
