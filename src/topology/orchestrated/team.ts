/**
 * The lead's team: its subagents and their tasks. State lives here (which subagents exist, which task
 * runs where) and is rebuilt from the log on resume (`subagent.created`, `task.assigned`,
 * `task.finished`), so a re-run assign_task call of a crashed lead turn finds its task again instead
 * of starting it twice. A subagent is one agent whose log continues across tasks (`task.started`
 * opens each further task in its conversation); it runs one task at a time, in assignment order.
 */

import type { Budget } from '../../agent/budget.js';
import { RESERVED_AGENT_NAMES } from '../../agent/direct-message.js';
import type { AgentOutcome } from '../../agent/loop.js';
import { type ProfileDefinition, profileWrites, resolveProfile } from '../../agent/profiles.js';
import type { BashToolOptions } from '../../agent/tools/index.js';
import { type AgentCoordination, coordinationPrompt } from '../../coord/index.js';
import { type EventKind, type EventPayloads, eventOf, type StoredEvent } from '../../core/events.js';
import type { Scrubber } from '../../core/secrets.js';
import type { Message, Provider } from '../../model/types.js';
import type { Scheduler } from '../../run/scheduler.js';
import type { EventLog } from '../../store/types.js';
import type { Tool, ToolResult } from '../../tool/types.js';
import type { IntegrationQueue } from '../../workspace/integration/index.js';
import type { RunWorkspace } from '../../workspace/run-workspace.js';
import { LEAD_AGENT, subagentSystemPrompt } from './prompt.js';
import type { SubagentCli } from './subagent-cli.js';
import {
  buildSubagentTools,
  failedTask,
  runSubagentTask,
  type Subagent,
  subagentCoordination,
  subagentFrom,
  type TaskToRun,
} from './subagent-task.js';

export type { Subagent } from './subagent-task.js';

export const SUBAGENT_NAME = /^[a-z][a-z0-9-]{0,39}$/;

export interface TaskRecord {
  task: string;
  agent: string;
  prompt: string;
  leadStep: number;
  callId: string;
  finished?: StoredEvent<'task.finished'>['data'];
}

export interface TeamOptions {
  runId: string;
  log: EventLog;
  scrubber: Scrubber;
  budget: Budget;
  signal?: AbortSignal;
  scheduler: Scheduler;
  workspace: RunWorkspace;
  /** The integration queue writers land through (created by the caller, closed by it). */
  queue: IntegrationQueue;
  /** The provider for a model id (the run's own model when undefined). */
  providerFor(model: string | undefined): { ok: true; provider: Provider } | { ok: false; error: string };
  profiles: Readonly<Record<string, ProfileDefinition>>;
  /** Step cap per task of a subagent whose profile names none. */
  subagentMaxSteps: number;
  maxAgents: number;
  bash: BashToolOptions;
  stream: boolean;
  /** The direct-message injector of a subagent (see SoloContext.injectorFor). */
  injectorFor(agent: string): () => Promise<Message[]>;
  /**
   * Fleet runs: a task runs on a worker (its own session; it reads the subagent and the task from
   * the log) instead of in this process. Called once task.assigned and subagent.created committed.
   */
  remote?: (agent: string, task: TaskToRun) => Promise<{ outcome: AgentOutcome; steps: number }>;
  /** Subagents whose loop an external CLI drives (subagent-cli.ts). */
  cli?: SubagentCli;
  /** The team's shared context and claims (subagent-task.ts: `subagentCoordination`). */
  coordination?: AgentCoordination;
}

export class Team {
  readonly subagents = new Map<string, Subagent>();
  readonly tasks = new Map<string, TaskRecord>();
  private readonly byCall = new Map<string, string>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** subagent.created appends of this process, awaited by each subagent's first task. */
  private readonly createdWrites = new Map<string, Promise<unknown>>();
  /** Subagents whose log may hold events (found at load, or run by this process). */
  private readonly mayHaveHistory = new Set<string>();
  private taskCount = 0;

  constructor(private readonly options: TeamOptions) {}

  /** Rebuilds subagents and tasks from the log (a fresh run finds none). */
  async load(): Promise<void> {
    const events = await this.options.log.read(this.options.runId, {
      kinds: ['subagent.created', 'task.assigned', 'task.finished'],
    });
    for (const event of events) {
      if (event.kind === 'subagent.created') {
        const subagent = subagentFrom(event.data, this.options.profiles);
        if (subagent.ok) this.subagents.set(subagent.value.name, subagent.value);
      } else if (event.kind === 'task.assigned') {
        const d = event.data;
        this.tasks.set(d.task, { ...d });
        this.mayHaveHistory.add(d.agent);
        this.byCall.set(callKey(d.leadStep, d.callId), d.task);
        this.taskCount++;
      } else {
        const d = event.data;
        const record = this.tasks.get(d.task);
        if (record) record.finished = d;
      }
    }
  }

