/**
 * The event kinds of the run log (public protocol: documented in docs/events.md).
 * Every fact of a run is one event; dashboards, metrics, resume and audit read them.
 */
import type { ModelTurn, Usage } from '../model/types.js';

export type RunStatus =
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'stopped'
  | 'budget_exhausted'
  | 'deadline_exceeded';

export type FinalRunStatus = Exclude<RunStatus, 'running'>;

/**
 * A status as shown to a user: a run still `running` in the log whose process is gone (nothing holds
 * its run lock, src/run/interrupted.ts) shows as `interrupted` until it is resumed or stopped. Never
 * stored.
 */
export type ShownRunStatus = RunStatus | 'interrupted';

export interface EventPayloads {
  'run.started': {
    topology: string;
    goal: string;
    repo: string;
    base: string;
    model: string;
    config: Record<string, unknown>;
    /**
     * Where the run's models are called (the run's model first, then profiles' own): base URL without
     * credentials (null for the scripted model) and the variable whose key is sent. Absent in runs
     * recorded before it existed.
     */
    endpoints?: RunEndpoint[];
  };
  'run.resumed': { pid: number; host: string };
  /**
   * A supervisor (`colony serve`, `colony worker`, `colony supervise`) resumed this run on its own:
   * its owner was gone (run lock free) and its log silent for `afterMs`. Logged by the process that
   * took the run lock, right after `run.resumed`, so once per recovery however many supervisors race.
   */
  'run.recovered': { by: string; afterMs: number };
  /** `colony stop RUN` (or the dashboard): the executing process ends the run as `stopped`. */
  'run.stop_requested': { by: string; reason: string };
  /** peers: a peer made no progress for `idleMs`; a direct message (`messageId`) nudges it. */
  'agent.nudged': { idleMs: number; messageId: number };
  /** peers: a nudged peer still made no progress; its claims are no longer renewed (they expire). */
  'agent.stalled': { idleMs: number };
  'run.finished': { status: FinalRunStatus; reason: string; resultBranch: string | null };
  /**
   * Fleet runs (`--workers`): a worker took the agent's session. The epoch goes up with every take
   * of the agent (a takeover, or a subagent's next task): a worker holding an older one is fenced.
   */
  'agent.placed': {
    worker: string;
    host: string;
    epoch: number;
    /** The DBOS workflow of the session: a peer's whole life, or one task of a subagent. */
    session: string;
    /** The same session was held before, by a worker that was lost or left. */
    takeover: boolean;
  };
  /** Fleet runs: a worker stopped heartbeating; `by` re-enqueued its sessions of this run. */
  'worker.lost': { worker: string; silentMs: number; reenqueued: number; by: string };
  'workspace.ready': { hub: string; worktree: string; branch: string; baseCommit: string };
  'setup.finished': { command: string; exitCode: number | null; output: string; durationMs: number };
  'agent.started': {
    profile: string;
    model: string;
    task: string;
    system: string;
    tools: string[];
    maxSteps: number;
  };
  /**
   * An external agent CLI driving an agent's loop (src/external-agent/): `started` (its pid), `session`
   * (the CLI's session id, for resuming it after a crash), `exited` (its exit code), `restarted`
   * (the n-th restart after a crash, resuming `sessionId` when it has one).
   */
  'agent.cli': {
    cli: string;
    event: 'started' | 'session' | 'exited' | 'restarted';
    restart?: number;
    pid?: number;
    sessionId?: string;
    exitCode?: number | null;
    detail?: string;
  };
  'agent.finished': {
    status: 'done' | 'failed' | 'stopped';
    /** answered | max_steps | budget_usd | budget_tokens | aborted | model_error | stop_condition */
    stopReason: string;
    reason: string;
    steps: number;
    finalText: string;
  };
  /** A model response, logged in full so a recovered agent replays it instead of calling again. */
  'model.response': {
    step: number;
    turn: ModelTurn;
    latencyMs: number;
    requestMessages: number;
  };
  'model.error': { step: number; kind: string; message: string; status?: number; attempts: number };
  'model.retry': { step: number; attempt: number; delayMs: number; kind: string; status?: number };
  'tool.started': { step: number; callId: string; name: string; arguments: string };
  /** A tool result, logged in full (capped) so replay never re-runs a completed tool call. */
  'tool.finished': {
    step: number;
    callId: string;
    name: string;
    isError: boolean;
    content: string;
    summary: string;
    durationMs: number;
    /**
     * Set on the result of a call that was in flight at a crash and had logged a `tool.intent`:
     * `applied` — its change was on disk already, so it was not made again and this is the result it
     * logged as intended; `changed` — the file was neither as before nor as after the change, so it
     * was not run (agent/in-flight.ts). Absent: the call ran.
     */
    recovered?: 'applied' | 'changed';
  };
  /**
   * A file tool (write, edit) is about to change `path` (relative to the agent's checkout): the sha256
   * of the file's bytes before (null: no file) and after the change, and the call's result once it is
   * made. Logged and committed before the file is written, so a resumed agent can tell whether a call
   * in flight at the crash took effect (agent/in-flight.ts).
   */
  'tool.intent': {
    step: number;
    callId: string;
    name: string;
    path: string;
    beforeHash: string | null;
    afterHash: string;
    result: string;
  };
  'limit.hit': { limit: string; value: number; used: number };
  compaction: { step: number; replacedMessages: number; summary: string; tokensBefore: number };
  'commit.created': { branch: string; commit: string; files: number };
  'verify.finished': {
    command: string;
    exitCode: number | null;
    passed: boolean;
    output: string;
    durationMs: number;
    /** peers: the hub main commit that was verified (a later main is verified again). */
    commit?: string;
  };
  'result.fetched': { branch: string; commit: string; repo: string };
  warning: { message: string };

