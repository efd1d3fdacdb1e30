/**
 * Tools with a step after every call that changes files (a fleet worker pushes the agent's work in
 * progress there, before the result is logged: a logged edit is never lost with its worker).
 */
import type { Tool } from './types.js';
/** The same tools, each mutating one followed by `after` before its result goes back to the loop. */
export function withAfterMutation(tools: Tool[], after: () => Promise<void>): Tool[] {
  return tools.map(
    (tool): Tool =>
      tool.mutates
        ? {
            ...tool,
            run: async (args, context) => {
              const result = await tool.run(args, context);
              await after();
              return result;
            },
            // A call completed from its file after a crash changed the checkout all the same: its
            // result is logged only after the same step (the soak lost a write whose worker died
            // after the replay logged it unpushed).
            afterRecovered: async () => {
              await tool.afterRecovered?.();
              await after();
            },
          }
        : tool,
  );
}
