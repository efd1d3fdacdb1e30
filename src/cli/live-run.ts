/**
 * Running a run in the foreground (run, resume, demo): live output, Ctrl-C to stop gracefully, and
 * the summary at the end (`--json`: one event per line, the summary last).
 */
import type { StoredEvent } from '../core/events.js';
import type { Provider } from '../model/types.js';
import type { Store } from '../store/index.js';
import { executeRun } from '../swarm/execute-run.js';
import type { RunSpec } from '../swarm/run-spec.js';
import type { RunSummary } from '../swarm/summary.js';
import { formatEvent } from './event-line.js';
import { CliFailure } from './store-access.js';
import { formatSummary } from './summary-text.js';

export interface LiveRunOptions {
  store: Store;
  spec: RunSpec;
  provider: Provider;
  json: boolean;
  resumed: boolean;
  extraSecrets?: string[];
  /** Print nothing but the summary (tests and the demo print their own framing). */
  quietEvents?: boolean;
}

export async function runInForeground(options: LiveRunOptions): Promise<RunSummary> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write(
      '\nstopping the run (Ctrl-C again to quit at once; `colony resume` can finish it later)…\n',
    );
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const onEvent = (event: StoredEvent) => {
    if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else if (!options.quietEvents) {
      const line = formatEvent(event);
      if (line) process.stdout.write(`${line}\n`);
    }
  };
  try {
    // A new run's first events (run.started) were written before execution began: show them too.
    if (!options.resumed)
      for (const event of await options.store.log.read(options.spec.runId)) onEvent(event);
    const result = await executeRun({
      store: options.store,
      spec: options.spec,
      provider: options.provider,
      env: process.env,
      extraSecrets: options.extraSecrets,
      signal: controller.signal,
      onEvent,
      resumed: options.resumed,
    });
    if (!result.ok) throw new CliFailure(result.error);
    if (options.json) process.stdout.write(`${JSON.stringify(result.summary)}\n`);
    else process.stdout.write(`\n${formatSummary(result.summary)}\n`);
    return result.summary;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}
