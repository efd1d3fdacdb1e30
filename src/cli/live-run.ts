/**
 * Running a run in the foreground (run, resume, demo): live output, Ctrl-C to stop gracefully, and
 * the summary at the end (`--json`: one event per line, the summary last). On a terminal the output
 * is a progress block (agents by state, steps, merges, cost, elapsed) redrawn in place a few times a
 * second, with notable events printed above it; piped, it is one plain line per event. Whatever of
 * it an agent wrote is printed with its control characters made visible (core/terminal-text.ts);
 * the only escape sequences on the terminal are the block's own cursor moves.
 */
import type { StoredEvent } from '../core/events.js';
import { terminalJson, terminalLine } from '../core/terminal-text.js';
import type { ModelCatalog } from '../model/catalog.js';
import type { Provider } from '../model/types.js';
import type { RunSlotSettings } from '../run/run-slots-run.js';
import type { RunSpec } from '../run/run-spec.js';
import type { Store } from '../store/index.js';
import { executeRun } from '../topology/execute-run.js';
import { progressLines } from '../view/progress-lines.js';
import { applyEvent, emptyRunState } from '../view/run-state.js';
import { toRunView } from '../view/run-view.js';
import type { RunSummary } from '../view/summary.js';
import { formatEvent } from './event-line.js';
import { CliFailure } from './store-access.js';
import { formatSummary } from './summary-text.js';
import { tailWorkerEvents, type WorkerEventTail } from './worker-events.js';

export interface LiveRunOptions {
  store: Store;
  spec: RunSpec;
  provider: Provider;
  /** The models profiles may name (default: from the spec). */
  catalog?: ModelCatalog;
  json: boolean;
  resumed: boolean;
  /** Resumed by a supervisor on its own (run.recovered). */
  recovered?: { by: string; afterMs: number };
  extraSecrets?: string[];
  /** Per-server run slots (limit, wait or fail); defaults from the environment. */
  runSlots?: RunSlotSettings;
  /** Print nothing but the summary (tests and the demo print their own framing). */
  quietEvents?: boolean;
}

export async function runInForeground(options: LiveRunOptions): Promise<RunSummary> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    // Said as it is: a graceful stop finishes the run (resume then has nothing to do); only a second
    // Ctrl-C leaves it unfinished, for `colony resume` to finish.
    process.stderr.write(
      `\nstopping the run: it ends as stopped, keeping what landed (Ctrl-C again to quit at once and leave it unfinished; colony resume ${options.spec.runId} then finishes it)…\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const progress =
    process.stdout.isTTY && !options.json && !options.quietEvents
      ? startProgress(options.store, options.spec.runId)
      : null;
  // An agent's event can reach both the observed log and the workers' tail (the owner appends some
  // for agents on workers): shown once, by its sequence number.
  const shownAgentEvents = new Set<number>();
  const onEvent = (event: StoredEvent) => {
    if (event.agent) {
      if (shownAgentEvents.has(event.seq)) return;
      shownAgentEvents.add(event.seq);
    }
    if (options.json) process.stdout.write(`${terminalJson(event)}\n`);
    else if (progress) progress.note(event);
    else if (!options.quietEvents) {
      const line = formatEvent(event);
      if (line) process.stdout.write(`${line}\n`);
    }
  };
  // A fleet run's agents on workers log from their own processes: their lines come from the log.
  let workerEvents: WorkerEventTail | null = null;
  try {
    if (options.spec.fleet)
      workerEvents = await tailWorkerEvents(options.store, options.spec.runId, onEvent, {
        skipHistory: options.resumed,
      });
    // A new run's first events (run.started) were written before execution began: show them too.
    if (!options.resumed)
      for (const event of await options.store.log.read(options.spec.runId)) onEvent(event);
    const result = await executeRun({
      store: options.store,
      spec: options.spec,
      provider: options.provider,
      ...(options.catalog ? { catalog: options.catalog } : {}),
      env: process.env,
      extraSecrets: options.extraSecrets,
      signal: controller.signal,
      onEvent,
      resumed: options.resumed,
      ...(options.recovered ? { recovered: options.recovered } : {}),
      runSlots: options.runSlots,
    });
    await workerEvents?.stop();
    await progress?.stop();
    if (!result.ok) throw new CliFailure(result.error);
    if (options.json) process.stdout.write(`${terminalJson(result.summary)}\n`);
    else process.stdout.write(`\n${formatSummary(result.summary)}\n`);
    return result.summary;
  } finally {
    await workerEvents?.stop();
    await progress?.stop();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

/** Events worth a line above the progress block (the rest is summarised in the block). */
const NOTABLE = new Set([
  'run.started',
  'run.resumed',
  'run.recovered',
  'run.finished',
  'agent.finished',
  // Fleet runs: a lost worker is why its agents pause until another worker takes them over.
  'worker.lost',
  'model.error',
  'limit.hit',
  'merge.landed',
  'merge.rejected',
  'merge.awaiting_approval',
  'verify.finished',
  'result.fetched',
  'warning',
]);

const REDRAW_MS = 250;

/**
 * The in-place progress block. It reads the run's log itself (every event, including those of the
 * coordination layer that the run's onEvent does not carry) a few times a second.
 */
function startProgress(
  store: Store,
  runId: string,
): { note(event: StoredEvent): void; stop(): Promise<void> } {
  const state = emptyRunState();
  const out = process.stdout;
  let drawn = 0;
  let pending: string[] = [];
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();
  const draw = (final: boolean) => {
    let text = drawn > 0 ? `\x1b[${drawn}A\x1b[J` : '';
    for (const line of pending) text += `${line}\n`;
    pending = [];
    const columns = out.columns || 100;
    // Agent names, claims and last actions are the agents': one visible line each, cut to the width
    // again (a shown control is wider than the character), so the count of lines to redraw holds.
    const lines = progressLines(toRunView(state, Date.now()), { columns }).map((line) => {
      const shown = terminalLine(line);
      return shown.length > columns ? `${shown.slice(0, columns - 1)}…` : shown;
    });
    text += `${lines.join('\n')}\n`;
    drawn = final ? 0 : lines.length;
    out.write(text);
  };
  const tick = async () => {
    try {
      for (const event of await store.log.read(runId, { afterSeq: state.lastSeq })) applyEvent(state, event);
    } catch {
      // A failed read only delays the next redraw; the run itself reports real failures.
    }
    if (!stopped) draw(false);
  };
  const timer = setInterval(() => {
    busy = busy.then(tick);
  }, REDRAW_MS);
  return {
    note(event) {
      if (!NOTABLE.has(event.kind)) return;
      const line = formatEvent(event);
      if (line) pending.push(line);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await busy;
      for (const event of await store.log.read(runId, { afterSeq: state.lastSeq }).catch(() => []))
        applyEvent(state, event);
      draw(true);
    },
  };
}
