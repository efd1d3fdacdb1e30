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
main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`colony: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exitCode = 1;
    },
  )
  .then(() => {
    // The command is over. A connection to a database that died mid-run (or another stuck handle)
    // must not keep the process alive: give normal clean-up a moment, then exit.
    setTimeout(() => process.exit(process.exitCode ?? 0), 3000).unref();
  });
