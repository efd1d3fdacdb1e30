/**
 * One agent's tools over MCP's stdio transport (`colony mcp`, started by the agent CLI itself). The
 * process belongs to one agent: its token was checked before this is called, and `guard` checks it
 * again before every tool call (expiry, a replaced run secret, a host's fencing), so a long-lived
 * process never outlives its token.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Tool } from '../tool/types.js';
import { createToolServer } from './tool-server.js';

export interface McpStdioOptions {
  tools: readonly Tool[];
  /** null allows the call; a string refuses it with that text (a tool error). */
  guard: () => Promise<string | null>;
  instructions?: string;
  stdin?: Readable;
  stdout?: Writable;
}

export interface McpStdioServer {
  /** Resolves when the client has gone (stdin ended) or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const server = createToolServer(options.tools, {
    guard: options.guard,
    ...(options.instructions ? { instructions: options.instructions } : {}),
  });
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  // The SDK's stdio transport does not watch for the end of its input: the client closing our stdin
  // is how it says goodbye.
  const onEnd = () => void server.close();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  await server.connect(transport);
  return {
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await server.close();
    },
  };
}
