import { terminalJson, terminalLine } from '../../core/terminal-text.js';
import { interruptedReason, interruptedRunIds, shownStatus } from '../../run/interrupted.js';
import { numberFlag, parseFlags } from '../args.js';
import { withStore } from '../store-access.js';

export const RUNS_HELP = `colony runs [--limit N] [--json]

Lists runs, newest first. Read-only: never resumes anything. A run whose process is gone (killed,
crashed) shows as interrupted: colony resume RUN finishes it.`;

export async function runsCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    { limit: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'runs',
  );
  if (values.help) {
    process.stdout.write(`${RUNS_HELP}\n`);
    return 0;
  }
  const limit = numberFlag(values.limit, 'limit', 'int') ?? 50;
  return withStore(async (store) => {
    const listed = await store.runs.listRuns(limit);
    const interrupted = await interruptedRunIds(store, listed);
    const runs = listed.map((run) => ({ ...run, status: shownStatus(run.runId, run.status, interrupted) }));
    if (values.json) {
      process.stdout.write(`${terminalJson(runs)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      process.stdout.write('no runs yet (try: colony demo)\n');
      return 0;
    }
    for (const run of runs) {
      const goal = run.goal.length > 60 ? `${run.goal.slice(0, 57)}…` : run.goal;
      // One line per run, whatever its goal holds.
      process.stdout.write(
        `${terminalLine(`${run.runId}  ${run.status.padEnd(17)} ${run.topology.padEnd(6)} ${run.createdAt.slice(0, 19)}  ${goal}`)}\n`,
      );
    }
    for (const run of runs)
      if (run.status === 'interrupted')
        process.stdout.write(`${run.runId}: ${interruptedReason(run.runId)}\n`);
    return 0;
  });
}
