/**
 * The agent loop: one loop for every topology, with the model passed in. Its state is rebuilt from
 * the event log (see conversation.ts), so running it on a recovered agent resumes where the log
 * ends. Every model response and tool result is durably logged before the loop moves on.
 */

import { type EventPayloads, eventOf, type StoredEvent } from '../core/events.js';
import type { Scrubber } from '../core/secrets.js';
import type { Message, ModelRequest, ModelTurn, Provider, ToolCall } from '../model/types.js';
import type { EventLog } from '../store/types.js';
import type { FileIntent, Tool, ToolContext, ToolResult } from '../tool/types.js';
import { type Budget, type BudgetHit, budgetHitText } from './budget.js';
import { applyCompaction, estimateTokens, planCompaction } from './compaction.js';
import { type ConversationState, replayConversation } from './conversation.js';
import { isFencedStop } from './fence.js';
import { decideInFlight, type InFlightDecision } from './in-flight.js';
import { PendingWrites } from './pending-writes.js';
import { summariseToolResult } from './tool-summary.js';

export interface AgentSpec {
  runId: string;
  name: string;
  profile: string;
  task: string;
  system: string;
  tools: Tool[];
  provider: Provider;
  maxSteps: number;
  stream?: boolean;
  /** Fraction of the context window at which the conversation is compacted (default 0.8). */
  compactAt?: number;
}

/** A stop condition is a predicate checked before every model call; a non-null answer stops the agent. */
export type StopCondition = (state: Readonly<ConversationState>) => string | null;

export interface AgentDeps {
  log: EventLog;
  scrubber: Scrubber;
  budget: Budget;
  signal?: AbortSignal;
  /** This agent's events already in the log (empty for a fresh agent). */
  history: readonly StoredEvent[];
  stopWhen?: StopCondition[];
  /** Messages to put in front of the next model request (e.g. direct messages that interrupt). */
  beforeModelCall?: () => Promise<Message[]>;
  /**
   * Called when the model answered with no tool call, before the agent finishes (its last response
   * committed first): messages it returns — direct messages it took, logged as delivered — go in
   * front of another model request instead of ending the agent (replay reopens the same way,
   * conversation.ts). The orchestrated lead waits here for its open background workflow programs.
   */
  beforeFinish?: () => Promise<Message[]>;
  /**
   * Called once the outcome is decided, before its last events are committed (no more model or tool
   * calls follow): the orchestrated scheduler hands the agent's slot over here.
   */
  onOutcome?: (outcome: AgentOutcome) => void;
}

export type AgentStopReason =
  | 'answered'
  | 'max_steps'
  | 'budget_usd'
  | 'budget_tokens'
  | 'aborted'
  | 'goal_met'
  | 'model_error'
  | 'stop_condition'
  /** An external agent CLI driving the loop (src/external-agent/) exited with an error or failed to start. */
  | 'cli_failed';

export interface AgentOutcome {
  status: 'done' | 'failed' | 'stopped';
  stopReason: AgentStopReason;
  reason: string;
  steps: number;
  finalText: string;
  limit?: BudgetHit | { limit: 'max_steps'; value: number; used: number };
}

/**
 * An agent whose run was aborted. A run ended because the team's goal was met (the abort reason is a
 * cause with status `succeeded`, see run/run-control.ts) ends its agents as done (`goal_met`), not
 * stopped: they did not fail to finish, there was nothing left to do.
 */
export function abortedOutcome(
  signal: AbortSignal | undefined,
  base: { steps: number; finalText: string },
): AgentOutcome {
  const cause: unknown = signal?.reason;
  if (typeof cause === 'object' && cause !== null && (cause as { status?: unknown }).status === 'succeeded') {
    const why = (cause as { reason?: unknown }).reason;
    return {
      ...base,
      status: 'done',
      stopReason: 'goal_met',
      reason: `the team's goal was met${typeof why === 'string' ? `: ${why}` : ''}`,
    };
  }
  return { ...base, status: 'stopped', stopReason: 'aborted', reason: 'stopped by request' };
}

