/** `edit {path, old, new}`: replace one exact, unique occurrence of `old` with `new`
 * (the file is replaced atomically, so a crash never leaves it half-written). */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../../tool/atomic-write.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { isGitInternal, resolveInside } from '../paths.js';

const MAX_LISTED_MATCHES = 20;

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the worktree root.'),
  old: z.string().min(1).describe('Exact text to replace, including whitespace; must occur exactly once.'),
  new: z.string().describe('Replacement text.'),
});

export function createEditTool(root: string): Tool {
  return defineTool({
    name: 'edit',
    description:
      'Replace one exact occurrence of `old` with `new` in a file. `old` must match the file ' +
      'byte for byte (whitespace included, without read line-number prefixes) and occur exactly once; ' +
      'add surrounding lines to make it unique.',
    schema,
    mutates: true,
    async run(args) {
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      if (isGitInternal(resolved.rel)) return fail(`refusing to modify git's own data: ${resolved.rel}`);
      const info = await stat(resolved.abs).catch(() => null);
      if (!info) return fail(`file not found: ${resolved.rel} (use write to create a new file)`);
      if (info.isDirectory()) return fail(`${resolved.rel} is a directory`);
      if (args.old === args.new) return fail('old and new are identical; nothing to change');
      const text = await readFile(resolved.abs, 'utf8');
      const matches = findAll(text, args.old);
      if (matches.length === 0) {
        return fail(
          `old text not found in ${resolved.rel}. It must match exactly, including whitespace and ` +
            'indentation; read the file again and copy the text.',
        );
      }
      if (matches.length > 1) {
        const lines = matches.slice(0, MAX_LISTED_MATCHES).map((index) => lineOf(text, index));
        const more = matches.length > MAX_LISTED_MATCHES ? ', …' : '';
        return fail(
          `old text occurs ${matches.length} times in ${resolved.rel} (at lines ${lines.join(', ')}${more}); ` +
            'include more surrounding text so it matches exactly once.',
        );
      }
      const index = matches[0] ?? 0;
      // Slicing, not String.replace: `$&` and friends in `new` must stay literal.
      const updated = text.slice(0, index) + args.new + text.slice(index + args.old.length);
      await writeFileAtomic(resolved.abs, updated);
      return ok(`Edited ${resolved.rel}: replaced 1 occurrence at line ${lineOf(text, index)}`);
    },
  });
}

function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  let from = 0;
  for (;;) {
    const index = text.indexOf(needle, from);
    if (index < 0) return found;
    found.push(index);
    from = index + 1;
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
