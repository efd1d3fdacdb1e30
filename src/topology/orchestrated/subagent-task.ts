/**
 * One task of a subagent: its agent loop continues from its log with the task as the next message.
 * The same code runs it in the run's own process (team.ts) and on a fleet worker
 * (src/worker/subagent-host.ts); what differs is only what is plugged in — the workspace its tools
 * work on and the integration queue its merge tools reach (the queue itself, or its HTTP front).
 */

import type { Budget } from '../../agent/budget.js';
import type { AgentOutcome } from '../../agent/loop.js';
import {
  type CoordinationCapability,
  coordinationOf,
  type ProfileDefinition,
  profileWrites,
  type ResolvedProfile,
  resolveProfile,
  TEAM_COORDINATION,
  toolsForProfile,
} from '../../agent/profiles.js';
import type { BashToolOptions } from '../../agent/tools/index.js';
import type { AgentCoordination } from '../../coord/index.js';
import { type EventKind, type EventPayloads, eventOf, isKind, type StoredEvent } from '../../core/events.js';
import type { Scrubber } from '../../core/secrets.js';
import type { Result } from '../../lang/result.js';
import type { Message, Provider } from '../../model/types.js';
import type { EventLog } from '../../store/types.js';
import type { Tool } from '../../tool/types.js';
import {
  createMergeRequestTool,
  createSyncTool,
  type IntegrationPort,
} from '../../workspace/integration/tools.js';
import type { AgentWorkspace } from '../../workspace/run-workspace.js';
import { type AgentSessionStart, loopDriver, openAgentSession } from '../session/agent-session.js';
import { type AgentDriver, driveAgent } from '../session/drive-agent.js';
import { LEAD_AGENT } from './prompt.js';
import type { SubagentCli } from './subagent-cli.js';

export interface Subagent {
  name: string;
  profile: ResolvedProfile;
  model: string;
  maxSteps: number;
  systemPrompt: string;
}

export interface SubagentTaskDeps {
  runId: string;
  log: EventLog;
  scrubber: Scrubber;
  budget: Budget;
  signal?: AbortSignal;
  stream: boolean;
  /** The provider for a model id (the run's own model when undefined). */
  providerFor(model: string | undefined): { ok: true; provider: Provider } | { ok: false; error: string };
  injectorFor(agent: string): () => Promise<Message[]>;
  /** Subagents whose loop an external CLI drives (subagent-cli.ts); absent: Colony's loop for all. */
  cli?: SubagentCli;
  /**
   * The team's shared context and claims (`subagentCoordination`): each task gets its subagent's
   * coordination tools, its claims are renewed while it runs and released when it ends. Absent: none
   * (the subagent's prompt then says nothing of them either: Team.createSubagent).
   */
  coordination?: AgentCoordination;
}

export interface SubagentToolDeps {
  runId: string;
  log: EventLog;
  bash: BashToolOptions;
  /** The hub (or a worker's mirror of it) the sync tool reads main from. */
  hubPath: string;
  forAgent(agent: string): Promise<Result<AgentWorkspace>>;
  /** The integration queue as a writer's merge tools reach it. */
  queueFor(agent: string): IntegrationPort;
  /** Wraps a writer's tools (a fleet worker pushes its work in progress after each mutating call). */
  wrapTools?: (agent: string, tools: Tool[]) => Tool[];
}

/**
 * The coordination a subagent gets: its profile's, else shared context and claims (a subagent's FAIL
 * entry reaches its siblings; two writers do not change the same file unawares).
 */
export function subagentCoordination(subagent: Pick<Subagent, 'profile'>): CoordinationCapability[] {
  return coordinationOf(subagent.profile, TEAM_COORDINATION);
}

