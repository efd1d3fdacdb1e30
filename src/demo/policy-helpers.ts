/**
 * What the scripted demo policies share: the tool calls made so far in a conversation (with their
 * results, so a policy can react to what the real tools returned), the task it was given, and a
 * one-tool-call turn.
 */
import type { ScriptedTurn } from '../model/providers/scripted.js';
import type { Message } from '../model/types.js';

export interface ToolExchange {
  name: string;
  args: Record<string, unknown>;
  /** args.path when it is a string (read/edit/ls calls). */
  path: string | undefined;
  /** The tool's result ('' while it has none). */
  result: string;
  isError: boolean;
}

/** Every tool call of the assistant so far, in order, each with its result. */
export function toolExchanges(messages: readonly Message[]): ToolExchange[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const out: ToolExchange[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.arguments) as Record<string, unknown>;
      } catch {
        // Our own calls are valid JSON; leave args empty otherwise.
      }
      const result = results.get(call.id);
      out.push({
        name: call.name,
        args,
        path: typeof args.path === 'string' ? args.path : undefined,
        result: result?.content ?? '',
        isError: result?.isError ?? false,
      });
    }
  }
  return out;
}

/** The first user message: the task the agent was given ('' when there is none). */
export function taskText(messages: readonly Message[]): string {
  return messages.find((m) => m.role === 'user')?.content ?? '';
}

/** A turn that says `text` and makes one tool call. */
export function toolCall(text: string, name: string, args: Record<string, unknown>): ScriptedTurn {
  return { text, toolCalls: [{ name, arguments: args }] };
}
