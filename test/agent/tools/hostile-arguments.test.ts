/**
 * Arguments the kernel cannot take, found by the chaos model (test/faults/chaos.test.ts): a NUL byte
 * in a command or a grep pattern, a command or pattern over the 128 KiB argv limit, a 10 MB path.
 * Each gets a short error saying what is wrong — not Node's ERR_INVALID_ARG_VALUE, E2BIG or
 * ENAMETOOLONG with the whole argument echoed back into the conversation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash.js';
import { createEditTool } from '../../../src/agent/tools/edit.js';
import { createGrepTool } from '../../../src/agent/tools/grep.js';
import { ARG_MAX_BYTES } from '../../../src/agent/tools/limits.js';
import { createLsTool } from '../../../src/agent/tools/ls.js';
import { createReadTool } from '../../../src/agent/tools/read.js';
import { createWriteTool } from '../../../src/agent/tools/write.js';
import { tempDir } from './helpers.js';

const { dir: root, cleanup } = tempDir('colony-hostile-args-');
afterAll(cleanup);

const TEN_MB = 10 * 1024 * 1024;

describe('arguments a command line cannot carry', () => {
  it('bash refuses a NUL byte and a 10 MB command', async () => {
    const bash = createBashTool(root);
    expect(await bash.run({ command: 'echo a\u0000b' }, {})).toEqual({
      isError: true,
      content: 'command contains a NUL byte, which a command line cannot carry',
    });
    const huge = await bash.run({ command: `echo ${'z'.repeat(TEN_MB)} | wc -c` }, {});
    expect(huge).toEqual({
      isError: true,
      content:
        `command is ${TEN_MB + 13} bytes long; a program argument can have at most ${ARG_MAX_BYTES} bytes ` +
        '(write a script with write and run that; put data in files, not on the command line)',
    });
    // Just under the limit still runs.
    const near = await bash.run({ command: `echo ${'y'.repeat(ARG_MAX_BYTES - 20)} | wc -c` }, {});
    expect(near.content).toBe(`${ARG_MAX_BYTES - 19}\n\n[exit code 0]`);
  });

  it('grep refuses a NUL byte and an oversized pattern', async () => {
    const grep = createGrepTool(root);
    expect(await grep.run({ pattern: 'line\u0000x' }, {})).toEqual({
      isError: true,
      content: 'pattern contains a NUL byte, which a command line cannot carry',
    });
    const huge = await grep.run({ pattern: 'p'.repeat(200_000) }, {});
    expect(huge.isError).toBe(true);
    expect(huge.content).toMatch(/^pattern is 200000 bytes long; a program argument can have at most/);
  });

  it('every file tool refuses a 10 MB path in a few words', async () => {
    const path = 'a'.repeat(TEN_MB);
    const expected = {
      isError: true,
      content: `path is ${TEN_MB} bytes long; a path can have at most 4096 bytes`,
    };
    expect(await createReadTool(root).run({ path }, {})).toEqual(expected);
    expect(await createWriteTool(root).run({ path, content: 'x' }, {})).toEqual(expected);
    expect(await createEditTool(root).run({ path, old: 'a', new: 'b' }, {})).toEqual(expected);
    expect(await createLsTool(root).run({ path }, {})).toEqual(expected);
    expect(await createGrepTool(root).run({ pattern: 'x', path }, {})).toEqual(expected);
  });

  it('a path within PATH_MAX whose name is too long is still a short error', async () => {
    const name = 'n'.repeat(300); // NAME_MAX is 255
    const read = await createReadTool(root).run({ path: name }, {});
    expect(read.isError).toBe(true);
    expect(read.content.length).toBeLessThan(500);
    const write = await createWriteTool(root).run({ path: name, content: 'x' }, {});
    expect(write.isError).toBe(true);
    expect(write.content).toBe(
      `could not write ${name} (ENAMETOOLONG): a file name is too long (at most 255 bytes); nothing was written, the file is unchanged`,
    );
  });
});
