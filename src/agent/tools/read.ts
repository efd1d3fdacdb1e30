/**
 * `read {path, offset?, limit?}`: numbered lines of a text file, paged. The file is streamed, never
 * read whole: only the lines of the page are kept (each cut to READ_MAX_LINE_CHARS), and reading
 * stops after READ_MAX_SCAN_BYTES, so a gigabyte file or a gigabyte line costs a bounded time and
 * memory. Only regular files are opened (a FIFO would block forever, see file-kind.ts).
 */
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool, type ToolResult } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { mib, openRegularFile } from './file-kind.js';
import { pathProblem } from './limits.js';
import { touchedPath } from './touched.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** Total characters per call; a page stops early (with a note) rather than flood the context. */
export const READ_MAX_CHARS = 100_000;
/** Bytes read per call at most (to reach the offset, fill the page and count the lines after it). */
export const READ_MAX_SCAN_BYTES = 128 * 1024 * 1024;
/** The head checked for NUL bytes to call a file binary. */
const BINARY_PROBE_BYTES = 8192;
const CHUNK_BYTES = 1024 * 1024;
/** Bytes kept of one line: enough for READ_MAX_LINE_CHARS characters of any UTF-8. */
const LINE_KEEP_BYTES = READ_MAX_LINE_CHARS * 4 + 4;

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
    touches: (args) => touchedPath(root, args.path),
    mutates: false,
    async run(args) {
      const tooLong = pathProblem(args.path);
      if (tooLong) return fail(tooLong);
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      const opened = await openRegularFile(resolved);
      if (!opened.ok) {
        if (opened.kind === 'missing') return fail(`file not found: ${resolved.rel}`);
        if (opened.kind === 'refused') return fail(opened.error);
        if (opened.kind === 'bad_name') return fail(`${opened.error}: ${resolved.rel}`);
        if (opened.what === 'a directory') return fail(`${resolved.rel} is a directory; use ls to list it`);
        return fail(`${resolved.rel} is ${opened.what}, not a regular file; read only reads files`);
      }
      const { handle, info } = opened;
      try {
        const probe = Buffer.alloc(Math.min(BINARY_PROBE_BYTES, Math.max(info.size, 1)));
        const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
        if (probe.subarray(0, bytesRead).includes(0)) {
          return fail(`${resolved.rel} looks like a binary file (${info.size} bytes); not shown`);
        }
        const page = new PageReader(args.offset ?? 1, args.limit ?? READ_DEFAULT_LIMIT);
        const buffer = Buffer.alloc(CHUNK_BYTES);
        let position = 0;
        for (;;) {
          const room = Math.min(CHUNK_BYTES, READ_MAX_SCAN_BYTES - position);
          if (room <= 0) break;
          const read = await handle.read(buffer, 0, room, position);
          if (read.bytesRead === 0) {
            page.end(true);
            return page.result(resolved.rel, position, info.size);
          }
          position += read.bytesRead;
          page.push(buffer.subarray(0, read.bytesRead));
        }
        page.end(false);
        return page.result(resolved.rel, position, info.size);
      } finally {
        await handle.close();
      }
    },
  });
}

/** Splits bytes into lines, keeping only the page's lines (cut) and counting the rest. */
class PageReader {
  private readonly out: string[] = [];
  private chars = 0;
  /** 1-based number of the line being read. */
  private line = 1;
  private lineBytes = 0;
  private kept: Buffer[] = [];
  private keptBytes = 0;
  /** The page is complete (limit or character cap); from here lines are only counted. */
  private full = false;
  /** First line not shown (where the next page starts). */
  private next: number;
  private readonly last: number;
  /** Lines in the file (set when the end of the file was reached). */
  private total: number | null = null;

  constructor(
    private readonly offset: number,
    limit: number,
  ) {
    this.next = offset;
    this.last = offset - 1 + limit;
  }

  private inPage(): boolean {
    return !this.full && this.line >= this.offset && this.line <= this.last;
  }

  push(bytes: Buffer): void {
    let pos = 0;
    while (pos < bytes.length) {
      const newline = bytes.indexOf(10, pos);
      const end = newline < 0 ? bytes.length : newline;
      if (this.inPage() && this.keptBytes < LINE_KEEP_BYTES) {
        const piece = bytes.subarray(pos, Math.min(end, pos + LINE_KEEP_BYTES - this.keptBytes));
        this.kept.push(Buffer.from(piece)); // a copy: the read buffer is reused
        this.keptBytes += piece.length;
      }
      this.lineBytes += end - pos;
      if (newline < 0) return;
      this.endLine(true);
      pos = newline + 1;
    }
  }

  /** `complete`: the line ended (newline or end of file); else reading stopped inside it. */
  private endLine(complete: boolean): void {
    if (this.inPage()) {
      let text = Buffer.concat(this.kept).toString('utf8');
      if (this.lineBytes > this.keptBytes || !complete) {
        const size = complete ? `${this.lineBytes} bytes` : `more than ${this.lineBytes} bytes`;
        text = `${text.slice(0, READ_MAX_LINE_CHARS)}… [line truncated, ${size}]`;
      } else if (text.length > READ_MAX_LINE_CHARS) {
        text = `${text.slice(0, READ_MAX_LINE_CHARS)}… [line truncated, ${text.length} chars]`;
      }
      const formatted = `${this.line}\t${text}`;
      if (this.out.length > 0 && this.chars + formatted.length > READ_MAX_CHARS) {
        this.full = true;
      } else {
        this.out.push(formatted);
        this.chars += formatted.length + 1;
        this.next = this.line + 1;
        if (this.line === this.last) this.full = true;
      }
    }
    this.kept = [];
    this.keptBytes = 0;
    this.lineBytes = 0;
    this.line++;
  }

  /** `eof`: the whole file was read; else reading stopped at the scan cap. */
  end(eof: boolean): void {
    if (this.lineBytes > 0) this.endLine(eof);
    if (eof) this.total = this.line - 1;
  }

  result(rel: string, scanned: number, size: number): ToolResult {
    const { total } = this;
    if (total === null) {
      const large = `for a file this large (${mib(size)}) use grep, or bash (sed -n '${this.offset},+99p' ${rel}, tail)`;
      if (this.out.length === 0) {
        return fail(
          `stopped reading ${rel} after ${mib(scanned)} (at line ${this.line}) before line ${this.offset}; ${large}`,
        );
      }
      return ok(
        `${this.out.join('\n')}\n(stopped reading after ${mib(scanned)} of a ${mib(size)} file; ` +
          `continue with offset=${this.next}, or use grep or bash (sed -n, tail) on a file this large)`,
      );
    }
    if (total === 0) return ok(`(${rel} is empty)`);
    if (this.offset > total) return ok(`(${rel} has ${total} lines; offset ${this.offset} is past the end)`);
    const out = this.out.slice();
    if (this.next <= total)
      out.push(`(${total - this.next + 1} more lines; continue with offset=${this.next})`);
    return ok(out.join('\n'));
  }
}
