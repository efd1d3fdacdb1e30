/**
 * Tools on hostile files: a FIFO nobody writes to (a plain open() of it blocks forever), a 1 GiB
 * sparse file, a 1 GiB file whose first 8 KiB are text, and a 48 MiB line. `read`, `grep`, `ls`,
 * `edit` and `bash` must answer quickly with a clear error or a capped result, and never hold a gigabyte in
 * memory: the peak RSS of this process during the call is sampled and must stay within 200 MB of
 * where it started.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASH_MAX_OUTPUT_CHARS, createBashTool } from '../../../src/agent/tools/bash.js';
import { createEditTool } from '../../../src/agent/tools/edit.js';
import { createGrepTool } from '../../../src/agent/tools/grep.js';
import { createLsTool } from '../../../src/agent/tools/ls.js';
import { createReadTool } from '../../../src/agent/tools/read.js';
import { createWriteTool } from '../../../src/agent/tools/write.js';
import type { ToolResult } from '../../../src/tool/types.js';
import { tempDir } from './helpers.js';

const GIB = 1024 ** 3;
const MAX_RSS_GROWTH = 200 * 1024 * 1024;

let root: string;
let cleanup = () => {};

beforeAll(() => {
  ({ dir: root, cleanup } = tempDir('colony-hostile-'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  writeFileSync(path.join(root, 'ok.txt'), 'needle in a text file\n');
  // 1 GiB of holes: costs no disk, reads back as zeros.
  writeFileSync(path.join(root, 'sparse.bin'), '');
  truncateSync(path.join(root, 'sparse.bin'), GIB);
  // 1 GiB whose first 8 KiB are text lines (so a binary check of the head passes), then holes.
  const head = Array.from({ length: 512 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}`).join('\n');
  const text = `${head}\n`.padEnd(8192, 'x');
  writeFileSync(path.join(root, 'text-head.log'), text);
  truncateSync(path.join(root, 'text-head.log'), GIB);
  // One 48 MiB line of text (no NUL, no newline) that matches a pattern at its start.
  const fd = openSync(path.join(root, 'one-line.txt'), 'w');
  writeSync(fd, 'needle ');
  const block = Buffer.alloc(1024 * 1024, 'a');
  for (let i = 0; i < 48; i++) writeSync(fd, block);
  closeSync(fd);
});

afterAll(() => {
  // A reader stuck in open() of the FIFO (the failure this file tests for) is released by a writer.
  try {
    closeSync(openSync(path.join(root, 'pipe'), 'r+'));
  } catch {
    // no FIFO, nothing to release
  }
  cleanup();
});

interface Measured {
  result: ToolResult;
  ms: number;
  rssGrowth: number;
}

/** Runs `work` with a time limit, sampling RSS every 5 ms; a hang fails with a message, not a time-out. */
async function measured(label: string, limitMs: number, work: () => Promise<ToolResult>): Promise<Measured> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label} did not return within ${limitMs} ms`)), limitMs);
    });
    const result = await Promise.race([work(), hung]);
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, ms: performance.now() - started, rssGrowth: peak - before };
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
  }
}

describe('read on hostile files', () => {
  it('refuses a FIFO at once instead of blocking in open()', async () => {
    const m = await measured('read pipe', 3000, () => createReadTool(root).run({ path: 'pipe' }, {}));
    expect(m.result.isError).toBe(true);
    expect(m.result.content).toBe('pipe is a FIFO (named pipe), not a regular file; read only reads files');
  });

  it('reports a 1 GiB sparse file as binary without reading it', async () => {
    const m = await measured('read sparse', 3000, () => createReadTool(root).run({ path: 'sparse.bin' }, {}));
    expect(m.result).toEqual({
      isError: true,
      content: `sparse.bin looks like a binary file (${GIB} bytes); not shown`,
    });
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('pages a 1 GiB file with a text head: capped lines, bounded memory, a note on where to go on', async () => {
    const tool = createReadTool(root);
    const m = await measured('read text-head', 10_000, () => tool.run({ path: 'text-head.log' }, {}));
    expect(m.result.isError).toBe(false);
    const lines = m.result.content.split('\n');
    expect(lines[0]).toBe('1\tline 001');
    expect(lines[511]).toBe('512\tline 512');
    // Line 513 is 3.5 KiB of x and then ~1 GiB of zeros: cut, and the scan stopped inside it.
    expect(lines[512]).toMatch(/^513\tx{2000}… \[line truncated, more than \d+ bytes\]$/);
    expect(lines).toHaveLength(514);
    expect(lines.at(-1)).toMatch(/^\(stopped reading after \d+ MiB of a 1024 MiB file; .*bash/);
    expect(m.result.content.length).toBeLessThan(120_000);
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    expect(m.ms).toBeLessThan(5000);

    const far = await measured('read far offset', 10_000, () =>
      tool.run({ path: 'text-head.log', offset: 5000 }, {}),
    );
    expect(far.result.isError).toBe(true);
    expect(far.result.content).toMatch(/^stopped reading text-head.log after \d+ MiB .* before line 5000/);
    expect(far.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('cuts a 48 MiB line without holding it', async () => {
    const m = await measured('read one-line', 10_000, () =>
      createReadTool(root).run({ path: 'one-line.txt' }, {}),
    );
    expect(m.result.isError).toBe(false);
    expect(m.result.content).toBe(
      `1\tneedle ${'a'.repeat(1993)}… [line truncated, ${7 + 48 * 1024 * 1024} bytes]`,
    );
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });
});

describe('grep, ls and edit on hostile files', () => {
  it('grep refuses a FIFO named as its path and skips one met while recursing', async () => {
    const tool = createGrepTool(root);
    const named = await measured('grep pipe', 5000, () => tool.run({ pattern: 'x', path: 'pipe' }, {}));
    expect(named.result).toEqual({
      isError: true,
      content: 'pipe is a FIFO (named pipe), not a regular file or folder; grep searches files and folders',
    });
    const all = await measured('grep tree', 10_000, () => tool.run({ pattern: 'needle' }, {}));
    expect(all.result.isError).toBe(false);
    expect(all.result.content).toContain('ok.txt:1: needle in a text file');
  });

  it('grep skips a 1 GiB sparse file quickly', async () => {
    const m = await measured('grep sparse', 5000, () =>
      createGrepTool(root).run({ pattern: 'x', path: 'sparse.bin' }, {}),
    );
    expect(m.result).toEqual({ isError: false, content: 'No matches.' });
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('grep cuts a 48 MiB matching line without holding it', async () => {
    const m = await measured('grep one-line', 10_000, () =>
      createGrepTool(root).run({ pattern: '^needle', path: 'one-line.txt' }, {}),
    );
    expect(m.result.isError).toBe(false);
    expect(m.result.content).toBe(`one-line.txt:1: needle ${'a'.repeat(293)}…`);
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
    expect(m.ms).toBeLessThan(5000);
  });

  it('ls names a FIFO for what it is', async () => {
    const m = await measured('ls pipe', 3000, () => createLsTool(root).run({ path: 'pipe' }, {}));
    expect(m.result).toEqual({ isError: true, content: 'pipe is a FIFO (named pipe), not a folder' });
  });

  it('edit refuses a FIFO and a file too large to edit in memory', async () => {
    const tool = createEditTool(root);
    const pipe = await measured('edit pipe', 3000, () => tool.run({ path: 'pipe', old: 'a', new: 'b' }, {}));
    expect(pipe.result).toEqual({
      isError: true,
      content: 'pipe is a FIFO (named pipe), not a regular file; edit only changes files',
    });
    const big = await measured('edit sparse', 3000, () =>
      tool.run({ path: 'text-head.log', old: 'line 001', new: 'x' }, {}),
    );
    expect(big.result.isError).toBe(true);
    expect(big.result.content).toMatch(/^text-head.log is 1024 MiB, too large to edit \(at most \d+ MiB\)/);
    expect(big.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('write refuses a FIFO (it hashes what it replaces first, and replaces only regular files)', async () => {
    const result = await createWriteTool(root).run({ path: 'pipe', content: 'x' }, {});
    expect(result).toEqual({ isError: true, content: 'pipe is a FIFO (named pipe), not a regular file' });
  });
});

describe('bash output of a hostile file', () => {
  it('keeps head and tail of 256 MiB of NUL bytes, in bounded memory', async () => {
    const m = await measured('bash cat', 20_000, () =>
      createBashTool(root).run({ command: 'head -c 268435456 sparse.bin; echo; echo tail-marker' }, {}),
    );
    expect(m.result.isError).toBe(false);
    expect(m.result.content).toContain(
      `characters cut from the middle of the output (${256 * 1024 * 1024 + 13} in total)`,
    );
    expect(m.result.content).toMatch(/tail-marker\n\n\[exit code 0\]$/);
    expect(m.result.content.length).toBeLessThan(BASH_MAX_OUTPUT_CHARS + 200);
    expect(m.rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });
});
