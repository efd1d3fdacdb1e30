import type { StoredEvent } from '../../core/events.js';
import { terminalJson } from '../../core/terminal-text.js';
import { runCatalog } from '../../run/run-catalog.js';
import { loadRunSpec } from '../../topology/execute-run.js';
import { exitCodeFor, summarise } from '../../view/summary.js';
import { numberFlag, onePositional, parseFlags, UsageError } from '../args.js';
import { runInForeground } from '../live-run.js';
import {
  NOTIFY_FLAG_HELP,
  notifyExtraSecrets,
  notifySettingsOrThrow,
  startRunNotifier,
} from '../run-notify.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';
import { formatSummary } from '../summary-text.js';

export const RESUME_HELP = `colony resume RUN [--json] [--notify URL]

Finishes a run whose process died (crash, kill -9, reboot). Completed model calls and tool calls are
replayed from the log, never repeated. Refuses a run that another live process is still executing.

${NOTIFY_FLAG_HELP.replace('Config: "notify" {url, secret?, events?, desktop?, timeoutMs?}.\n                       ', '')}
                       What the log says was notified already is not notified again.`;

/** Why a run with a live process cannot be resumed, and what to do instead. */
function liveRunRefusal(runId: string, error: string | undefined): string {
  return (
    error ??
    `run ${runId} is still being executed by a live process: nothing to resume. Follow it with ` +
      `colony logs ${runId} --follow, or end it with colony stop ${runId}`
  );
}

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      json: { type: 'boolean' },
      notify: { type: 'string' },
      // Set by a supervisor that resumes the run on its own (supervise/), for run.recovered.
      'recovered-by': { type: 'string' },
      'recovered-after': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'resume',
  );
  if (values.help) {
    process.stdout.write(`${RESUME_HELP}\n`);
    return 0;
  }
  const runId = onePositional(positionals, 'run', 'resume');
  const notify = notifySettingsOrThrow(values.notify, undefined, process.env, 'resume');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const events = await store.log.read(runId);
    const summary = summarise(runId, events);
    if (summary.status !== 'running') {
      if (values.json) process.stdout.write(`${terminalJson(summary)}\n`);
      else process.stdout.write(`run ${runId} already finished.\n${formatSummary(summary)}\n`);
      return exitCodeFor(summary.status);
    }
    const loaded = await loadRunSpec(store.log, runId);
    if (!loaded) throw new CliFailure(`run ${runId} has no run.started event; it cannot be resumed`);
    if (!loaded.ok) throw new CliFailure(`run ${runId} cannot be resumed: ${loaded.error}`);
    const { spec } = loaded;
    // Refuse before saying anything about resuming: a live process still executes this run.
    const probe = await store.tryLockRun(runId);
    if (!probe.ok) throw new CliFailure(liveRunRefusal(runId, probe.error));
    await probe.release();
    const catalog = runCatalog(spec, process.env);
    const provider = catalog.provider();
    if (!provider.ok) throw new UsageError(provider.error);
    const done = events.filter((e): e is StoredEvent<'model.response'> => e.kind === 'model.response').length;
    if (!values.json)
      process.stdout.write(`resuming run ${runId} (${done} model responses replayed from the log)\n`);
    const notifier = startRunNotifier(store, spec, notify, values.json ?? false);
    try {
      const result = await runInForeground({
        store,
        spec,
        provider: provider.provider,
        catalog,
        json: values.json ?? false,
        resumed: true,
        ...(values['recovered-by']
          ? {
              recovered: {
                by: values['recovered-by'],
                afterMs: numberFlag(values['recovered-after'], 'recovered-after', 'int') ?? 0,
              },
            }
          : {}),
        extraSecrets: notifyExtraSecrets(notify),
      });
      return exitCodeFor(result.status);
    } finally {
      await notifier?.finish();
    }
  });
}