  // Coordination (shared context, messages, claims) — see docs/coordination.md.
  'context.posted': {
    id: number;
    kind: ContextKind;
    summary: string;
    scope: string[] | null;
    hasDetail: boolean;
  };
  'message.sent': { id: number; to: string | null; channel: string | null; text: string };
  /** A direct message injected into the receiver's next model request (the interrupt). */
  'message.delivered': {
    ids: number[];
    via: 'interrupt' | 'message_read' | 'context_read';
    messages: Array<{ id: number; from: string; text: string }>;
  };
  'claim.granted': { claimId: number; scope: string; summary: string; leaseMs: number };
  'claim.conflict': { scope: string; holder: string; holderScope: string; heldMs: number };
  'claim.released': { claimId: number; scope: string; outcome: string };
  'claim.expired': { claimId: number; scope: string; holder: string; heldMs: number };
  /** Task board (docs/coordination.md § Task board); agent = the adder / claimant / holder. */
  'task.added': {
    id: number;
    key: string;
    title: string;
    scope: string;
    after: number[];
    hasDetail: boolean;
    /** Added by a person (the dashboard: `user`), not an agent: the event then has no agent. */
    by?: string;
  };
  /**
   * A person (`by`; the dashboard: `user`) edited an open task: `changed` lists what (`title`,
   * `detail`, `scope`, `order`); the task's title, scope and hasDetail after the edit; a move says
   * which task it now comes `before` or `after` on the board. No agent.
   */
  'task.edited': {
    id: number;
    by: string;
    changed: Array<'title' | 'detail' | 'scope' | 'order'>;
    title: string;
    scope: string;
    hasDetail: boolean;
    before?: number;
    after?: number;
  };
  /** claim_next granted the task's scope (the claim.granted event precedes it). */
  'task.claimed': { id: number; scope: string; claimId: number };
  /** The claim on the task was released with a done outcome (starts with "done" or "landed"). */
  'task.done': { id: number; scope: string; claimId: number; outcome: string };
  /** The claim claim_next granted ended otherwise: the task is back on the board. */
  'task.reopened': {
    id: number;
    scope: string;
    claimId: number;
    reason: 'released' | 'expired';
    outcome: string | null;
  };

