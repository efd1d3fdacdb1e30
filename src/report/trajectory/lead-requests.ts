/**
 * The lead's model requests, rebuilt from its logged events with the loop's own replay
 * (agent/conversation.ts): the log keeps each response whole but only the message count of each
 * request, and a request is a pure function of the events before its response.
 */
import { applyEvent, initialConversation } from '../../agent/conversation.js';
import type { StoredEvent } from '../../core/events.js';
import type { LeadRequest } from './types.js';

/** Each of the agent's `model.response` steps → the request that produced it. */
export function leadRequests(agent: string, events: readonly StoredEvent[]): Map<number, LeadRequest> {
  const requests = new Map<number, LeadRequest>();
  const own = events.filter((e) => e.agent === agent);
  const started = own.find((e): e is StoredEvent<'agent.started'> => e.kind === 'agent.started');
  if (!started) return requests;
  const state = initialConversation(started.data.task);
  for (const event of own) {
    if (event.kind === 'model.response') {
      const { step } = (event as StoredEvent<'model.response'>).data;
      // Interrupts delivered since the last response were sent after the tool results (as replayed).
      const messages = structuredClone([...state.messages, ...state.interrupts]);
      requests.set(step, { system: started.data.system, tools: [...started.data.tools], messages });
    }
    applyEvent(state, event);
  }
  return requests;
}
