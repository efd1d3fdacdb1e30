/**
 * Direct messages interrupt: the agent loop calls this before every model request
 * (`AgentDeps.beforeModelCall`); unread direct messages come back as user messages, ahead of the
 * model's next turn, are marked read and logged as `message.delivered` via `interrupt`.
 */
import type { Message } from '../model/types.js';
import type { CoordMessage, MessageService } from './messages.js';
import { USER_SENDER } from './types.js';

export function formatDirectMessage(message: Pick<CoordMessage, 'from' | 'text'>): string {
  const who = message.from === USER_SENDER ? 'the user' : message.from;
  return `[Direct message from ${who} — read this first] ${message.text}`;
}

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