export async function runAgent(spec: AgentSpec, deps: AgentDeps): Promise<AgentOutcome> {
  const state = replayConversation(spec.task, deps.history);
  if (state.finished) {
    return {
      status: state.finished.status,
      stopReason: state.finished.stopReason as AgentStopReason,
      reason: state.finished.reason,
      steps: state.steps,
      finalText: state.finalText,
    };
  }
  const emit = (kind: Parameters<typeof appendFor>[2], data: unknown) => appendFor(deps, spec, kind, data);
  const toolsByName = new Map(spec.tools.map((tool) => [tool.spec.name, tool]));
  // One array for every request of this agent: providers may remember what they derived from it.
  const toolSpecs = spec.tools.map((tool) => tool.spec);
  const writes = new PendingWrites();

  const finish = async (outcome: AgentOutcome): Promise<AgentOutcome> => {
    deps.onOutcome?.(outcome);
    // Taken over by another process: it continues this agent from the log, so nothing more is written.
    if (isFencedStop(deps.signal?.reason)) return outcome;
    // agent.finished only once everything before it is committed: a failed write stops it from
    // claiming an end its log does not hold.
    await writes.settle();
    if (outcome.limit) await emit('limit.hit', outcome.limit);
    await emit('agent.finished', {
      status: outcome.status,
      stopReason: outcome.stopReason,
      reason: outcome.reason,
      steps: outcome.steps,
      finalText: outcome.finalText,
    });
    return outcome;
  };

  for (;;) {
    // 1. Finish the tool calls of the last response that have no logged result (after a crash too).
    //    Consecutive calls of tools marked `parallel` (e.g. assign_task) run together; their results
    //    enter the conversation as they finish, which is also their order in the log (so replay agrees).
    //    A response cut off at the output-token limit has its calls refused, as results the model reads.
    //    A file tool's call in flight at a crash is settled from its logged intent (in-flight.ts).
    const refusal = state.truncated ? truncatedRefusal(spec.provider.model.maxOutput) : null;
    for (const batch of toolBatches(state.pendingCalls, toolsByName)) {
      if (deps.signal?.aborted) break;
      const done = new Set<string>();
      await Promise.all(
        batch.map(async (call) => {
          const intent = state.intents.get(call.id);
          const result = await executeToolCall(
            call,
            toolsByName,
            spec,
            deps,
            state.steps,
            writes,
            refusal,
            intent,
          );
          state.messages.push({
            role: 'tool',
            toolCallId: call.id,
            name: call.name,
            content: result.content,
            isError: result.isError,
          });
          done.add(call.id);
        }),
      );
      // Once per batch, not per call: a lead response of 2,000 calls made that quadratic.
      state.pendingCalls = state.pendingCalls.filter((pending) => !done.has(pending.id));
    }

    // 2. Stop conditions, checked before every model call.
    const base = { steps: state.steps, finalText: state.finalText };
    if (deps.signal?.aborted) return finish(abortedOutcome(deps.signal, base));
    if (state.answered) {
      let more: Message[] = [];
      if (deps.beforeFinish) {
        await writes.settle();
        more = await deps.beforeFinish();
      }
      if (deps.signal?.aborted) return finish(abortedOutcome(deps.signal, base));
      if (more.length === 0)
        return finish({ ...base, status: 'done', stopReason: 'answered', reason: 'final answer' });
      state.messages.push(...more);
      state.answered = false;
    }
    if (state.steps >= spec.maxSteps) {
      return finish({
        ...base,
        status: 'stopped',
        stopReason: 'max_steps',
        reason: `step cap of ${spec.maxSteps} reached`,
        limit: { limit: 'max_steps', value: spec.maxSteps, used: state.steps },
      });
    }
    for (const condition of deps.stopWhen ?? []) {
      const why = condition(state);
      if (why) return finish({ ...base, status: 'stopped', stopReason: 'stop_condition', reason: why });
    }

    // 3. Compact when the conversation nears the context window.
    const model = spec.provider.model;
    let estimate = estimateTokens(spec.system, state.messages);
    if (estimate > model.contextWindow * (spec.compactAt ?? 0.8)) {
      const plan = planCompaction(state.messages);
      if (plan) {
        await emit('compaction', {
          step: state.steps,
          replacedMessages: plan.replacedMessages,
          summary: plan.summary,
          tokensBefore: estimate,
        });
        state.messages = applyCompaction(state.messages, plan.replacedMessages, plan.summary);
        estimate = estimateTokens(spec.system, state.messages);
      }
    }

    // A run-wide budget read from the log (agents in several processes) counts this agent's last
    // response only once it is logged.
    if (deps.budget.readsLog) await writes.settle();
    const hit = await deps.budget.check(estimate, model.prices?.input ?? null);
    if (hit) {
      return finish({
        ...base,
        status: 'stopped',
        stopReason: hit.limit,
        reason: budgetHitText(hit),
        limit: hit,
      });
    }

    // 4. One model call. Direct messages delivered now are part of the conversation from here on
    //    (replay puts them back at the same place, see conversation.ts).
    if (deps.beforeModelCall) state.messages.push(...(await deps.beforeModelCall()));
    const request: ModelRequest = {
      system: spec.system,
      messages: state.messages,
      tools: toolSpecs,
      stablePrefixMessages: 1,
      stream: spec.stream ?? false,
    };
    const step = state.steps + 1;
    const started = performance.now();
    const result = await spec.provider.call(request, {
      signal: deps.signal,
      onRetry: ({ attempt, delayMs, error }) => {
        writes.track(emit('model.retry', { step, attempt, delayMs, kind: error.kind, status: error.status }));
      },
    });
    if (!result.ok) {
      if (result.error.kind === 'aborted') return finish(abortedOutcome(deps.signal, base));
      await emit('model.error', { step, ...result.error });
      return finish({
        ...base,
        status: 'failed',
        stopReason: 'model_error',
        reason: `model error (${result.error.kind}): ${result.error.message}`,
      });
    }
    // Taken over while the call was in flight: its new holder asks again; this answer is not logged.
    if (isFencedStop(deps.signal?.reason)) return finish(abortedOutcome(deps.signal, base));
    const turn: ModelTurn = deps.scrubber.scrubValue(result.turn);
    deps.budget.record(turn.usage, turn.costUsd);
    // Not awaited here: a tool that changes files waits for it (settle) before it runs; read-only
    // tools and the next model request need not, since a crash can then only repeat work that has no
    // lasting effect (the call in flight, a read) — this keeps commits off the critical path.
    writes.track(
      emit('model.response', {
        step,
        turn,
        latencyMs: Math.round(performance.now() - started),
        requestMessages: request.messages.length,
      }),
    );
    state.messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
    state.steps = step;
    state.pendingCalls = [...turn.toolCalls];
    state.intents.clear();
    state.answered = turn.toolCalls.length === 0;
    state.truncated = turn.stopReason === 'max_tokens';
    state.finalText = turn.text;
  }
}

