/**
 * Team metrics (REFERENCE §1, §4), a projection of the one fold (run-state.ts), like the view:
 * - criticalSteps: the run's critical path in the summary's terms (critical-path.ts `criticalSteps`:
 *   the lead's turns, a workflow's stages, or the longest agent).
 * - totalSteps: every model response of every agent; parallelism = totalSteps / criticalSteps.
 * - finishRate: agents whose last `agent.finished` is `done`, over agents started (spawn explosion).
 * - tokens and cost per agent, per role (profile) and per run, with cached input apart.
 * - coordination shares: the share of input tokens spent on coordination rather than work (which
 *   turns count: fold/usage.ts). Two measures: of all input (uncached + cache reads + cache writes:
 *   what a team re-reads each turn, where its cost goes) and of uncached input alone.
 */
import type { StoredEvent, UsageTotals } from '../core/events.js';
import { criticalSteps, type LeadTurn } from './critical-path.js';
import { roleOf } from './fold/helpers.js';
import { foldEvents, type RunState } from './run-state.js';

export type { LeadTurn } from './critical-path.js';
export { COORDINATION_TOOLS } from './fold/usage.js';

export interface UsageAccount {
  tokens: UsageTotals;
  costUsd: number | null;
  steps: number;
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
  /** Each agent's account, with its model and step cap as agent.started (or subagent.created) gave them. */
  perAgent: Record<string, UsageAccount & AgentSetup>;
  perRole: Record<string, UsageAccount & { agents: number }>;
  run: UsageAccount;
}

/** What an agent ran with: its role, model and step cap (null while the log does not say). */
export interface AgentSetup {
  role: string;
  model: string | null;
  maxSteps: number | null;
}

/** The metrics of a run from its events (folded here; `toRunMetrics` projects a state). */
export function computeMetrics(events: readonly StoredEvent[]): RunMetrics {
  return toRunMetrics(foldEvents(events));
}

export function toRunMetrics(state: RunState): RunMetrics {
  const perAgent = accounts(state);
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
  const run = runAccount(state, perAgent);
  const critical = criticalSteps(state);
  let agentsStarted = 0;
  let agentsFinished = 0;
  for (const agent of state.agents.values()) {
    if (agent.startedMs !== null) agentsStarted++;
    if (agent.finishStatus === 'done') agentsFinished++;
  }
  let tasksDone = 0;
  for (const task of state.tasks.values()) if (task.status === 'done') tasksDone++;
  const { input } = state;
  return {
    criticalSteps: critical.steps,
    totalSteps: run.steps,
    parallelism: critical.steps > 0 ? run.steps / critical.steps : 0,
    agentsStarted,
    agentsFinished,
    finishRate: agentsStarted > 0 ? agentsFinished / agentsStarted : 0,
    tasksAssigned: state.tasks.size,
    tasksDone,
    coordinationShareOfInput: input.all > 0 ? input.coordinationAll / input.all : 0,
    coordinationShareOfUncachedInput: input.uncached > 0 ? input.coordinationUncached / input.uncached : 0,
    leadTurns: critical.leadTurns,
    perAgent,
    perRole,
    run,
  };
}

/** The view's agents that answered at least once, in the order they first did. */
function accounts(state: RunState): RunMetrics['perAgent'] {
  const perAgent: RunMetrics['perAgent'] = {};
  for (const [name, reasoning] of state.reasoningByAgent) {
    const agent = state.agents.get(name);
    if (!agent) continue;
    const { uncached, cached, cacheWrite, output } = agent.tokens;
    perAgent[name] = {
      tokens: { input: uncached, cachedInput: cached, cacheWrite, output, reasoning },
      costUsd: agent.costUsd,
      steps: agent.steps,
      role: roleOf(agent),
      model: agent.model,
      maxSteps: agent.maxSteps,
    };
  }
  return perAgent;
}

/** The run's account: every model response, its cost summed in log order (as the summary's). */
function runAccount(state: RunState, perAgent: RunMetrics['perAgent']): UsageAccount {
  const run = emptyAccount();
  for (const point of state.usage) {
    run.steps++;
    if (point.costUsd !== null) run.costUsd = (run.costUsd ?? 0) + point.costUsd;
  }
  for (const account of Object.values(perAgent))
    for (const key of Object.keys(run.tokens) as Array<keyof UsageTotals>)
      run.tokens[key] += account.tokens[key];
  return run;
}

function emptyAccount(): UsageAccount {
  return {
    tokens: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, reasoning: 0 },
    costUsd: null,
    steps: 0,
  };
}