  // Integration queue — see docs/integration.md.
  'merge.requested': { mr: number; branch: string; commit: string; note: string };
  /** `files`: the paths the landed commit changed (absent in logs from before 2026-12-04). */
  /** `verify`: the verify summary it landed with (absent in logs from before 2026-12-07). */
  'merge.landed': {
    mr: number;
    commit: string;
    mainBefore: string;
    batch: number[];
    files?: string[];
    verify?: string;
  };
  'merge.rejected': {
    mr: number;
    reason: 'conflict' | 'verify_failed' | 'nothing_to_merge' | 'error' | 'review_rejected';
    files: string[];
    output: string;
  };
  /** `commit`: the candidate (one commit on main); `verify`: the summary it passed with (absent before 2026-12-07). */
  'merge.awaiting_approval': { mr: number; commit: string; verify?: string };
  'merge.approved': { mr: number; by: string };
  /** A reviewer outside the queue's process (`colony reject`, the dashboard) turned a request down. */
  'merge.declined': { mr: number; by: string; reason: string };
  /**
   * A `merge.approved` / `merge.declined` (log `seq`, written by the event's `agent`, null = outside
   * any agent) that does not count: only the user, or an integrator who is not the author, decides.
   */
  'merge.approval_ignored': {
    mr: number;
    by: string;
    agent: string | null;
    decision: 'approve' | 'decline';
    reason: string;
    seq: number;
  };
  'workspace.synced': { branch: string; main: string; landedSince: number; conflicts: string[] };

  // Orchestrated topology — see docs/orchestrated.md. `task` ids are `task-<n>` in assignment order.
  /** The lead (event agent) defined a subagent (it starts on its first task). */
  'subagent.created': {
    name: string;
    profile: string;
    model: string;
    maxSteps: number;
    systemPrompt: string;
  };
  /** The lead (event agent) gave `agent` a task in its model response number `leadStep` (tool call `callId`). */
  'task.assigned': { task: string; agent: string; prompt: string; leadStep: number; callId: string };
  /** The subagent (event agent) begins a task; its conversation continues with `prompt` (replay too). */
  'task.started': { task: string; prompt: string; index: number; stepsBefore: number };
  /** A task ended: `steps` are the subagent's model responses in this task; `result` goes to the lead. */
  'task.finished': {
    task: string;
    agent: string;
    steps: number;
    status: 'done' | 'failed' | 'stopped' | 'refused';
    result: string;
  };
  /** The acceptance step: a failure routed back to the subagent owning the files. */
  'acceptance.finished': {
    round: number;
    passed: boolean;
    failures: Array<{ owner: string | null; files: string[] }>;
  };

  // Workflow programs — see docs/workflows.md. Step and stage ids are call paths ('review/explore_2').
  /** A stage (w.stage or a w.dag node) began; `parent` is the enclosing stage, `after` its DAG predecessors. */
  'stage.started': { stage: string; name: string; parent: string | null; after: string[] };
  'stage.finished': { stage: string; ok: boolean; durationMs: number; error?: string };
  /** An agent step (w.agent(...).run) began; its attempts run as agents named after the step. */
  'step.started': { step: string; stage: string | null; label: string; profile: string; taskHash: string };
  /** One attempt of a step ended (agent = the attempt's agent; `repair` when it was the output repair). */
  'step.attempt': {
    step: string;
    stage: string | null;
    attempt: number;
    agents: string[];
    ok: boolean;
    errorKind?: string;
    error?: string;
  };
  /** A step's final result, replayed on resume instead of running its agents again. */
  'step.finished': {
    step: string;
    stage: string | null;
    ok: boolean;
    attempts: number;
    value?: unknown;
    text?: string;
    errorKind?: string;
    error?: string;
    /**
     * The step did not run: an earlier program of the same run (a lead's earlier run_workflow call)
     * finished this step (same path in its program, same task hash) and its result is re-used.
     */
    reusedFrom?: string;
  };
  /** A sync point (w.sync): a command run on a clean checkout of hub main. */
  'sync.finished': {
    step: string;
    stage: string | null;
    point: string;
    command: string;
    exitCode: number | null;
    passed: boolean;
    output: string;
    durationMs: number;
  };
  /** `program`: a program the orchestrated lead wrote (run_workflow), whose step ids start with it. */
  /**
   * A `w.dag`'s plan, logged before any of its nodes starts (src/workflow/critical-path.ts): `dag` is
   * its first node's stage id, `stage` the enclosing stage; per node its `weight` (model steps
   * recorded by an earlier run of the same program, else 1) and `rank` (longest chain from it).
   */
  'workflow.planned': {
    dag: string;
    stage: string | null;
    nodes: Array<{
      stage: string;
      name: string;
      after: string[];
      weight: number;
      recorded: boolean;
      rank: number;
    }>;
    criticalPath: string[];
    criticalSteps: number;
    program?: string;
  };
  'workflow.finished': { ok: boolean; value?: unknown; error?: string; program?: string };

