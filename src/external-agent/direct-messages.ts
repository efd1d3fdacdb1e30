/**
 * Direct messages for a CLI that cannot take them while it runs (Codex's `exec`, a `cmd:` agent):
 * they come with its next Colony tool result over MCP, after the result itself, and are marked read
 * (the injector logs their delivery). One mechanism for any MCP-speaking CLI; a CLI that takes
 * stream-json input (Claude Code) gets them on its stdin instead (cli-process.ts).
 */
import type { Message } from '../model/types.js';
import type { Tool } from '../tool/types.js';

export function withDirectMessages(tools: readonly Tool[], messages: () => Promise<Message[]>): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    async run(args, context) {
      const result = await tool.run(args, context);
      const unread = (await messages()).filter((m) => m.role === 'user').map((m) => m.content);
      if (unread.length === 0) return result;
      return { ...result, content: [result.content, ...unread].join('\n\n') };
    },
  }));
}