/** The tool result of every call of a response cut off at the output-token limit. */
export function truncatedRefusal(maxOutput: number): string {
  return `not run: your response was cut off at the output-token limit (${maxOutput} tokens), so its tool arguments may be incomplete; send a shorter call (split large content over several calls)`;
}

async function executeToolCall(
  call: ToolCall,
  toolsByName: Map<string, Tool>,
  spec: AgentSpec,
  deps: AgentDeps,
  step: number,
  writes: PendingWrites,
  /** Set: the call is not run; this is its (error) result. */
  refusal: string | null,
  /** The call's logged file change, when it was in flight at a crash (in-flight.ts). */
  intent: EventPayloads['tool.intent'] | undefined,
): Promise<ToolResult> {
  // Side effects only after the log holds the response that asked for them.
  if (!refusal && toolsByName.get(call.name)?.mutates) await writes.settle();
  writes.track(
    appendFor(deps, spec, 'tool.started', {
      step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    }),
  );
  const started = performance.now();
  // Logged and committed before the tool writes the file (in-flight.ts).
  const intend = async (change: FileIntent): Promise<void> => {
    if (isFencedStop(deps.signal?.reason))
      throw new Error('this agent was taken over by another process; nothing was written');
    await appendFor(deps, spec, 'tool.intent', {
      step,
      callId: call.id,
      name: call.name,
      ...change,
      result: deps.scrubber.scrub(change.result),
    } satisfies EventPayloads['tool.intent']);
  };
  const decision: InFlightDecision =
    refusal === null && intent ? await settleInFlight(intent, toolsByName.get(call.name)) : { run: true };
  // Completed from its file: the tool's after-step (a fleet worker's push) before the result is logged.
  if (!decision.run && decision.recovered === 'applied') await toolsByName.get(call.name)?.afterRecovered?.();
  const raw: ToolResult =
    refusal !== null
      ? { isError: true, content: refusal }
      : decision.run
        ? await invokeTool(call, toolsByName, { signal: deps.signal, callId: call.id, step, intend })
        : decision.result;
  const content = deps.scrubber.scrub(raw.content);
  // Taken over meanwhile (fleet fencing): the result is not logged, so the new holder runs the call
  // again, as it runs any call in flight at a crash; a result logged here could be one the fence
  // refused (the owner answers a fenced token 403) and would stand in the agent's history.
  if (isFencedStop(deps.signal?.reason)) return { content, isError: raw.isError };
  const finished = appendFor(deps, spec, 'tool.finished', {
    step,
    callId: call.id,
    name: call.name,
    isError: raw.isError,
    content,
    summary: summariseToolResult(call.name, { content, isError: raw.isError }),
    durationMs: Math.round(performance.now() - started),
    ...(decision.run ? {} : { recovered: decision.recovered }),
  });
  writes.track(finished);
  return { content, isError: raw.isError };
}