/** A subagent as the lead defined it (its `subagent.created` event). */
export function subagentFrom(
  created: StoredEvent<'subagent.created'>['data'],
  profiles: Readonly<Record<string, ProfileDefinition>>,
): Result<Subagent> {
  const profile = resolveProfile(created.profile, profiles);
  if (!profile.ok) return profile;
  return {
    ok: true,
    value: {
      name: created.name,
      profile: profile.profile,
      model: created.model,
      maxSteps: created.maxSteps,
      systemPrompt: created.systemPrompt,
    },
  };
}

/**
 * A writer's tools are its own (its worktree, its merge requests); read-only tools keep no state and
 * work on the lead's checkout (a worktree each would cost a git checkout per subagent, which
 * dominates a wide fan-out).
 */
export async function buildSubagentTools(
  deps: SubagentToolDeps,
  subagent: Subagent,
  options: { cli?: boolean } = {},
): Promise<{ ok: true; tools: Tool[]; worktree: string } | { ok: false; error: string }> {
  const writes = profileWrites(subagent.profile.base);
  // A CLI's own tools write wherever they run: a CLI-driven subagent gets a checkout of its own.
  const ws = await deps.forAgent(writes || options.cli ? subagent.name : LEAD_AGENT);
  if (!ws.ok) return ws;
  const { worktree, branch, publish } = ws.value;
  // A CLI brings its own file and shell tools: it is served only Colony's others (merge, sync).
  const base = options.cli
    ? { ok: true as const, tools: [] }
    : toolsForProfile(subagent.profile.base, worktree, { bash: deps.bash });
  if (!base.ok) return base;
  if (!writes) return { ...base, worktree };
  const ctx = {
    runId: deps.runId,
    agent: subagent.name,
    worktree,
    branch,
    publish,
    queue: deps.queueFor(subagent.name),
    hubPath: deps.hubPath,
    log: deps.log,
  };
  const tools = [...base.tools, createMergeRequestTool(ctx), createSyncTool(ctx)];
  return { ok: true, tools: deps.wrapTools ? deps.wrapTools(subagent.name, tools) : tools, worktree };
}

export interface TaskToRun {
  task: string;
  prompt: string;
}

/**
 * Runs one task. `knownFresh`: the caller knows the subagent never ran (no history to read), so its
 * first request does not wait for its opening events' commit. `onOutcome`: the loop answered (the
 * caller's slot may go to the next task while the last events commit).
 */
export async function runSubagentTask(
  deps: SubagentTaskDeps,
  subagent: Subagent,
  task: TaskToRun,
  tools: Tool[],
  options: TaskOptions,
): Promise<{ outcome: AgentOutcome; steps: number }> {
  const coordination = deps.coordination;
  if (!coordination) return runTask(deps, subagent, task, tools, options);
  const capabilities = subagentCoordination(subagent);
  const own = coordination.tools(subagent.name, capabilities);
  // Claims are leases for the task: released when it ends (its merge request has been decided by
  // then: merge_request waits for the queue), unless another worker took the session over.
  return coordination.hold(
    subagent.name,
    capabilities,
    () => runTask(deps, subagent, task, [...tools, ...own], options),
    {
      outcome: `${task.task} ended`,
      keep: () => options.signal?.aborted === true && deps.signal?.aborted !== true,
    },
  );
}

interface TaskOptions {
  knownFresh: boolean;
  onOutcome?: () => void;
  signal?: AbortSignal;
  /** The subagent's checkout (where a CLI driving it runs). */
  worktree?: string;
}

