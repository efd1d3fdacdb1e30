/** `message_send {to?, channel?, text}`: a direct message to one agent, or a channel message. */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import type { Coordination } from '../coordination.js';

const schema = z.object({
  to: z
    .string()
    .optional()
    .describe('Agent name for a direct message; it interrupts the receiver (shown before its next step).'),
  channel: z
    .string()
    .optional()
    .describe('Channel name: "all" reaches every agent of the run; sending to another name joins it.'),
  text: z.string().describe('The message.'),
});

export function createMessageSendTool(coord: Coordination, runId: string, agent: string): Tool {
  return defineTool({
    name: 'message_send',
    description:
      'Send a message: give `to` for a direct message to one agent (it interrupts them), or `channel` ' +
      '(default "all", everyone in the run). Use direct messages to settle overlapping claims.',
    schema,
    mutates: false,
    async run(args) {
      const sent = await coord.messages.send({
        runId,
        from: agent,
        to: args.to ?? null,
        channel: args.channel ?? null,
        text: args.text,
      });
      if (!sent.ok) return fail(sent.error);
      const where = sent.value.to !== null ? `to ${sent.value.to}` : `on channel #${sent.value.channel}`;
      return ok(`Sent message ${sent.value.id} ${where}.`);
    },
  });
}
