import { terminalJson } from '../../core/terminal-text.js';
import { interruptedReason, isRunInterrupted } from '../../run/interrupted.js';
import { glossaryLines } from '../../view/glossary.js';
import { summarise } from '../../view/summary.js';
import { onePositional, parseFlags } from '../args.js';
import { formatEvent } from '../event-line.js';
import { requireRun, withStore } from '../store-access.js';
import { formatSummary } from '../summary-text.js';

export const SHOW_HELP = `colony show RUN [--json]

The run's summary and timeline (from the event log). Read-only: never resumes anything. A run whose
process is gone (killed, crashed) shows as interrupted: colony resume RUN finishes it.

Reading the numbers (README: "Reading a run's numbers"):
${glossaryLines()}`;

export async function showCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'show',
  );
  if (values.help) {
    process.stdout.write(`${SHOW_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'show');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const events = await store.log.read(runId);
    const logged = summarise(runId, events);
    // Running in the log but no process executes it: shown as interrupted, with what finishes it.
    const summary =
      logged.status === 'running' && (await isRunInterrupted(store, runId))
        ? { ...logged, status: 'interrupted' as const, reason: interruptedReason(runId) }
        : logged;
    if (values.json) {
      process.stdout.write(`${terminalJson(summary)}\n`);
      return 0;
    }
    process.stdout.write(`${formatSummary(summary)}\n\ntimeline:\n`);
    for (const event of events) {
      const line = formatEvent(event);
      if (line) process.stdout.write(`  ${line}\n`);
    }
    return 0;
  });
}
