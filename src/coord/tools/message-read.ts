/** `message_read {}`: unread direct and channel messages, marked read. */
import { defineTool, NO_ARGUMENTS } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';
import { formatMessages } from './format.js';

export function createMessageReadTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'message_read',
    description:
      'Read your unread messages: direct messages to you and messages on your channels (all, and those you joined).',
    schema: NO_ARGUMENTS,
    mutates: false,
    async run() {
      const read = await coord.messages.read(runId, agent, 'message_read');
      if (!read.ok) return fail(read.error);
      const lines = formatMessages(read.value.direct, read.value.channel, read.value.more);
      return ok(lines.length > 0 ? lines.join('\n') : 'No unread messages.');
    },
  });
}
