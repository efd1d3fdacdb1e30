/** Colony's tools for one agent over MCP (docs/mcp.md). */
export { INTEGRATION_TOOL_NAMES, type McpAgentToolsOptions, mcpAgentTools } from './agent-tools.js';
export {
  createMcpHttpHandler,
  DEFAULT_MAX_MCP_BODY_BYTES,
  DEFAULT_MCP_PATH,
  type McpHttpHandler,
  type McpHttpOptions,
  type ToolsFor,
} from './http-handler.js';
export { checkMcpToken, type McpRefusal, type McpRunAccess, MISSING_TOKEN } from './identity.js';
export { renewSessionClaims } from './session-claims.js';
export { type McpStdioOptions, type McpStdioServer, serveMcpStdio } from './stdio.js';
export {
  createToolServer,
  MCP_SERVER_NAME,
  MCP_SERVER_VERSION,
  mcpResultOf,
  mcpToolOf,
  type ToolServerOptions,
} from './tool-server.js';
export { createWhoamiTool } from './whoami.js';
