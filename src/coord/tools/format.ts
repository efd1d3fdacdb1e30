/** Text the coordination tools show the model. */
import type { ContextEntry, ContextGist } from '../context.js';
import type { CoordMessage } from '../messages.js';
import type { BoardTask, TaskCounts } from '../task-queries.js';
import { USER_SENDER } from '../types.js';

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatGist(gist: ContextGist): string {
  const scope = gist.scope && gist.scope.length > 0 ? ` [${gist.scope.join(', ')}]` : '';
  const more = gist.hasDetail ? ' (+detail)' : '';
  return `#${gist.id} ${gist.kind} ${gist.author}${scope}: ${gist.summary}${more}`;
}

export function formatEntry(entry: ContextEntry): string {
  const lines = [`#${entry.id} ${entry.kind} by ${entry.author} at ${entry.createdAt}`];
  if (entry.scope && entry.scope.length > 0) lines.push(`scope: ${entry.scope.join(', ')}`);
  lines.push(`summary: ${entry.summary}`);
  lines.push(entry.detail === null ? 'detail: (none)' : `detail:\n${entry.detail}`);
  return lines.join('\n');
}

function sender(from: string): string {
  return from === USER_SENDER ? 'the user' : from;
}

export function formatMessage(message: CoordMessage): string {
  const where = message.channel !== null ? `[#${message.channel}] ` : '[direct] ';
  return `${where}${sender(message.from)} (message ${message.id}): ${message.text}`;
}

/** The message sections of message_read / context_read; empty when there is nothing. */
export function formatMessages(direct: CoordMessage[], channel: CoordMessage[], more: boolean): string[] {
  const lines: string[] = [];
  if (direct.length > 0) {
    lines.push(`Direct messages (${direct.length}):`);
    for (const m of direct) lines.push(formatMessage(m));
  }
  if (channel.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(`Channel messages (${channel.length}):`);
    for (const m of channel) lines.push(formatMessage(m));
  }
  if (more) lines.push('(more unread messages: call message_read again)');
  return lines;
}

/** One board task on one line: `#5 [src/b.ts] title (after #2, #3) (+detail)`. */
export function formatTask(task: BoardTask): string {
  const after = task.after.length > 0 ? ` (after ${task.after.map((id) => `#${id}`).join(', ')})` : '';
  const more = task.detail !== null ? ' (+detail)' : '';
  return `#${task.id} [${task.scope}] ${task.title}${after}${more}`;
}

export function formatCounts(c: TaskCounts): string {
  const parts = [
    `${c.ready} ready for you`,
    `${c.blocked} blocked by unfinished predecessors`,
    `${c.claimed} claimed by others`,
  ];
  if (c.failedByYou > 0) parts.push(`${c.failedByYou} you released unfinished before`);
  const dropped = c.dropped > 0 ? `, ${c.dropped} dropped` : '';
  return `Board: ${c.open} open (${parts.join(', ')}), ${c.done} done${dropped}.`;
}
