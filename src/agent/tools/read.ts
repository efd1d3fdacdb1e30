/** `read {path, offset?, limit?}`: numbered lines of a text file, paged. */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { resolveInside } from '../paths.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** Total characters per call; a page stops early (with a note) rather than flood the context. */
export const READ_MAX_CHARS = 100_000;

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the worktree root.'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based). Default 1.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines to return. Default ${READ_DEFAULT_LIMIT}.`),
});

export function createReadTool(root: string): Tool {
  return defineTool({
    name: 'read',
    description:
      'Read a text file. Returns lines prefixed with their 1-based line number and a tab. ' +
      `Reads up to ${READ_DEFAULT_LIMIT} lines by default; use offset/limit to page through long files. ` +
      `Lines longer than ${READ_MAX_LINE_CHARS} characters are truncated.`,
    schema,
    mutates: false,
    async run(args) {
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      const info = await stat(resolved.abs).catch(() => null);
      if (!info) return fail(`file not found: ${resolved.rel}`);
      if (info.isDirectory()) return fail(`${resolved.rel} is a directory; use ls to list it`);
      const buffer = await readFile(resolved.abs);
      if (buffer.subarray(0, 8192).includes(0)) {
        return fail(`${resolved.rel} looks like a binary file (${buffer.length} bytes); not shown`);
      }
      return ok(formatPage(resolved.rel, buffer.toString('utf8'), args.offset ?? 1, args.limit));
    },
  });
}

function formatPage(rel: string, text: string, offset: number, limit = READ_DEFAULT_LIMIT): string {
  if (text.length === 0) return `(${rel} is empty)`;
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  if (offset > total) return `(${rel} has ${total} lines; offset ${offset} is past the end)`;
  const out: string[] = [];
  let chars = 0;
  let next = offset;
  const end = Math.min(total, offset - 1 + limit);
  for (; next <= end; next++) {
    let line = lines[next - 1] ?? '';
    if (line.length > READ_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line truncated, ${line.length} chars]`;
    }
    const formatted = `${next}\t${line}`;
    if (out.length > 0 && chars + formatted.length > READ_MAX_CHARS) break;
    out.push(formatted);
    chars += formatted.length + 1;
  }
  if (next <= total) {
    out.push(`(${total - next + 1} more lines; continue with offset=${next})`);
  }
  return out.join('\n');
}
