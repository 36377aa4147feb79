#!/usr/bin/env node
// Runs every compiled test file under dist/test with node's own test runner.
// Test files run one at a time (--test-concurrency=1): they share the machine's
// PostgreSQL and Redis and the large solver cases want both cores.
// QUICK=1 lets tests skip the large cases (see test/helpers); CI runs them all.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'dist', 'test');
// Test names as given (test/alarms, test/alarms.test.ts): the compiled files end in .js.
const only = process.argv.slice(2).map((o) => o.replace(/\.ts$/, '.js'));
const files = [];
(function walk(d) {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && (only.length === 0 || only.some((o) => p.includes(o)))) files.push(p);
  }
})(dir);
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
