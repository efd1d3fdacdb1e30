/** `colony export RUN --format trajectory [--out FILE]`: a run's lead decisions and rewards as JSONL. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { toJsonl, trajectoryRecords } from '../../report/trajectory/index.js';
import { onePositional, parseFlags, UsageError } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';

export const EXPORT_FORMATS = ['trajectory'] as const;

export const EXPORT_HELP = `colony export RUN --format trajectory [--out FILE]

Writes the run's orchestrator trajectory as JSON Lines (from the event log; read-only): one
"decision" record per model response of the lead — the request it was sent (rebuilt from the log)
and its response, its tool calls (create_subagent, assign_task, run_workflow) with their results,
the subagents it created, and what ran as a result (the tasks run together, the programs' steps),
each with its steps and outcome — then one "episode" record: CriticalSteps, total steps and the
rewards of the Kimi report, r_parallel, r_finish and r_perf (from the run's acceptance check or
verify; null when it has neither). Fields and formulas: docs/trajectory.md. Without --out the
lines go to stdout. Exit 2 for an unknown format, 1 for an unknown run.`;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { format: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'export',
  );
  if (values.help) {
    process.stdout.write(`${EXPORT_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'export');
  const format = values.format;
  if (format === undefined)
    throw new UsageError(`export: missing --format (one of: ${EXPORT_FORMATS.join(', ')})`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`export: unknown format "${format}" (one of: ${EXPORT_FORMATS.join(', ')})`);
  return withStore(async (store) => {
    if (!(await store.runs.getRun(runId)))
      throw new CliFailure(`export: no such run: ${runId} (see colony runs)`);
    const text = toJsonl(trajectoryRecords(runId, await store.log.read(runId)));
    if (values.out === undefined) {
      process.stdout.write(text);
      return 0;
    }
    const file = resolve(values.out);
    try {
      await writeFile(file, text);
    } catch (e) {
      throw new CliFailure(`export: cannot write ${file}: ${(e as Error).message}`);
    }
    process.stdout.write(`${file}\n`);
    return 0;
  });
}
