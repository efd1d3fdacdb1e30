/**
 * What an agent gets over MCP, built for the token's agent only: the coordination tools
 * (coord/tools/) and, where the host has the agent's repository and the run's integration queue,
 * merge_request, merge_status and sync (workspace/integration/tools.ts). whoami is added by the
 * servers themselves. Not the coder tools (read, write, bash…): an external agent has its own.
 */
import type { AgentTokenClaims } from '../auth/index.js';
import { type Coordination, createCoordinationTools } from '../coord/index.js';
import type { Result } from '../lang/result.js';
import { fail, type Tool } from '../tool/types.js';
import {
  createMergeRequestTool,
  createMergeStatusTool,
  createSyncTool,
  type IntegrationToolContext,
} from '../workspace/integration/tools.js';
import type { ToolsFor } from './http-handler.js';

export const INTEGRATION_TOOL_NAMES = ['merge_request', 'merge_status', 'sync'] as const;

export interface McpAgentToolsOptions {
  coord: Coordination;
  /**
   * The agent's merge tools' context: its repository, branch, publish and the queue as it reaches it
   * (`agent` must be the token's agent). Absent: coordination tools only. An error keeps the three
   * tools listed, each answering the error (the agent learns why, not that they vanished).
   */
  integrationFor?(claims: AgentTokenClaims): Promise<Result<IntegrationToolContext>>;
}

export function mcpAgentTools(options: McpAgentToolsOptions): ToolsFor {
  return async (claims) => {
    const coordination = createCoordinationTools(options.coord, claims.runId, claims.agent);
    if (!options.integrationFor) return coordination;
    const ctx = await options.integrationFor(claims);
    if (!ctx.ok) return [...coordination, ...unavailable(ctx.error)];
    if (ctx.value.agent !== claims.agent || ctx.value.runId !== claims.runId)
      throw new Error(`integration context of ${ctx.value.agent} offered to ${claims.agent}`);
    return [
      ...coordination,
      createMergeRequestTool(ctx.value),
      createMergeStatusTool(ctx.value),
      createSyncTool(ctx.value),
    ];
  };
}

function unavailable(error: string): Tool[] {
  return INTEGRATION_TOOL_NAMES.map((name) => ({
    spec: { name, description: `Unavailable: ${error}`, parameters: { type: 'object', properties: {} } },
    mutates: false,
    run: async () => fail(`${name} is unavailable: ${error}`),
  }));
}