  // Publishing a finished run (src/forge/, docs/forges.md): logged after run.finished, they do not
  // move the run's clock (view/run-state.ts).
  /** The branches pushed to `remote` (no credentials); `created: false` were there at that commit. */
  'publish.pushed': {
    remote: string;
    forge: string | null;
    branches: Array<{ branch: string; commit: string; created: boolean }>;
  };
  /** A pull/merge request opened for a pushed branch (`mr`: the landed merge request it carries). */
  'publish.pr_opened': {
    forge: string;
    number: number;
    url: string;
    branch: string;
    base: string;
    draft: boolean;
    mr: number | null;
    /** Open already from an earlier publish of the same commit: found, not opened again. */
    existing: boolean;
    warnings: string[];
  };
  'publish.failed': { step: 'push' | 'pull_request'; remote: string; branch: string | null; error: string };

  // Notifications to the person running the run (src/notify/, docs/notify.md): written by the
  // process that follows the run's log, never by the run itself; they do not move the run's clock.
  /**
   * A notification was delivered: `kind` (`approval_needed`, `agent_stalled`, `budget_warning`,
   * `limit_hit`, `run_finished`) to `target` (`webhook:<host>` — never the URL's path or query, which
   * may hold a token — or `desktop`) at its `attempt`-th try. `occurrence` names what it was about
   * (one notification per occurrence and target: a resumed run reads these and does not repeat them);
   * `seq` is the event that caused it.
   */
  'notify.sent': { kind: string; target: string; attempt: number; occurrence: string; seq: number };
  /** A notification given up after `attempts` tries; `error` is the last one's (scrubbed of the URL). */
  'notify.failed': {
    kind: string;
    target: string;
    error: string;
    attempts: number;
    occurrence: string;
    seq: number;
  };
}

/** One model endpoint a run calls (run.started). */
export interface RunEndpoint {
  model: string;
  /** The profile (or peer: `peer-2`) naming this model; null for the run's own model. */
  profile: string | null;
  baseUrl: string | null;
  keyEnv: string | null;
}

export type ContextKind = 'OBSERVED' | 'FACT' | 'FAIL' | 'CLAIM' | 'PATCH';

export type EventKind = keyof EventPayloads;

interface EventFields<K extends EventKind> {
  runId: string;
  /** Agent name, or null for run-level events. */
  agent: string | null;
  kind: K;
  data: EventPayloads[K];
}

/**
 * An event to append. Without a kind it is the union of every kind's event (a discriminated union
 * on `kind`), so checking `event.kind` narrows `event.data`.
 */
export type EventInput<K extends EventKind = EventKind> = K extends EventKind ? EventFields<K> : never;

/**
 * The event of one kind, built from its parts. The one place a generic kind meets the union: for a
 * type parameter K, TypeScript cannot see that `{kind: K, data: EventPayloads[K]}` is EventInput<K>.
 */
export function eventOf<K extends EventKind>(
  runId: string,
  agent: string | null,
  kind: K,
  data: EventPayloads[K],
): EventInput<K> {
  return { runId, agent, kind, data } as EventInput<K>;
}

/** An event as stored: a discriminated union on `kind` like EventInput, plus its place in the chain. */
export type StoredEvent<K extends EventKind = EventKind> = K extends EventKind
  ? EventFields<K> & {
      seq: number;
      /** ISO timestamp assigned by the database. */
      ts: string;
      hash: string;
      prevHash: string;
    }
  : never;

export type UsageTotals = { [K in keyof Usage]: number };

/** Whether a stored event is of kind `kind` (narrows it, e.g. for `Array.find`/`filter`). */
export function isKind<K extends EventKind>(kind: K): (event: StoredEvent) => event is StoredEvent<K> {
  return (event): event is StoredEvent<K> => event.kind === kind;
}
