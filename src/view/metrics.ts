/**
 * Team metrics computed from the event log alone (REFERENCE §1, §4):
 * - criticalSteps: with a lead (orchestrated), Σ over the lead's turns of (1 + the largest step count
 *   among the tasks that turn started); for a workflow program, its stage/DAG critical path
 *   (src/view/workflow-critical-path.ts); otherwise every agent works in one parallel stage, so it
 *   is the largest step count of any agent.
 * - totalSteps: every model response of every agent; parallelism = totalSteps / criticalSteps.
 * - finishRate: agents whose last `agent.finished` is `done`, over agents started (spawn explosion).
 * - tokens and cost per agent, per role (profile) and per run, with cached input apart.
 * - coordination shares: the share of input tokens spent on coordination rather than work — every
 *   lead turn, and every other turn whose tool calls are all coordination tools (messages, claims,
 *   context, merge/sync, orchestration). Two measures: of all input (uncached + cache reads + cache
 *   writes: what a team re-reads each turn, where its cost goes) and of uncached input alone.
 */
import type { StoredEvent, UsageTotals } from '../core/events.js';
import type { Usage } from '../model/types.js';
import { workflowCriticalPath } from './workflow-critical-path.js';

export const COORDINATION_TOOLS: ReadonlySet<string> = new Set([
  'create_subagent',
  'assign_task',
  'context_post',
  'context_read',
  'context_unfold',
  'message_send',
  'message_read',
  'claim',
  'release',
  'merge_request',
  'sync',
]);

export interface UsageAccount {
  tokens: UsageTotals;
  costUsd: number | null;
  steps: number;
}

export interface LeadTurn {
  step: number;
  tasks: Array<{ task: string; agent: string; steps: number | null }>;
  /** 1 + the largest task step count of this turn. */
  criticalSteps: number;
}

export interface RunMetrics {
  criticalSteps: number;
  totalSteps: number;
  /** totalSteps / criticalSteps (0 when nothing ran). */
  parallelism: number;
  agentsStarted: number;
  agentsFinished: number;
  finishRate: number;
  tasksAssigned: number;
  tasksDone: number;
  /** Coordination turns' share of all input tokens (uncached, cached and cache writes). */
  coordinationShareOfInput: number;
  /** Coordination turns' share of uncached input tokens (`tokens.input`). */
  coordinationShareOfUncachedInput: number;
  leadTurns: LeadTurn[];
  perAgent: Record<string, UsageAccount & { role: string }>;
  perRole: Record<string, UsageAccount & { agents: number }>;
  run: UsageAccount;
}

export function computeMetrics(events: readonly StoredEvent[]): RunMetrics {
  const roles = new Map<string, string>();
  const lastFinish = new Map<string, string>();
  const perAgent: RunMetrics['perAgent'] = {};
  const run = emptyAccount();
  const assigned: Array<StoredEvent<'task.assigned'>['data']> = [];
  const taskSteps = new Map<string, number>();
  const leadSteps: number[] = [];
  let leadName: string | null = null;
  let tasksDone = 0;
  const input = { all: 0, uncached: 0, coordinationAll: 0, coordinationUncached: 0 };

  for (const event of events) {
    const agent = event.agent;
    switch (event.kind) {
      case 'agent.started':
        if (agent) roles.set(agent, event.data.profile);
        break;
      case 'agent.finished':
        if (agent) lastFinish.set(agent, event.data.status);
        break;
      case 'task.assigned': {
        const data = event.data;
        assigned.push(data);
        leadName ??= agent;
        break;
      }
      case 'task.finished': {
        const data = event.data;
        taskSteps.set(data.task, data.steps);
        if (data.status === 'done') tasksDone++;
        break;
      }
      case 'model.response': {
        if (!agent) break;
        const { turn, step } = event.data;
        const account = perAgent[agent] ?? { ...emptyAccount(), role: '' };
        perAgent[agent] = account;
        addUsage(account, turn.usage, turn.costUsd);
        addUsage(run, turn.usage, turn.costUsd);
        const { usage } = turn;
        const all = usage.input + (usage.cachedInput ?? 0) + (usage.cacheWrite ?? 0);
        input.all += all;
        input.uncached += usage.input;
        const coordinating =
          roles.get(agent) === 'lead' ||
          (turn.toolCalls.length > 0 && turn.toolCalls.every((c) => COORDINATION_TOOLS.has(c.name)));
        if (coordinating) {
          input.coordinationAll += all;
          input.coordinationUncached += usage.input;
        }
        if (roles.get(agent) === 'lead') leadSteps.push(step);
        break;
      }
      default:
        break;
    }
  }

  for (const [agent, account] of Object.entries(perAgent)) account.role = roles.get(agent) ?? 'unknown';
  const perRole: RunMetrics['perRole'] = {};
  for (const account of Object.values(perAgent)) {
    const role = perRole[account.role] ?? { ...emptyAccount(), agents: 0 };
    perRole[account.role] = role;
    role.agents++;
    role.steps += account.steps;
    for (const key of Object.keys(role.tokens) as Array<keyof UsageTotals>)
      role.tokens[key] += account.tokens[key];
    if (account.costUsd !== null) role.costUsd = (role.costUsd ?? 0) + account.costUsd;
  }

  const leadTurns: LeadTurn[] = [];
  let criticalSteps: number;
  if (leadName !== null || leadSteps.length > 0) {
    for (const step of leadSteps) {
      const tasks = assigned
        .filter((t) => t.leadStep === step)
        .map((t) => ({ task: t.task, agent: t.agent, steps: taskSteps.get(t.task) ?? null }));
      const longest = Math.max(0, ...tasks.map((t) => t.steps ?? 0));
      leadTurns.push({ step, tasks, criticalSteps: 1 + longest });
    }
    criticalSteps = leadTurns.reduce((sum, turn) => sum + turn.criticalSteps, 0);
  } else if (events.some((e) => e.kind === 'stage.started' || e.kind === 'step.started')) {
    // A workflow program: its stages and DAG nodes give the critical path (src/workflow).
    criticalSteps = workflowCriticalPath(events).criticalSteps;
  } else {
    criticalSteps = Math.max(0, ...Object.values(perAgent).map((a) => a.steps));
  }

  const agentsStarted = roles.size;
  const agentsFinished = [...lastFinish.values()].filter((status) => status === 'done').length;
  return {
    criticalSteps,
    totalSteps: run.steps,
    parallelism: criticalSteps > 0 ? run.steps / criticalSteps : 0,
    agentsStarted,
    agentsFinished,
    finishRate: agentsStarted > 0 ? agentsFinished / agentsStarted : 0,
    tasksAssigned: assigned.length,
    tasksDone,
    coordinationShareOfInput: input.all > 0 ? input.coordinationAll / input.all : 0,
    coordinationShareOfUncachedInput: input.uncached > 0 ? input.coordinationUncached / input.uncached : 0,
    leadTurns,
    perAgent,
    perRole,
    run,
  };
}

function emptyAccount(): UsageAccount {
  return {
    tokens: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, reasoning: 0 },
    costUsd: null,
    steps: 0,
  };
}

function addUsage(account: UsageAccount, usage: Usage, costUsd: number | null): void {
  account.steps++;
  account.tokens.input += usage.input;
  account.tokens.cachedInput += usage.cachedInput ?? 0;
  account.tokens.cacheWrite += usage.cacheWrite ?? 0;
  account.tokens.output += usage.output;
  account.tokens.reasoning += usage.reasoning ?? 0;
  if (costUsd !== null) account.costUsd = (account.costUsd ?? 0) + costUsd;
}
