/** The `colony` command. */
import { UsageError } from './args.js';
import { demoCommand } from './commands/demo.js';
import { logsCommand } from './commands/logs.js';
import { modelsCommand } from './commands/models.js';
import { resumeCommand } from './commands/resume.js';
import { runCommand } from './commands/run.js';
import { runsCommand } from './commands/runs.js';
import { showCommand } from './commands/show.js';
import { verifyCommand } from './commands/verify.js';
import { CliFailure } from './store-access.js';

const HELP = `colony — run teams of LLM coding agents on a real git repository

usage: colony <command> [options]

  demo [solo]        run the bundled demo (scripted model, no key needed)
  run                run an agent on a repository (colony run --help)
  resume RUN         finish a run whose process died
  runs               list runs
  show RUN           a run's summary and timeline
  logs RUN           a run's events (--follow)
  verify RUN         re-check a run's hash chain
  models             known models and prices

Exit codes: 0 succeeded, 1 any other final status or failure, 2 usage or configuration error.
State lives in $COLONY_HOME (default ~/.colony); COLONY_DATABASE_URL selects an external Postgres.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  demo: demoCommand,
  run: runCommand,
  resume: resumeCommand,
  runs: runsCommand,
  show: showCommand,
  logs: logsCommand,
  verify: verifyCommand,
  models: modelsCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${HELP}\n`);
    return name ? 0 : 2;
  }
  if (name === '--version') {
    process.stdout.write('colony 0.1.0\n');
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`colony: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`colony: ${err.message}\n`);
      return 2;
    }
    if (err instanceof CliFailure) {
      process.stderr.write(`colony: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
