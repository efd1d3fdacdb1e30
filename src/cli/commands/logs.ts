import { setTimeout as sleep } from 'node:timers/promises';
import { terminalJson } from '../../core/terminal-text.js';
import { interruptedReason, isRunInterrupted } from '../../run/interrupted.js';
import { onePositional, parseFlags } from '../args.js';
import { formatEvent } from '../event-line.js';
import { requireRun, withStore } from '../store-access.js';

export const LOGS_HELP = `colony logs RUN [--follow] [--json]

Prints the run's events; --follow keeps printing new ones until the run finishes, or until its process
is found gone (killed, crashed: the run is interrupted and colony resume RUN finishes it). Read-only.`;

const FOLLOW_POLL_MS = 300;

export async function logsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      follow: { type: 'boolean', short: 'f' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'logs',
  );
  if (values.help) {
    process.stdout.write(`${LOGS_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'logs');
  return withStore(async (store) => {
    await requireRun(store, runId);
    let afterSeq = 0;
    for (;;) {
      const events = await store.log.read(runId, { afterSeq });
      let finished = false;
      for (const event of events) {
        afterSeq = event.seq;
        if (event.kind === 'run.finished') finished = true;
        if (values.json) process.stdout.write(`${terminalJson(event)}\n`);
        else {
          const line = formatEvent(event);
          if (line) process.stdout.write(`${line}\n`);
        }
      }
      if (!values.follow || finished) return 0;
      // Nothing new and nobody executes the run: it would never finish by itself.
      if (events.length === 0 && (await isRunInterrupted(store, runId))) {
        const note = `run ${runId} was interrupted: ${interruptedReason(runId)}\n`;
        if (values.json) process.stderr.write(note);
        else process.stdout.write(note);
        return 0;
      }
      await sleep(FOLLOW_POLL_MS);
    }
  });
}
