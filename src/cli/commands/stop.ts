import { requestRunStop } from '../../run/stop.js';
import { onePositional, parseFlags } from '../args.js';
import { CliFailure, withStore } from '../store-access.js';

export const STOP_HELP = `colony stop RUN [--reason TEXT]

Stops a run. The process executing it ends it within about a second as "stopped": agents stop
before their next step, claims are released, what landed on hub main is fetched as colony/<run-id>.
A run whose process died is marked stopped at once (it will not be resumed).`;

export async function stopCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { reason: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'stop',
  );
  if (values.help) {
    process.stdout.write(`${STOP_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'stop');
  return withStore(async (store) => {
    const result = await requestRunStop(store, runId, 'cli', values.reason ?? '');
    if (!result.ok) throw new CliFailure(result.error);
    const text = {
      requested: `asked run ${runId} to stop; its process ends it shortly (colony show ${runId})`,
      finished: `run ${runId} had no live process; marked stopped`,
      already_finished: `run ${runId} already finished (${result.status})`,
    }[result.mode];
    process.stdout.write(`${text}\n`);
    return 0;
  });
}
