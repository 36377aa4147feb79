// Where things are on disk, wherever the code runs from (src/ via a loader, or dist/src/ after tsc).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'gridops') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`gridops package.json not found above ${start}`);
    dir = up;
  }
}

/** The repository (package) root. */
export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
/** Compiled WebAssembly power-flow core. */
export const WASM_PATH = join(ROOT, 'build', 'powerflow.wasm');
/** shared/ (cases, reference solutions) lives beside the repository; GRIDOPS_SHARED overrides. */
export const SHARED_DIR = resolve(process.env.GRIDOPS_SHARED ?? join(ROOT, '..', 'shared'));
export const CASES_DIR = join(SHARED_DIR, 'cases');
export const REFERENCE_DIR = join(SHARED_DIR, 'reference', 'solutions');