  /** Starts per subagent already made (for the scheduler's counts after a resume). */
  previousStarts(): Record<string, number> {
    const starts: Record<string, number> = {};
    for (const t of this.tasks.values()) {
      if (t.finished && t.finished.status !== 'refused') starts[t.agent] = (starts[t.agent] ?? 0) + 1;
    }
    return starts;
  }

  async createSubagent(input: {
    name: string;
    system_prompt: string;
    profile?: string;
  }): Promise<ToolResult> {
    const name = input.name;
    if (!SUBAGENT_NAME.test(name) || name === LEAD_AGENT || RESERVED_AGENT_NAMES.has(name)) {
      return fail(
        `create_subagent: "${name}" is not a valid name (lower-case letters, digits, dashes; not "lead", "user", "colony" or "integration")`,
      );
    }
    if (this.subagents.has(name)) return fail(`create_subagent: a subagent named "${name}" already exists`);
    const profile = resolveProfile(input.profile ?? 'coder', this.options.profiles);
    if (!profile.ok) return fail(`create_subagent: ${profile.error}`);
    // The lead counts as an agent of the run too.
    if (this.subagents.size + 1 >= this.options.maxAgents) {
      await this.emit(LEAD_AGENT, 'limit.hit', {
        limit: 'max_agents',
        value: this.options.maxAgents,
        used: this.subagents.size + 1,
      });
      return fail(
        `agent_limit_error: the run already has ${this.subagents.size + 1} agents (limit ${this.options.maxAgents})`,
      );
    }
    const provider = this.options.providerFor(profile.profile.model);
    if (!provider.ok) return fail(`create_subagent: ${provider.error}`);
    const subagent: Subagent = {
      name,
      profile: profile.profile,
      model: provider.provider.model.id,
      maxSteps: profile.profile.maxSteps ?? this.options.subagentMaxSteps,
      systemPrompt: subagentSystemPrompt({
        name,
        profile: profile.profile.name,
        rolePrompt: input.system_prompt,
        profilePrompt: profile.profile.prompt,
        writes: profileWrites(profile.profile.base),
        coordination: this.options.coordination
          ? coordinationPrompt(subagentCoordination({ profile: profile.profile }), 'your task ends')
          : '',
      }),
    };
    this.subagents.set(name, subagent);
    // Not awaited here (a lead turn creating 1,000 subagents would wait one commit per call); the
    // subagent's first task waits for it before anything else is logged for that subagent.
    const created = this.emit(LEAD_AGENT, 'subagent.created', {
      name,
      profile: profile.profile.name,
      model: subagent.model,
      maxSteps: subagent.maxSteps,
      systemPrompt: subagent.systemPrompt,
    });
    created.catch(() => {}); // surfaced by the first task's await below
    this.createdWrites.set(name, created);
    return {
      isError: false,
      content: `created subagent "${name}" (profile ${profile.profile.name}, model ${subagent.model}, ${subagent.maxSteps} steps per task)`,
    };
  }

  /**
   * Runs one task (called by assign_task). Everything up to the first await is synchronous, so the
   * calls of one lead response get task ids and per-subagent order in call order.
   */
  assign(
    input: { agent: string; prompt: string },
    call: { callId: string; step: number },
  ): Promise<ToolResult> {
    const key = callKey(call.step, call.callId);
    const known = this.byCall.get(key);
    const record = known ? this.tasks.get(known) : undefined;
    if (record?.finished) return Promise.resolve(resultFor(record.finished));
    if (!record && !this.subagents.has(input.agent)) {
      const names = [...this.subagents.keys()];
      return Promise.resolve(
        fail(
          `assign_task: no subagent named "${input.agent}"; create it first with create_subagent` +
            (names.length > 0 ? ` (existing: ${names.join(', ')})` : ''),
        ),
      );
    }
    const task: TaskRecord = record ?? {
      task: `task-${++this.taskCount}`,
      agent: input.agent,
      prompt: input.prompt,
      leadStep: call.step,
      callId: call.callId,
    };
    if (!record) {
      this.tasks.set(task.task, task);
      this.byCall.set(key, task.task);
    }
    const previous = this.chains.get(task.agent) ?? Promise.resolve();
    const run = previous.then(() => this.runTask(task, !record));
    this.chains.set(
      task.agent,
      run.catch(() => undefined),
    );
    return run;
  }

