import type { ToolResult } from '../tool/types.js';

/** A one-line summary of a tool result for timelines and logs (the full content is logged beside it). */
export function summariseToolResult(name: string, result: ToolResult): string {
  const lines = result.content.split('\n');
  const head = (lines[0] ?? '').slice(0, 160);
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
  return `${result.isError ? 'error' : name}: ${head}${more}`;
}