/** A call in flight at a crash with a logged intent: what its file says (a tool without files runs). */
async function settleInFlight(
  intent: EventPayloads['tool.intent'],
  tool: Tool | undefined,
): Promise<InFlightDecision> {
  if (!tool?.fileState) return { run: true };
  return decideInFlight(intent, await tool.fileState(intent.path));
}

/** Splits calls into batches run one after another: a run of `parallel` tools' calls, or one call. */
function toolBatches(calls: readonly ToolCall[], toolsByName: Map<string, Tool>): ToolCall[][] {
  const batches: ToolCall[][] = [];
  let parallelBatch: ToolCall[] | null = null;
  for (const call of calls) {
    if (toolsByName.get(call.name)?.parallel) {
      if (!parallelBatch) {
        parallelBatch = [];
        batches.push(parallelBatch);
      }
      parallelBatch.push(call);
    } else {
      parallelBatch = null;
      batches.push([call]);
    }
  }
  return batches;
}

/** Nothing the model emits can crash the loop: unknown tools, bad JSON and tool crashes become error results. */
async function invokeTool(
  call: ToolCall,
  toolsByName: Map<string, Tool>,
  context: ToolContext,
): Promise<ToolResult> {
  const tool = toolsByName.get(call.name);
  if (!tool) {
    return {
      isError: true,
      content: `unknown tool "${call.name}"; available tools: ${[...toolsByName.keys()].join(', ')}`,
    };
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (err) {
    return {
      isError: true,
      content: `arguments for ${call.name} are not valid JSON (${(err as Error).message}); send a JSON object`,
    };
  }
  try {
    return await tool.run(args, context);
  } catch (err) {
    return { isError: true, content: `tool ${call.name} failed: ${(err as Error).message}` };
  }
}

function appendFor(
  deps: AgentDeps,
  spec: AgentSpec,
  kind: Parameters<EventLog['append']>[0]['kind'],
  data: unknown,
) {
  // The payload types are checked at each call site above; the log stores JSON.
  return deps.log.append(eventOf(spec.runId, spec.name, kind, data as never));
}
