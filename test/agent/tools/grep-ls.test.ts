import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrepTool, GREP_MAX_RESULTS } from '../../../src/agent/tools/grep.js';
import { createLsTool } from '../../../src/agent/tools/ls.js';
import { tempDir } from './helpers.js';

describe('grep and ls tools', () => {
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    const b = tempDir();
    root = a.dir;
    outside = b.dir;
    cleanups.push(a.cleanup, b.cleanup);
    mkdirSync(path.join(root, 'src'));
    mkdirSync(path.join(root, '.git'));
    mkdirSync(path.join(root, 'node_modules/pkg'), { recursive: true });
    writeFileSync(path.join(root, 'src/a.ts'), 'export function add(a, b) {\n  return a + b;\n}\n');
    writeFileSync(path.join(root, 'src/b.ts'), 'import { add } from "./a";\nadd(1, 2);\n');
    writeFileSync(path.join(root, '.git/config'), 'add inside git\n');
    writeFileSync(path.join(root, 'node_modules/pkg/index.js'), 'add in deps\n');
    writeFileSync(path.join(root, 'README.md'), '# readme\n');
    writeFileSync(path.join(outside, 'secret.txt'), 'add secret\n');
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('grep finds matches as file:line: text, skipping .git and node_modules', async () => {
    const result = await createGrepTool(root).run({ pattern: 'add\\(' }, {});
    expect(result.isError).toBe(false);
    expect(result.content.split('\n').sort()).toEqual([
      'src/a.ts:1: export function add(a, b) {',
      'src/b.ts:2: add(1, 2);',
    ]);
  });

  it('grep searches a given folder or file, and supports extended regex', async () => {
    const tool = createGrepTool(root);
    expect(
      (await tool.run({ pattern: 'return|import', path: 'src' }, {})).content.split('\n').sort(),
    ).toEqual(['src/a.ts:2:   return a + b;', 'src/b.ts:1: import { add } from "./a";']);
    expect((await tool.run({ pattern: 'a \\+ b', path: 'src/a.ts' }, {})).content).toBe(
      'src/a.ts:2:   return a + b;',
    );
  });

  it('grep handles patterns starting with a dash, no matches and bad regex', async () => {
    writeFileSync(path.join(root, 'flags.txt'), 'use --force here\n');
    const tool = createGrepTool(root);
    expect((await tool.run({ pattern: '--force' }, {})).content).toBe('flags.txt:1: use --force here');
    expect(await tool.run({ pattern: 'nothing-matches-this' }, {})).toEqual({
      isError: false,
      content: 'No matches.',
    });
    const bad = await tool.run({ pattern: '(' }, {});
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain('grep error');
  });

  it('grep caps results', async () => {
    writeFileSync(path.join(root, 'many.txt'), 'hit\n'.repeat(GREP_MAX_RESULTS + 50));
    const result = await createGrepTool(root).run({ pattern: 'hit', path: 'many.txt' }, {});
    const lines = result.content.split('\n');
    expect(lines).toHaveLength(GREP_MAX_RESULTS + 1);
    expect(lines.at(-1)).toContain('capped');
  });

  it('grep refuses escapes and does not follow symlinks out of the tree', async () => {
    symlinkSync(outside, path.join(root, 'out'));
    const tool = createGrepTool(root);
    expect((await tool.run({ pattern: 'add', path: '..' }, {})).isError).toBe(true);
    expect((await tool.run({ pattern: 'add', path: 'out' }, {})).isError).toBe(true);
    expect((await tool.run({ pattern: 'secret' }, {})).content).toBe('No matches.');
    expect((await tool.run({ pattern: 3 }, {})).isError).toBe(true);
  });

  it('ls lists entries with / for folders and skips .git', async () => {
    symlinkSync('src/a.ts', path.join(root, 'link'));
    const tool = createLsTool(root);
    expect((await tool.run({}, {})).content).toBe('README.md\nlink -> src/a.ts\nnode_modules/\nsrc/');
    expect((await tool.run({ path: 'src' }, {})).content).toBe('a.ts\nb.ts');
    mkdirSync(path.join(root, 'empty'));
    expect((await tool.run({ path: 'empty' }, {})).content).toContain('empty');
  });

  it('ls reports escapes, missing folders and files as errors', async () => {
    const tool = createLsTool(root);
    expect((await tool.run({ path: '../' }, {})).isError).toBe(true);
    expect((await tool.run({ path: '/etc' }, {})).isError).toBe(true);
    expect((await tool.run({ path: 'missing' }, {})).content).toContain('not found');
    expect((await tool.run({ path: 'README.md' }, {})).content).toContain('not a folder');
    expect((await tool.run({ path: 42 }, {})).isError).toBe(true);
  });
});
