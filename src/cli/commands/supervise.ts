import { parseDurationMs } from '../../core/duration.js';
import { parseFlags, UsageError } from '../args.js';
import { DATABASE_WAIT_HELP, databaseWaitFlag } from '../database-wait-flag.js';
import { withStore } from '../store-access.js';
import { autoResumeOff, startSupervision } from '../supervision.js';

export const SUPERVISE_HELP = `colony supervise [--interval 5s] [--grace 5s] [--json] [--wait-for-database D]

Resumes, on its own, every run on this machine's store whose process died (kill -9, crash, reboot),
until Ctrl-C — for machines that run neither colony serve nor colony worker, which do the same.
A run is resumed once its log has been silent for 5 s, by whichever supervisor takes its run lock
first (run.recovered in its log says which); never a run someone asked to stop, one started with
--no-auto-resume, one silent for over 24 h, or one whose repository is not on this machine. The
resumed run is a \`colony resume RUN\` process of its own (output: $COLONY_HOME/recovered/RUN.log)
that goes on if this command stops. Model keys come from this command's environment.
See docs/recovery.md.

  --interval DURATION  between looks at the running runs (default 5s)
  --grace DURATION     how long a run's log must be silent, its process gone, before it is resumed
                       (default 5s)
  --json               one JSON object per decision
${DATABASE_WAIT_HELP}`;

export async function superviseCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      interval: { type: 'string' },
      grace: { type: 'string' },
      json: { type: 'boolean' },
      'wait-for-database': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'supervise',
  );
  if (values.help) {
    process.stdout.write(`${SUPERVISE_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`supervise: unexpected argument "${positionals[0]}"`);
  const intervalMs = values.interval === undefined ? undefined : parseDurationMs(values.interval);
  if (intervalMs === null || (intervalMs !== undefined && intervalMs < 100))
    throw new UsageError(
      `supervise: --interval must be a duration of at least 100ms, like 5s (got "${values.interval}")`,
    );
  const graceMs = values.grace === undefined ? undefined : parseDurationMs(values.grace);
  if (graceMs === null)
    throw new UsageError(`supervise: --grace must be a duration like 5s (got "${values.grace}")`);
  if (autoResumeOff(process.env))
    throw new UsageError('supervise: COLONY_AUTO_RESUME is off in this environment; unset it to supervise');
  const waitMs = databaseWaitFlag(values['wait-for-database'], 'supervise');
  return withStore(
    async (store) => {
      const stopRequested = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      const supervisor = startSupervision({
        store,
        role: 'supervise',
        env: process.env,
        ...(intervalMs !== undefined ? { intervalMs } : {}),
        ...(graceMs !== undefined ? { graceMs } : {}),
        json: values.json ?? false,
        write: (line) => process.stdout.write(`${line}\n`),
      });
      process.stderr.write(`colony supervise: watching the runs of ${store.home} (Ctrl-C to stop)\n`);
      await stopRequested;
      await supervisor.stop();
      return 0;
    },
    { waitMs },
  );
}
