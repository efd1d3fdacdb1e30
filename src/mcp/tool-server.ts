/**
 * Colony `Tool`s as an MCP server: tools/list answers each tool's name, description and JSON schema
 * (the schema the agent loop gives models), tools/call runs the tool and answers its text with
 * `isError`. Tools validate their own arguments, so bad arguments come back as a tool error the agent
 * can read, never as a crash. One server serves one agent's tools; who the agent is was decided
 * before the server was built (http-handler.ts, stdio.ts).
 */
// `Server` is the SDK's low-level server. Its JSDoc steers simple servers to `McpServer`, whose
// registerTool takes zod schemas; Colony's tools carry plain JSON schemas (Tool.spec.parameters),
// which is the "advanced use" the low-level server is kept for.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../tool/define.js';
import type { Tool, ToolResult } from '../tool/types.js';

export const MCP_SERVER_NAME = 'colony';
export const MCP_SERVER_VERSION = '0.1.0';

export interface ToolServerOptions {
  /** Shown to the client at initialisation (what this server is for). */
  instructions?: string;
  /**
   * Runs before every tool call: null lets it run, a string refuses it with that text as a tool
   * error (stdio re-checks its token here; HTTP checks it per request before building the server).
   */
  guard?: () => Promise<string | null>;
}

/** The MCP description of one tool. */
export function mcpToolOf(tool: Tool): McpTool {
  const { name, description, parameters } = tool.spec;
  return { name, description, inputSchema: { ...parameters, type: 'object' } };
}

/**
 * A protocol error for a request handler to throw. Not the SDK's McpError: its message already
 * starts "MCP error <code>: ", the server sends that message as is and the client's McpError adds
 * the prefix again ("MCP error -32602: MCP error -32602: …"). The server takes `code` from any error.
 */
export function protocolError(code: ErrorCode, message: string): Error & { code: ErrorCode } {
  return Object.assign(new Error(message), { code });
}

/** A Colony tool result as an MCP tool result. */
export function mcpResultOf(result: ToolResult): CallToolResult {
  return { content: [{ type: 'text', text: result.content }], isError: result.isError };
}

export function createToolServer(tools: readonly Tool[], options: ToolServerOptions = {}): Server {
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(mcpToolOf) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    // An unknown tool is a protocol error (the MCP spec's choice), not a tool result.
    if (!tool)
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown tool ${name} (tools: ${[...byName.keys()].join(', ')})`,
      );
    const refusal = await options.guard?.();
    if (refusal) return mcpResultOf({ content: refusal, isError: true });
    try {
      return mcpResultOf(await tool.run(args ?? {}, { signal: extra.signal }));
    } catch (error) {
      // Tools built with defineTool never throw; a hand-written one still must not end the session.
      return mcpResultOf({ content: `${name} failed: ${errorMessage(error)}`, isError: true });
    }
  });
  return server;
}
