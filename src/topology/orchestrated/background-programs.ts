/**
 * The lead's workflow runs (issue 32, "Background runs"): `run_workflow {program, background: true}`
 * starts a program and returns its handle at once; the lead keeps working, asks `workflow_status
 * {id, wait?}` and gets a direct message (from `colony`, through the direct-message injector every
 * agent has) when the program ends. At most `maxOpen` runs (background ones and a foreground one in
 * flight) are open at once per lead; one more is refused with `workflow_limit_error`.
 *
 * Durable like a foreground program: a background program's ids start with its own
 * `wf<lead step>-<call id>`, so after a crash `load` finds every background run the lead started in
 * its logged conversation (a run_workflow call with `background: true` whose handle was logged) and
 * runs it again: its logged steps replay, the rest run; a program that had ended replays its logged
 * end at once, and its end message is sent if the log has none. A call whose handle was not logged is
 * re-run by the lead's loop itself (same id). State here is only what the log can rebuild.
 */
import { isKind, type StoredEvent } from '../../core/events.js';
import type { EventLog } from '../../store/types.js';
import type { ToolResult } from '../../tool/types.js';
import type { WorkflowOutcome } from '../../workflow/engine.js';
import { LEAD_AGENT } from './prompt.js';
import {
  checkLeadProgram,
  DEFAULT_MAX_OPEN_WORKFLOWS,
  outcomeBody,
  outcomeStatus,
  programId,
} from './run-workflow-tool.js';

export { DEFAULT_MAX_OPEN_WORKFLOWS };

/** The longest a `workflow_status {wait: true}` waits before it answers "still running". */
export const DEFAULT_STATUS_WAIT_MS = 10 * 60_000;
/** The program's result in its end message is cut here (workflow_status gives up to 20,000). */
export const NOTICE_RESULT_CHARS = 4_000;
/** Steps listed by workflow_status (the counts cover all). */
export const STATUS_STEP_LINES = 40;

export interface LeadProgramsOptions {
  runId: string;
  log: EventLog;
  signal: AbortSignal;
  /** Open runs at most (default 10). */
  maxOpen?: number;
  /** Runs a checked program (JavaScript) under its id on the run's workflow engine. */
  run(js: string, id: string): Promise<WorkflowOutcome>;
  /** Sends the lead a direct message. */
  notify(text: string): Promise<void>;
  /** Logs a limit hit (the refused run). */
  limitHit(value: number, used: number): Promise<void>;
}

interface ProgramRun {
  id: string;
  background: boolean;
  /** Set when it ended (a stopped run's program ends as `stopped` and is not done: resume runs it). */
  outcome: WorkflowOutcome | null;
  /** Settles once it ended and, for a background run, its end message was sent. */
  ended: Promise<void>;
}

export class LeadPrograms {
  private readonly runs = new Map<string, ProgramRun>();
  /** Background runs whose end message is in the log (found at load). */
  private readonly notified = new Set<string>();
  readonly maxOpen: number;

  constructor(private readonly options: LeadProgramsOptions) {
    this.maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN_WORKFLOWS;
  }

  /** Runs not yet ended (background and foreground). */
  openCount(): number {
    let open = 0;
    for (const run of this.runs.values()) if (!run.outcome) open++;
    return open;
  }

