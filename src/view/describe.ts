/** Short one-line descriptions of what an agent did, for "last action" columns. Browser-safe. */

/** The first line of `text`, cut to `max` characters. */
export function oneLine(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const ARG_KEYS = ['path', 'command', 'scope', 'summary', 'pattern', 'to', 'channel', 'note', 'text', 'task'];

/** A tool call from its name and raw arguments: `bash npm test`, `edit src/a.ts`. */
export function describeToolCall(name: string, args: string): string {
  try {
    const parsed = JSON.parse(args) as Record<string, unknown>;
    const key = ARG_KEYS.find((k) => typeof parsed[k] === 'string');
    return key ? `${name} ${oneLine(String(parsed[key]), 100)}` : name;
  } catch {
    return name;
  }
}