async function runTask(
  deps: SubagentTaskDeps,
  subagent: Subagent,
  task: TaskToRun,
  tools: Tool[],
  options: TaskOptions,
): Promise<{ outcome: AgentOutcome; steps: number }> {
  const { log, runId } = deps;
  const fresh = options.knownFresh;
  const history = fresh ? [] : [...(await log.read(runId, { agent: subagent.name }))];
  const opened = history.filter((e) => e.kind === 'task.started');
  let mine = opened.find((e) => e.data.task === task.task);
  const emit = <K extends EventKind>(kind: K, data: EventPayloads[K]) =>
    log.append(eventOf(runId, subagent.name, kind, deps.scrubber.scrubValue(data)));
  // agent.started and task.started are appended together so they share one commit.
  const start: AgentSessionStart = {
    runId,
    agent: subagent.name,
    log,
    scrubber: deps.scrubber,
    history,
    profile: subagent.profile.name,
    model: subagent.model,
    task: task.prompt,
    tools: tools.map((t) => t.spec.name),
    maxSteps: subagent.maxSteps,
    system: () => subagent.systemPrompt,
  };
  const session = await openAgentSession(start);
  const agentStarted = session.started;
  const taskStarted = mine
    ? null
    : emit('task.started', {
        task: task.task,
        prompt: task.prompt,
        index: opened.length,
        stepsBefore: history.filter((e) => e.kind === 'model.response').length,
      });
  taskStarted?.catch(() => {}); // awaited below, after agent.started
  agentStarted?.catch(() => {});
  // A fresh subagent's first task needs neither event to build its conversation (the task is the
  // opening message), so its first request does not wait for their commit; they commit before
  // anything the loop logs (append order), and are awaited after the loop to surface a failure.
  const opening = fresh
    ? { index: 0, stepsBefore: 0, prompt: task.prompt }
    : await (async () => {
        if (agentStarted) history.push(await agentStarted);
        if (taskStarted) {
          const started: StoredEvent<'task.started'> = await taskStarted;
          history.push(started);
          mine = started;
        }
        if (!mine) throw new Error(`task ${task.task} has no task.started event`);
        return mine.data;
      })();
  const firstTask = history.find(isKind('task.started'));
  const first = firstTask?.data ?? opening;
  const provider = deps.providerFor(subagent.model);
  if (!provider.ok) throw new Error(provider.error);
  const signals = [deps.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal =
    signals.length === 1 ? signals[0] : signals.length > 1 ? AbortSignal.any(signals) : undefined;
  const cli = deps.cli?.choiceFor(subagent) ?? null;
  let driver: AgentDriver;
  if (cli && deps.cli) {
    if (!options.worktree) throw new Error(`${subagent.name}: a CLI-driven subagent needs its checkout`);
    // A session of an earlier task goes on with this task; one started for this task (a crashed
    // run) with a restart note.
    const thisTask = history.findIndex((e) => e.kind === 'task.started' && e.data.task === task.task);
    const resumedTask = history.slice(thisTask + 1).some((e) => e.kind === 'agent.cli');
    driver = {
      kind: 'cli',
      host: deps.cli.host,
      request: {
        cli,
        agent: subagent.name,
        goal: task.prompt,
        system: session.system,
        worktree: options.worktree,
        tools,
        sandbox: deps.cli.sandbox,
        baseEnv: deps.cli.baseEnv,
        history,
        ...(resumedTask ? {} : { resumeText: task.prompt }),
        signal: signal ?? new AbortController().signal,
        messages: deps.injectorFor(subagent.name),
      },
    };
  } else {
    driver = loopDriver(start, session.system, {
      profile: subagent.profile.base,
      task: first.prompt,
      tools,
      provider: provider.provider,
      // The step cap is per task; the agent's step count runs on across its tasks.
      maxSteps: opening.stepsBefore + subagent.maxSteps,
      budget: deps.budget,
      stream: deps.stream,
      signal,
      beforeModelCall: deps.injectorFor(subagent.name),
      onOutcome: options.onOutcome,
    });
  }
  // What drives the loop is the one difference between a built-in subagent and a CLI-driven one.
  const outcome = await driveAgent(driver);
  if (driver.kind === 'cli') options.onOutcome?.();
  await agentStarted;
  await taskStarted;
  return { outcome, steps: outcome.steps - opening.stepsBefore };
}

/** A failed task that never reached the model (its tools could not be built, its worker failed). */
export function failedTask(reason: string): { outcome: AgentOutcome; steps: number } {
  return {
    outcome: { status: 'failed', stopReason: 'model_error', reason, steps: 0, finalText: '' },
    steps: 0,
  };
}
