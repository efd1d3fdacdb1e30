#!/usr/bin/env node
// Rewrites test/timings.json (test/sequencer.ts: longest files first on a fresh clone) from vitest's
// results cache of a whole-suite run: `npm test`, then `npm run test:timings`. Run it after a suite on a
// quiet machine of the CI kind; the order only shapes wall time, never what a test asserts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheRoot = join('node_modules', '.vite', 'vitest');
const found = readdirSync(cacheRoot, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(cacheRoot, entry.name, 'results.json'));
const results = found.flatMap((file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).results;
  } catch {
    return [];
  }
});
if (results.length === 0) {
  console.error(`no vitest results in ${cacheRoot}: run the whole suite (npm test) first`);
  process.exit(1);
}
const files = Object.fromEntries(
  results
    .map(([key, result]) => [key, Math.round(result.duration / 100) / 10])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
const out = {
  about: 'Seconds per test file (hooks included) of one whole-suite run; test/sequencer.ts starts the longest first.',
  measured: new Date().toISOString().slice(0, 10),
  files,
};
writeFileSync(join('test', 'timings.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`test/timings.json: ${Object.keys(files).length} files`);
