/** `write {path, content}`: create or overwrite a file (atomically), creating missing folders. */
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../tool/atomic-write.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { pathProblem } from './limits.js';
import { touchedPath } from './touched.js';
import { describeWriteError } from './write-errors.js';

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the worktree root.'),
  content: z.string().describe('The complete new content of the file.'),
});

export function createWriteTool(root: string): Tool {
  return defineTool({
    name: 'write',
    description:
      'Create a file or replace its whole content. Missing parent folders are created. ' +
      'For small changes to an existing file prefer edit.',
    schema,
    touches: (args) => {
      const touched = touchedPath(root, args.path);
      // Written whole: the file need not be checked out first.
      return touched === 'all' ? [] : { replaced: touched };
    },
    mutates: true,
    async run(args) {
      const tooLong = pathProblem(args.path);
      if (tooLong) return fail(tooLong);
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      if (resolved.rel === '.') return fail('path names the worktree itself, not a file');
      // From here only the checked real path is used: a link in the named path is not followed again.
      const existing = await lstat(resolved.real).catch(() => null);
      if (existing?.isDirectory()) return fail(`${resolved.rel} is a directory`);
      try {
        await mkdir(path.dirname(resolved.real), { recursive: true });
        await writeFileAtomic(resolved.real, args.content);
      } catch (error) {
        return fail(describeWriteError(resolved.rel, error));
      }
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const verb = existing ? 'Overwrote' : 'Created';
      return ok(`${verb} ${resolved.rel} (${bytes} bytes, ${countLines(args.content)} lines)`);
    },
  });
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}
