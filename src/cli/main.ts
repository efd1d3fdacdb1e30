/** The `colony` command. */
import { terminalText } from '../core/terminal-text.js';
import { UsageError } from './args.js';
import { CliFailure } from './store-access.js';

const HELP = `colony — run teams of LLM coding agents on a real git repository

usage: colony <command> [options]

  demo [NAME]        run a bundled demo: peers (default), solo, orchestrated, review (scripted)
  run                run an agent on a repository (colony run --help)
  workflow FILE      run a workflow program: agents in stages (colony workflow --help)
  resume RUN         finish a run whose process died
  supervise          resume runs whose process died, on its own (serve and worker do too)
  runs               list runs
  show RUN           a run's summary and timeline
  report RUN         a self-contained HTML report with charts (--out DIR)
  export RUN         the lead's decisions and the episode's rewards (r_parallel, r_finish, r_perf)
                     as JSONL for training (--format trajectory, --out FILE)
  publish RUN        push a run's result branch to a git remote and open a pull request on
                     GitHub, GitLab or Gitea (--remote, --pr: colony publish --help)
  watch              take labelled issues of a forge repository: one run and one pull request per
                     issue, the outcome commented (--forge, --repo, --label: colony watch --help)
  compare RUN RUN…   runs side by side: wall-clock, cost, tokens, CriticalSteps (--json);
                     colony show --help explains CriticalSteps, parallelism, coordination share
  plan RUN           how big a team the run's work could use: Brent bounds, schedule, Monte-Carlo
                     (--tasks FILE before a run, --html FILE chart, --check RUN: plan -h)
  eval report DIR    was the team worth it? arms vs solo with intervals (eval run etc.: eval -h)
  logs RUN           a run's events (--follow)
  verify RUN         re-check a run's hash chain, and against its signed anchors
  anchor RUN         sign the run's chain head with the audit key (--out FILE)
  models             known models and prices
  send RUN ...       message an agent (--to, interrupts) or a channel (--channel)
  approve RUN MR     approve a merge request (runs with --approve-merges or --integrators)
  reject RUN MR      reject a merge request waiting for approval (--reason TEXT)
  serve              the live web dashboard and JSON API (--port 7420, --host)
  stop RUN           stop a run (its process ends it as stopped)
  worker             join a fleet: execute agents of runs started with --workers (--slots, --name)
  mcp                one agent's coordination tools as an MCP server on stdio (COLONY_AGENT_TOKEN;
                     mcp token RUN --agent NAME issues one)
  clean              remove hubs/worktrees of finished runs (--older-than 7d)

Exit codes: 0 succeeded, 1 any other final status or failure, 2 usage or configuration error.
State lives in $COLONY_HOME (default ~/.colony); COLONY_DATABASE_URL selects an external Postgres.`;

type Command = (argv: string[]) => Promise<number>;

// Loaded on demand so read-only commands start fast (they never load DBOS or the providers).
const COMMANDS: Record<string, () => Promise<Command>> = {
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  workflow: async () => (await import('./commands/workflow.js')).workflowCommand,
  resume: async () => (await import('./commands/resume.js')).resumeCommand,
  runs: async () => (await import('./commands/runs.js')).runsCommand,
  supervise: async () => (await import('./commands/supervise.js')).superviseCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  watch: async () => (await import('./commands/watch.js')).watchCommand,
  compare: async () => (await import('./commands/compare.js')).compareCommand,
  eval: async () => (await import('./commands/eval.js')).evalCommand,
  plan: async () => (await import('./commands/plan.js')).planCommand,
  logs: async () => (await import('./commands/logs.js')).logsCommand,
  verify: async () => (await import('./commands/verify.js')).verifyCommand,
  anchor: async () => (await import('./commands/anchor.js')).anchorCommand,
  models: async () => (await import('./commands/models.js')).modelsCommand,
  clean: async () => (await import('./commands/clean.js')).cleanCommand,
  send: async () => (await import('./commands/send.js')).sendCommand,
  approve: async () => (await import('./commands/approve.js')).approveCommand,
  reject: async () => (await import('./commands/approve.js')).rejectCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  stop: async () => (await import('./commands/stop.js')).stopCommand,
  worker: async () => (await import('./commands/worker.js')).workerCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
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
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(
      `colony: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})\n`,
    );
    return 2;
  }
  try {
    const command = await load();
    return await command(rest);
  } catch (err) {
    // A failure's message can quote what an agent wrote (git's output on its files, a run's reason).
    if (err instanceof UsageError) {
      process.stderr.write(`colony: ${terminalText(err.message)}\n`);
      return 2;
    }
    if (err instanceof CliFailure) {
      process.stderr.write(`colony: ${terminalText(err.message)}\n`);
      return 1;
    }
    throw err;
  }
}
