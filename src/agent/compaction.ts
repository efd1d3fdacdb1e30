/**
 * Compaction: when a conversation nears the model's context window, older turns are replaced by a
 * summary; the task (first message) and the most recent turns are kept. The summary is mechanical
 * (which tools ran and how they ended), so compaction costs no model call and replays exactly.
 */
import type { Message } from '../model/types.js';

const KEEP_RECENT = 8;

export interface CompactionPlan {
  /** Messages after the task that the summary replaces. */
  replacedMessages: number;
  summary: string;
}

/** Rough token estimate (≈4 characters per token), used only to decide when to compact. */
export function estimateTokens(system: string, messages: readonly Message[]): number {
  let chars = system.length;
  for (const message of messages) {
    chars += message.content.length;
    if (message.role === 'assistant')
      for (const call of message.toolCalls) chars += call.arguments.length + call.name.length;
  }
  return Math.ceil(chars / 4);
}

export function planCompaction(messages: readonly Message[]): CompactionPlan | null {
  // Keep messages[0] (the task). Cut so the kept tail starts at an assistant message, never
  // between a tool call and its result.
  let cut = messages.length - KEEP_RECENT;
  while (cut > 1 && messages[cut]?.role !== 'assistant') cut -= 1;
  if (cut <= 1) return null;
  const replaced = messages.slice(1, cut);
  return { replacedMessages: replaced.length, summary: summarise(replaced) };
}

export function applyCompaction(
  messages: readonly Message[],
  replacedMessages: number,
  summary: string,
): Message[] {
  const [task, ...rest] = messages;
  if (!task) return [...messages];
  return [task, { role: 'user', content: summary }, ...rest.slice(replacedMessages)];
}

function summarise(messages: readonly Message[]): string {
  const lines = ['[Earlier turns were compacted to fit the context window. Summary of what happened:]'];
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (message.content.trim()) lines.push(`- you said: ${firstLine(message.content, 200)}`);
      for (const call of message.toolCalls)
        lines.push(`- you called ${call.name} ${firstLine(call.arguments, 160)}`);
    } else if (message.role === 'tool') {
      lines.push(`  → ${message.isError ? 'error' : 'result'}: ${firstLine(message.content, 160)}`);
    } else {
      lines.push(`- note: ${firstLine(message.content, 200)}`);
    }
  }
  return lines.join('\n');
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
