/**
 * Direct messages interrupt: the agent loop calls this before every model request
 * (`AgentDeps.beforeModelCall`); unread direct messages come back as user messages, ahead of the
 * model's next turn, are marked read and logged as `message.delivered` via `interrupt`.
 */
import { formatDirectMessage } from '../agent/direct-message.js';
import type { Message } from '../model/types.js';
import type { MessageService } from './messages.js';

export function directMessageInjector(
  messages: MessageService,
  runId: string,
  agent: string,
): () => Promise<Message[]> {
  return async () => {
    const taken = await messages.takeDirect(runId, agent, 'interrupt');
    // A failed check must not stop the agent; the messages stay unread for the next check.
    if (!taken.ok) return [];
    return taken.value.map((m) => ({ role: 'user' as const, content: formatDirectMessage(m) }));
  };
}
