/**
 * An agent's conversation is a pure function of its logged events. A fresh agent and a recovered
 * one are the same thing: the loop rebuilds its state here and carries on from the last logged step,
 * so no completed model call or tool call is ever repeated.
 */

import type { EventPayloads, StoredEvent } from '../core/events.js';
import type { Message, ToolCall } from '../model/types.js';
import { applyCompaction } from './compaction.js';
import { formatDirectMessage } from './direct-message.js';

export interface ConversationState {
  messages: Message[];
  /** Model responses logged so far. */
  steps: number;
  /** Tool calls of the last model response that have no logged result yet, in order. */
  pendingCalls: ToolCall[];
  /** True when the last model response asked for no tools: the agent gave its final answer. */
  answered: boolean;
  /**
   * True when the last model response was cut off at the output-token limit: its tool calls may have
   * incomplete arguments, so the loop refuses them instead of running them.
   */
  truncated: boolean;
  finalText: string;
  /** Set when the agent already finished (agent.finished logged). */
  finished: { status: 'done' | 'failed' | 'stopped'; stopReason: string; reason: string } | null;
  /** Direct messages delivered as an interrupt, waiting to go in front of the next model turn. */
  interrupts: Message[];
  /**
   * The last `tool.intent` of each pending call that logged one (by call id): a file change that may
   * or may not have been made when the process died (agent/in-flight.ts).
   */
  intents: Map<string, EventPayloads['tool.intent']>;
}

export function initialConversation(task: string): ConversationState {
  return {
    messages: [{ role: 'user', content: task }],
    steps: 0,
    pendingCalls: [],
    answered: false,
    truncated: false,
    finalText: '',
    finished: null,
    interrupts: [],
    intents: new Map(),
  };
}

/** Rebuilds the conversation from one agent's events, in log order. */
export function replayConversation(task: string, events: readonly StoredEvent[]): ConversationState {
  const state = initialConversation(task);
  for (const event of events) applyEvent(state, event);
  // Delivered but not yet answered (a crash before the model call): they go into the next request.
  state.messages.push(...state.interrupts);
  state.interrupts = [];
  return state;
}

export function applyEvent(state: ConversationState, event: StoredEvent): void {
  switch (event.kind) {
    case 'model.response': {
      const { turn } = event.data;
      // Interrupts were in the request that produced this turn, after its tool results. (Their
      // delivery event may commit before the last tool result's, so placement is by turn, not seq.)
      state.messages.push(...state.interrupts);
      state.interrupts = [];
      state.messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
      state.steps += 1;
      state.pendingCalls = [...turn.toolCalls];
      state.intents.clear();
      state.answered = turn.toolCalls.length === 0;
      state.truncated = turn.stopReason === 'max_tokens';
      state.finalText = turn.text;
      return;
    }
    case 'tool.finished': {
      const data = event.data;
      state.messages.push({
        role: 'tool',
        toolCallId: data.callId,
        name: data.name,
        content: data.content,
        isError: data.isError,
      });
      state.pendingCalls = state.pendingCalls.filter((call) => call.id !== data.callId);
      state.intents.delete(data.callId);
      return;
    }
    case 'tool.intent': {
      const data = event.data;
      if (state.pendingCalls.some((call) => call.id === data.callId)) state.intents.set(data.callId, data);
      return;
    }
    case 'message.delivered': {
      const data = event.data;
      if (data.via !== 'interrupt') return;
      // Delivered after an answer (AgentDeps.beforeFinish): the conversation goes on with them.
      if (state.answered && (data.messages?.length ?? 0) > 0) state.answered = false;
      for (const message of data.messages ?? []) {
        state.interrupts.push({ role: 'user', content: formatDirectMessage(message) });
      }
      return;
    }
    case 'compaction': {
      const data = event.data;
      state.messages = applyCompaction(state.messages, data.replacedMessages, data.summary);
      return;
    }
    case 'task.started': {
      // A further task for a subagent that keeps its context (orchestrated topology); the first task
      // is the conversation's opening message.
      const data = event.data;
      if (data.index === 0) return;
      state.messages.push({ role: 'user', content: data.prompt });
      state.finished = null;
      state.answered = false;
      state.truncated = false;
      state.pendingCalls = [];
      state.intents.clear();
      return;
    }
    case 'agent.finished': {
      const data = event.data;
      state.finished = { status: data.status, stopReason: data.stopReason, reason: data.reason };
      return;
    }
    default:
      return;
  }
}