  /**
   * After a crash: starts again every background run the lead's logged conversation started (its
   * handle logged). `history` is the lead's events.
   */
  async load(history: readonly StoredEvent[]): Promise<void> {
    const sent = await this.options.log.read(this.options.runId, { kinds: ['message.sent'] });
    for (const event of sent) {
      const match = event.agent === NOTICE_SENDER ? /^\[workflow ([^\]:]+): /.exec(event.data.text) : null;
      if (match?.[1] && event.data.to === LEAD_AGENT) this.notified.add(match[1]);
    }
    const calls = new Map<string, string>();
    for (const event of history.filter(isKind('model.response'))) {
      for (const call of event.data.turn.toolCalls) {
        if (call.name !== 'run_workflow') continue;
        const args = parseArgs(call.arguments);
        if (args?.background === true && typeof args.program === 'string')
          calls.set(`${event.data.step}/${call.id}`, args.program);
      }
    }
    for (const event of history.filter(isKind('tool.finished'))) {
      const d = event.data;
      const source = calls.get(`${d.step}/${d.callId}`);
      if (d.name !== 'run_workflow' || d.isError || source === undefined) continue;
      const id = programId(d.step, d.callId);
      if (this.runs.has(id)) continue;
      const checked = await checkLeadProgram(source);
      // It checked before; a failure now (another compiler?) must not lose the run silently.
      if (!checked.ok) {
        this.settle(
          id,
          true,
          Promise.resolve({ ok: false, error: checked.result.content, aborted: false, replayed: false }),
        );
        continue;
      }
      this.settle(id, true, this.options.run(checked.js, id));
    }
  }

  /** run_workflow {background: true}: checks the program, starts it, returns its handle. */
  async startBackground(id: string, source: string): Promise<ToolResult> {
    const known = this.runs.get(id);
    if (known) return handle(known);
    const refused = await this.refuseOverLimit();
    if (refused) return refused;
    const checked = await checkLeadProgram(source);
    if (!checked.ok) return checked.result;
    // Counted again after the check: several calls of one response may wait for it together.
    const late = await this.refuseOverLimit();
    if (late) return late;
    return handle(this.settle(id, true, this.options.run(checked.js, id)));
  }

  /** run_workflow without background: counted as an open run while it runs. */
  async runForeground(id: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
    const refused = await this.refuseOverLimit();
    if (refused) return refused;
    let outcome: WorkflowOutcome = { ok: true, value: null, replayed: false };
    const entry: ProgramRun = { id, background: false, outcome: null, ended: Promise.resolve() };
    this.runs.set(id, entry);
    try {
      const result = await run();
      outcome = result.isError
        ? { ok: false, error: result.content, aborted: this.options.signal.aborted, replayed: false }
        : outcome;
      return result;
    } finally {
      entry.outcome = outcome;
    }
  }

  /**
   * workflow_status: the run's status, its steps so far and, once it ended, its result. `waitMs`:
   * first wait up to that long for it to end (the run stopping ends the wait too).
   */
  async status(id: string, waitMs = 0): Promise<ToolResult> {
    const run = this.runs.get(id);
    if (!run) {
      const ids = [...this.runs.values()].filter((r) => r.background).map((r) => r.id);
      return {
        isError: true,
        content: `workflow_status: no workflow run "${id}" of yours${ids.length > 0 ? ` (yours: ${ids.join(', ')})` : ''}`,
      };
    }
    let waited = false;
    if (waitMs > 0 && !run.outcome) {
      waited = true;
      await this.waitFor([run.ended], waitMs);
    }
    const progress = await this.progress(id);
    const outcome = run.outcome;
    const status = outcome ? outcomeStatus(outcome) : 'running';
    const lines = [`[workflow ${id}: ${status}] ${progress.summary}`, ...progress.lines];
    if (outcome) lines.push(outcome.ok ? 'result:' : 'error:', outcomeBody(outcome));
    else if (waited)
      lines.push('(still running when the wait ended; ask again, or wait for its end message)');
    return { isError: outcome !== null && !outcome.ok, content: lines.join('\n') };
  }

  /**
   * Waits until no background run is open (each one's end message sent), or the run stops. The
   * lead's loop calls it before the lead finishes (AgentDeps.beforeFinish), the run before its end.
   */
  async settleAll(): Promise<void> {
    for (;;) {
      const open = [...this.runs.values()].filter((r) => !r.outcome).map((r) => r.ended);
      if (open.length === 0 || this.options.signal.aborted) return;
      await this.waitFor(open, null);
    }
  }

