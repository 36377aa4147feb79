#!/usr/bin/env node
// The `gridops` command (package.json "bin"): a shim over the compiled dist/src/cli.js. docs/cli.md.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('gridops: dist/src/cli.js not found: run npm run build first\n');
  process.exit(1);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
// undefined: a long-running command (serve) keeps the process alive
if (code !== undefined) process.exit(code);
