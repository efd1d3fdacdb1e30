/** `whoami`: who the MCP server takes the caller for (from its verified token), and until when. */
import type { AgentTokenClaims } from '../auth/index.js';
import { defineTool, NO_ARGUMENTS } from '../tool/define.js';
import { ok, type Tool } from '../tool/types.js';

export function createWhoamiTool(claims: AgentTokenClaims, now: () => number = Date.now): Tool {
  return defineTool({
    name: 'whoami',
    description:
      'Who you are to Colony: your agent name and run (every coordination tool acts in that name), ' +
      'the scopes of your token and when it expires.',
    schema: NO_ARGUMENTS,
    mutates: false,
    async run() {
      const answer = {
        agent: claims.agent,
        run: claims.runId,
        expiresAt: new Date(claims.expiresAt).toISOString(),
        expiresInSeconds: Math.max(0, Math.floor((claims.expiresAt - now()) / 1000)),
        scopes: [...claims.scopes],
        ...(claims.epoch !== undefined ? { epoch: claims.epoch } : {}),
      };
      return ok(JSON.stringify(answer));
    },
  });
}
