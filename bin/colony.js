#!/usr/bin/env node
// pg 8 warns about a pattern inside a dependency (DBOS); keep the CLI's output clean.
process.noDeprecation = true;
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
