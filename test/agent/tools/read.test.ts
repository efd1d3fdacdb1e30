import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReadTool, READ_DEFAULT_LIMIT } from '../../../src/agent/tools/read.js';
import { tempDir } from './helpers.js';

describe('read tool', () => {
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups.push(a.cleanup, b.cleanup);
    writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('returns numbered lines', async () => {
    const result = await createReadTool(root).run({ path: 'a.txt' }, {});
    expect(result).toEqual({ isError: false, content: '1\tone\n2\ttwo\n3\tthree' });
  });

  it('pages with offset and limit and says what remains', async () => {
    const result = await createReadTool(root).run({ path: 'a.txt', offset: 2, limit: 1 }, {});
    expect(result.isError).toBe(false);
    expect(result.content).toBe('2\ttwo\n(1 more lines; continue with offset=3)');
    const past = await createReadTool(root).run({ path: 'a.txt', offset: 9 }, {});
    expect(past.content).toContain('past the end');
  });

  it('uses a default limit of 2000 lines', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n');
    writeFileSync(path.join(root, 'long.txt'), lines);
    const result = await createReadTool(root).run({ path: 'long.txt' }, {});
    const out = result.content.split('\n');
    expect(out[READ_DEFAULT_LIMIT - 1]).toBe(`${READ_DEFAULT_LIMIT}\tline ${READ_DEFAULT_LIMIT}`);
    expect(out.at(-1)).toBe('(500 more lines; continue with offset=2001)');
  });

  it('truncates very long lines', async () => {
    writeFileSync(path.join(root, 'wide.txt'), 'x'.repeat(5000));
    const result = await createReadTool(root).run({ path: 'wide.txt' }, {});
    expect(result.content.length).toBeLessThan(2100);
    expect(result.content).toContain('line truncated, 5000 chars');
  });

  it('refuses escapes: ../, absolute paths outside, symlinks outside', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const tool = createReadTool(root);
    for (const p of ['../secret.txt', '/etc/passwd', path.join(outside, 'secret.txt'), 'link.txt']) {
      const result = await tool.run({ path: p }, {});
      expect(result.isError, p).toBe(true);
      expect(result.content).not.toContain('top secret');
      expect(result.content).not.toContain('root:');
    }
  });

  it('reports missing files, folders and binary files as errors', async () => {
    mkdirSync(path.join(root, 'dir'));
    writeFileSync(path.join(root, 'bin'), Buffer.from([1, 0, 2, 3]));
    const tool = createReadTool(root);
    expect(await tool.run({ path: 'nope.txt' }, {})).toEqual({
      isError: true,
      content: 'file not found: nope.txt',
    });
    expect((await tool.run({ path: 'dir' }, {})).content).toContain('is a directory');
    expect((await tool.run({ path: 'bin' }, {})).content).toContain('binary');
  });

  it('turns invalid arguments into a readable error result', async () => {
    const tool = createReadTool(root);
    const missing = await tool.run({}, {});
    expect(missing.isError).toBe(true);
    expect(missing.content).toContain('Invalid arguments for read');
    expect(missing.content).toContain('path');
    const bad = await tool.run({ path: 'a.txt', offset: 0 }, {});
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain('offset');
    expect((await tool.run('not an object', {})).isError).toBe(true);
    expect((await tool.run(null, {})).isError).toBe(true);
  });

  it('has a JSON-schema spec', () => {
    const { spec } = createReadTool(root);
    expect(spec.name).toBe('read');
    expect(spec.parameters).toMatchObject({
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' }, offset: { type: 'integer', minimum: 1 } },
    });
    expect(JSON.stringify(spec.parameters)).not.toContain('$schema');
    expect(JSON.stringify(spec.parameters)).not.toContain('9007199254740991');
  });
});
