#!/usr/bin/env node
// pg 8 warns about a pattern inside a dependency (DBOS); keep the CLI's output clean.
process.noDeprecation = true;
// A reader that closed our stdout (`colony runs | head -1`) has what it wanted: end quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import('../dist/src/cli/main.js');
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`colony: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
