/**
 * `write {path, content}`: create or overwrite a regular file (atomically), creating missing folders.
 * Its intent is logged first, so a resumed agent does not write it again (agent/in-flight.ts).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../tool/atomic-write.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { fileStateAt, fileStateOf, sha256 } from './file-state.js';
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
    fileState: (rel) => fileStateAt(root, rel),
    async run(args, context) {
      const tooLong = pathProblem(args.path);
      if (tooLong) return fail(tooLong);
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      if (resolved.rel === '.') return fail('path names the worktree itself, not a file');
      // From here only the checked real path is used: a link in the named path is not followed again.
      // Opened as every file tool opens (no link followed): a directory, a FIFO or a device is refused.
      const before = await fileStateOf(resolved);
      if (!before.ok) return fail(before.error);
      const content = Buffer.from(args.content, 'utf8');
      const verb = before.value === null ? 'Created' : 'Overwrote';
      const result = `${verb} ${resolved.rel} (${content.length} bytes, ${countLines(args.content)} lines)`;
      await context.intend?.({
        path: resolved.rel,
        beforeHash: before.value,
        afterHash: sha256(content),
        result,
      });
      try {
        await mkdir(path.dirname(resolved.real), { recursive: true });
        await writeFileAtomic(resolved.real, args.content);
      } catch (error) {
        return fail(describeWriteError(resolved.rel, error));
      }
      return ok(result);
    },
  });
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}