  /** Registers a run and what happens when it ends (its end message). */
  private settle(id: string, background: boolean, running: Promise<WorkflowOutcome>): ProgramRun {
    const entry: ProgramRun = { id, background, outcome: null, ended: Promise.resolve() };
    entry.ended = running
      .catch(
        (err: unknown): WorkflowOutcome => ({
          ok: false,
          error: err instanceof Error ? err.message : String(err),
          aborted: false,
          replayed: false,
        }),
      )
      .then(async (outcome) => {
        // Stopped: nothing of it ended in the log, so `colony resume` runs it on; no message now.
        const stopped = !outcome.ok && outcome.aborted;
        if (stopped || this.notified.has(id)) {
          entry.outcome = outcome;
          return;
        }
        try {
          await this.options.notify(await this.notice(id, outcome));
          this.notified.add(id);
        } catch {
          // The message could not be sent: workflow_status still answers; a resume sends it again.
        }
        entry.outcome = outcome;
      });
    this.runs.set(id, entry);
    return entry;
  }

  private async notice(id: string, outcome: WorkflowOutcome): Promise<string> {
    const progress = await this.progress(id);
    const body = outcomeBody(outcome, NOTICE_RESULT_CHARS);
    const cut = body.length > NOTICE_RESULT_CHARS ? `\n(workflow_status {"id": "${id}"} shows more)` : '';
    return [
      `[workflow ${id}: ${outcomeStatus(outcome)}] your background workflow run ended; ${progress.summary}`,
      outcome.ok ? 'result:' : 'error:',
      `${body}${cut}`,
    ].join('\n');
  }

  private async refuseOverLimit(): Promise<ToolResult | null> {
    const open = this.openCount();
    if (open < this.maxOpen) return null;
    await this.options.limitHit(this.maxOpen, open);
    const ids = [...this.runs.values()].filter((r) => !r.outcome).map((r) => r.id);
    return {
      isError: true,
      content:
        `workflow_limit_error: ${open} workflow run(s) of yours are still open (${ids.join(', ')}; at most ${this.maxOpen}). ` +
        'Nothing ran. Wait for one to end (workflow_status {id, wait: true}, or its end message), then call run_workflow again.',
    };
  }

  /** Steps of the program so far, from the log (ids under `<id>/`). */
  private async progress(id: string): Promise<{ summary: string; lines: string[] }> {
    const events = await this.options.log.read(this.options.runId, {
      kinds: ['step.started', 'step.finished'],
    });
    const prefix = `${id}/`;
    const steps = new Map<string, { label: string; state: 'running' | 'done' | 'failed' }>();
    for (const event of events) {
      const step = event.data.step;
      if (!step.startsWith(prefix)) continue;
      if (event.kind === 'step.started') steps.set(step, { label: event.data.label, state: 'running' });
      else if (event.kind === 'step.finished') {
        const known = steps.get(step);
        steps.set(step, { label: known?.label ?? step, state: event.data.ok ? 'done' : 'failed' });
      }
    }
    const count = (state: string) => [...steps.values()].filter((s) => s.state === state).length;
    const summary = `${steps.size} step(s): ${count('done')} done, ${count('failed')} failed, ${count('running')} running`;
    const lines = [...steps.entries()]
      .slice(0, STATUS_STEP_LINES)
      .map(([step, s]) => `- ${step.slice(prefix.length)}: ${s.state}`);
    if (steps.size > STATUS_STEP_LINES) lines.push(`… ${steps.size - STATUS_STEP_LINES} more`);
    return { summary, lines };
  }

  /** Until one of `ends` settles, `ms` pass (null: no bound) or the run stops. */
  private waitFor(ends: Promise<void>[], ms: number | null): Promise<void> {
    const signal = this.options.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = ms === null ? null : setTimeout(done, ms);
      function done() {
        if (timer) clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
      Promise.race(ends).then(done, done);
    });
  }
}

/** Who sends a background run's end message (a reserved name: no agent can pose as it). */
export const NOTICE_SENDER = 'colony';

function handle(run: ProgramRun): ToolResult {
  const status = run.outcome ? outcomeStatus(run.outcome) : 'running';
  return {
    isError: false,
    content: JSON.stringify({
      id: run.id,
      status,
      note: `runs in the background: workflow_status {"id": "${run.id}"} shows its progress; you get a direct message when it ends`,
    }),
  };
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
