import { compareLines } from '../../report/compare-table.js';
import { type RunFacts, runFacts } from '../../report/run-metrics.js';
import { glossaryLines } from '../../view/glossary.js';
import { parseFlags, UsageError } from '../args.js';
import { requireRun, withStore } from '../store-access.js';

export const COMPARE_HELP = `colony compare RUN RUN… [--json]

Puts runs side by side (from their event logs): wall-clock, cost, tokens (uncached input, cached
input, output), steps, CriticalSteps and parallelism (— when the run's summary has none), the view's
critical path, merges and the verify result. --json prints one JSON array of the same facts (token
fields named as in colony show --json: input is uncached input).

Reading the numbers:
${glossaryLines()}`;

export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    'compare',
  );
  if (values.help) {
    process.stdout.write(`${COMPARE_HELP}\n`);
    return 0;
  }
  if (positionals.length < 2)
    throw new UsageError('compare: give two or more runs (colony compare RUN RUN…)');
  return withStore(async (store) => {
    const facts: RunFacts[] = [];
    for (const runId of positionals) {
      await requireRun(store, runId);
      facts.push(runFacts(runId, await store.log.read(runId)).facts);
    }
    if (values.json) process.stdout.write(`${JSON.stringify(facts)}\n`);
    else process.stdout.write(`${compareLines(facts).join('\n')}\n`);
    return 0;
  });
}
