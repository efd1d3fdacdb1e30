/**
 * `ls {path?}`: the entries of a folder, folders marked with a trailing `/`, `.git` skipped (a nested
 * repository's too). The folder listed is the checked real one (paths.ts): a link is listed as a link,
 * never entered when it leads outside the worktree or into a `.git`.
 */
import { lstat, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { describeKind } from './file-kind.js';
import { pathProblem } from './limits.js';
import { touchedPath } from './touched.js';

export const LS_MAX_ENTRIES = 1000;

const schema = z.object({
  path: z.string().optional().describe('Folder to list, relative to the worktree. Default: the root.'),
});

export function createLsTool(root: string): Tool {
  return defineTool({
    name: 'ls',
    description:
      'List a folder: one entry per line, sorted, folders end with "/", symbolic links show ' +
      `"name -> target". Skips .git. At most ${LS_MAX_ENTRIES} entries.`,
    touches: (args) => touchedPath(root, args.path ?? '.'),
    schema,
    mutates: false,
    async run(args) {
      const tooLong = pathProblem(args.path);
      if (tooLong) return fail(tooLong);
      const resolved = resolveInside(root, args.path ?? '.');
      if (!resolved.ok) return fail(resolved.error);
      const info = await lstat(resolved.real).catch(() => null);
      if (!info) return fail(`folder not found: ${resolved.rel}`);
      if (info.isFile()) return fail(`${resolved.rel} is a file, not a folder; use read`);
      if (!info.isDirectory()) return fail(`${resolved.rel} is ${describeKind(info)}, not a folder`);
      const entries = (await readdir(resolved.real, { withFileTypes: true }))
        .filter((entry) => entry.name !== '.git')
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (entries.length === 0) return ok(`(${resolved.rel} is empty)`);
      const shown = entries.slice(0, LS_MAX_ENTRIES);
      const lines = await Promise.all(
        shown.map(async (entry) => {
          if (entry.isDirectory()) return `${entry.name}/`;
          if (entry.isSymbolicLink()) {
            const target = await readlink(path.join(resolved.real, entry.name)).catch(() => '?');
            return `${entry.name} -> ${target}`;
          }
          return entry.name;
        }),
      );
      if (entries.length > shown.length)
        lines.push(`(${entries.length - shown.length} more entries not shown)`);
      return ok(lines.join('\n'));
    },
  });
}
