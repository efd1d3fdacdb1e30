/** How much of a model request is coordination: the peers benchmark's `coordinationInputShare`. */
import type { ModelRequest } from '../../src/model/types.js';

export const COORDINATION_TOOLS = new Set([
  'context_read',
  'context_post',
  'context_unfold',
  'message_send',
  'message_read',
  'claim',
  'release',
  'claim_next',
  'tasks_add',
  'tasks_ready',
]);

/** Request characters in coordination tool calls and results, and all of them (system prompt included). */
export function coordinationChars(request: ModelRequest): { coordination: number; total: number } {
  let coordination = 0;
  let total = request.system.length;
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      for (const c of message.toolCalls) {
        const size = c.name.length + c.arguments.length;
        total += size;
        if (COORDINATION_TOOLS.has(c.name)) coordination += size;
      }
      total += message.content.length;
    } else {
      total += message.content.length;
      if (message.role === 'tool' && COORDINATION_TOOLS.has(message.name))
        coordination += message.content.length;
    }
  }
  return { coordination, total };
}
