// Writes one benchmark's section of bench/README.md, leaving the other sections as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';

/** Replaces the section that starts with `heading` (up to the next "## "), or appends it. */
export function writeReadmeSection(heading: string, section: string): void {
  const file = join(ROOT, 'bench', 'README.md');
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = text.indexOf(heading);
  if (start >= 0) {
    const after = text.indexOf('\n## ', start + 5);
    text = text.slice(0, start) + section + (after >= 0 ? text.slice(after) : '');
  } else {
    text = text.replace(/\n*$/, '\n\n') + section;
  }
  writeFileSync(file, text);
}
