/** How much of a model request is coordination: the peers benchmark's `coordinationInputShare`. */
import { COORDINATION_TOOL_NAMES } from '../../src/coord/tools/index.js';
import type { ModelRequest } from '../../src/model/types.js';

/** The coordination tools (coord/tools): their calls and results are what the share counts. */
export const COORDINATION_TOOLS: ReadonlySet<string> = new Set(COORDINATION_TOOL_NAMES);

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
