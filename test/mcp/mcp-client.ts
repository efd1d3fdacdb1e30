/** Small helpers over the official MCP client for the tests of src/mcp/. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** Calls a tool and returns its text content and isError. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return {
    text: content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join(''),
    isError: result.isError === true,
  };
}

export const COORDINATION_TOOLS = [
  'context_post',
  'context_read',
  'context_unfold',
  'message_send',
  'message_read',
  'claim',
  'release',
  'tasks_add',
  'tasks_ready',
  'claim_next',
];
