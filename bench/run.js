#!/usr/bin/env node
// Benchmark launcher: `npm run bench -- <name> [--key value…]`.
// Builds the project (tsc emits even when someone's in-progress file has type errors), then runs
// dist/bench/<name>.js in this process with the remaining arguments. `--no-build` skips the build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const name = args[0];
const benchDir = join(root, 'bench');
const known = readdirSync(benchDir)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -3));

if (!name || name.startsWith('-') || !known.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <name> [--key value…]\nbenchmarks: ${known.join(', ')}\n`);
  process.exit(2);
}

if (!args.includes('--no-build')) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    encoding: 'utf8',
  });
  // Type errors elsewhere in the tree do not stop emit; only say something when the bench is missing.
  if (built.status !== 0 && !existsSync(join(root, 'dist', 'bench', `${name}.js`))) {
    process.stderr.write(`${built.stdout}${built.stderr}bench: build failed\n`);
    process.exit(1);
  }
}

const entry = join(root, 'dist', 'bench', `${name}.js`);
if (!existsSync(entry)) {
  process.stderr.write(`bench: ${entry} not found; build with npx tsc -p tsconfig.build.json\n`);
  process.exit(1);
}
// The benchmark reads its options from process.argv (`--key value`), so keep them in place.
process.argv = [process.argv[0], entry, ...args.slice(1).filter((arg) => arg !== '--no-build')];
await import(pathToFileURL(entry).href);
