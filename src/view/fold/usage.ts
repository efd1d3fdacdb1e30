/**
 * What one model response costs: its usage point, the agent's tokens and cost, and the run's input
 * tokens split by what the turn did. A coordination turn spends its input on the team rather than the
 * work: every lead turn, and every other turn whose tool calls are all coordination tools (messages,
 * claims, context, merge/sync, orchestration). metrics.ts turns these into the coordination shares.
 */
import type { ModelTurn } from '../../model/types.js';
import type { RunState } from '../run-state.js';
import type { AgentView } from '../types.js';
import { roleOf } from './helpers.js';

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
  'claim_next',
  'tasks_add',
  'tasks_ready',
  'merge_request',
  'merge_status',
  'sync',
]);

export function addUsage(state: RunState, agent: AgentView, at: number, turn: ModelTurn): void {
  const u = turn.usage;
  state.usage.push({
    tMs: at,
    agent: agent.name,
    uncached: u.input,
    cached: u.cachedInput ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    output: u.output,
    costUsd: turn.costUsd,
  });
  state.reasoningTokens += u.reasoning ?? 0;
  state.reasoningByAgent.set(agent.name, (state.reasoningByAgent.get(agent.name) ?? 0) + (u.reasoning ?? 0));
  agent.steps += 1;
  agent.tokens.uncached += u.input;
  agent.tokens.cached += u.cachedInput ?? 0;
  agent.tokens.cacheWrite += u.cacheWrite ?? 0;
  agent.tokens.output += u.output;
  if (turn.costUsd !== null) agent.costUsd = (agent.costUsd ?? 0) + turn.costUsd;

  const all = u.input + (u.cachedInput ?? 0) + (u.cacheWrite ?? 0);
  state.input.all += all;
  state.input.uncached += u.input;
  const coordinating =
    roleOf(agent) === 'lead' ||
    (turn.toolCalls.length > 0 && turn.toolCalls.every((c) => COORDINATION_TOOLS.has(c.name)));
  if (coordinating) {
    state.input.coordinationAll += all;
    state.input.coordinationUncached += u.input;
  }
}