  private async runTask(task: TaskRecord, fresh: boolean): Promise<ToolResult> {
    const { scheduler } = this.options;
    // The lead's response that asked for this task (and subagent.created) is committed before the task
    // has any effect: the log commits in append order, so once task.assigned (appended after them) is
    // committed, so are they. Only a writer has effects (its worktree, its files), so only a writer
    // waits for that commit before it starts; a read-only subagent's first request goes at once (a
    // crash can only repeat that request), and every event it logs commits after task.assigned. With
    // 1,000 tasks in one lead response, task.assigned waits behind ~5,000 events of that response.
    const durable = fresh
      ? Promise.all([
          this.createdWrites.get(task.agent),
          this.emit(LEAD_AGENT, 'task.assigned', {
            task: task.task,
            agent: task.agent,
            prompt: task.prompt,
            leadStep: task.leadStep,
            callId: task.callId,
          }),
        ])
      : Promise.resolve([]);
    durable.catch(() => {}); // awaited below, before task.finished
    // A task on a worker reads the subagent and its task from the log: both must be there first.
    if (this.writes(task.agent) || this.options.remote) await durable;
    const scheduled = await scheduler.run(task.agent, (release) => this.work(task, release));
    await durable;
    let finished: TaskRecord['finished'];
    if (scheduled.ok) {
      const { outcome, steps } = scheduled.value;
      finished = {
        task: task.task,
        agent: task.agent,
        steps,
        status: outcome.status,
        result:
          outcome.status === 'done'
            ? outcome.finalText
            : `${outcome.reason}${outcome.finalText ? `; last output: ${outcome.finalText}` : ''}`,
      };
    } else {
      finished = {
        task: task.task,
        agent: task.agent,
        steps: 0,
        status: 'refused',
        result: `${scheduled.error.kind}: ${scheduled.error.message}`,
      };
    }
    task.finished = finished;
    await this.emit(task.agent, 'task.finished', finished);
    return resultFor(finished);
  }

  /** One task of a subagent, here or on a fleet worker (subagent-task.ts). */
  private async work(
    task: TaskRecord,
    release: () => void,
  ): Promise<{ outcome: AgentOutcome; steps: number }> {
    const subagent = this.subagents.get(task.agent);
    if (!subagent) throw new Error(`subagent ${task.agent} vanished`);
    const toRun = { task: task.task, prompt: task.prompt };
    if (this.options.remote) {
      try {
        return await this.options.remote(task.agent, toRun);
      } finally {
        release();
      }
    }
    // A subagent that never ran (not in the log at load, not run by this process) has no history.
    const knownFresh = !this.mayHaveHistory.has(task.agent);
    this.mayHaveHistory.add(task.agent);
    const tools = await this.toolsFor(subagent);
    if (!tools.ok) return failedTask(tools.error);
    return runSubagentTask(this.options, subagent, toRun, tools.tools, {
      knownFresh,
      onOutcome: release,
      worktree: tools.worktree,
    });
  }

  private writes(agent: string): boolean {
    const subagent = this.subagents.get(agent);
    return subagent ? profileWrites(subagent.profile.base) : false;
  }

  private readonly toolCache = new Map<string, Promise<BuiltTools>>();

  /**
   * A writer's tools are its own (its worktree, its merge requests); read-only tools keep no state
   * and work on the lead's checkout, so subagents of one read-only profile share one set (building
   * tools means zod → JSON schema, a visible cost at a 1,000-subagent fan-out).
   */
  private toolsFor(subagent: Subagent): Promise<BuiltTools> {
    const cli = this.options.cli?.choiceFor(subagent) ?? null;
    const key =
      profileWrites(subagent.profile.base) || cli
        ? `agent:${subagent.name}`
        : `read-only:${subagent.profile.base}`;
    let tools = this.toolCache.get(key);
    if (!tools) {
      tools = this.buildTools(subagent);
      this.toolCache.set(key, tools);
    }
    return tools;
  }

  private buildTools(subagent: Subagent): Promise<BuiltTools> {
    const { workspace, queue } = this.options;
    return buildSubagentTools(
      {
        runId: this.options.runId,
        log: this.options.log,
        bash: this.options.bash,
        hubPath: workspace.hubPath,
        forAgent: (agent) => workspace.forAgent(agent),
        queueFor: () => queue,
      },
      subagent,
      { cli: (this.options.cli?.choiceFor(subagent) ?? null) !== null },
    );
  }

  private emit<K extends EventKind>(agent: string | null, kind: K, data: EventPayloads[K]) {
    return this.options.log.append(
      eventOf(this.options.runId, agent, kind, this.options.scrubber.scrubValue(data)),
    );
  }
}

type BuiltTools = { ok: true; tools: Tool[]; worktree: string } | { ok: false; error: string };

function callKey(step: number, callId: string): string {
  return `${step}/${callId}`;
}

function fail(content: string): ToolResult {
  return { isError: true, content };
}

/** What the lead sees of a task: its result only (context sharding), never the trace. */
export function resultFor(finished: NonNullable<TaskRecord['finished']>): ToolResult {
  const head = `[${finished.task} → ${finished.agent}: ${finished.status}, ${finished.steps} step(s)]`;
  return { isError: finished.status !== 'done', content: `${head}\n${finished.result}` };
}
