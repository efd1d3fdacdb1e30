import { join } from 'node:path';
import { writeReport } from '../../report/write-report.js';
import { onePositional, parseFlags } from '../args.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const REPORT_HELP = `colony report RUN [--out DIR]

Writes the run's report (from the event log): DIR/index.html, a self-contained page (no network
requests: inline CSS, JS and SVG) with the summary, the timeline with the critical path, tokens and
cost over time, agents, the integration queue, shared context, messages and limits; and each chart as
DIR/<chart>.svg. DIR defaults to ./colony-report-<run>. Read-only: never resumes anything.`;

export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'report',
  );
  if (values.help) {
    process.stdout.write(`${REPORT_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'report');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const events = await store.log.read(runId);
    const written = writeReport(runId, events, values.out ?? join(process.cwd(), `colony-report-${runId}`));
    if (!written.ok) throw new CliFailure(written.error);
    process.stdout.write(`${written.report.html}\n`);
    for (const svg of written.report.svgs) process.stdout.write(`${svg}\n`);
    return 0;
  });
}
