/** `edit {path, old, new}`: replace one exact, unique occurrence of `old` with `new`
 * (the file is replaced atomically, so a crash never leaves it half-written; its intent is logged
 * first, so a resumed agent does not apply it twice: agent/in-flight.ts). Only regular files of
 * at most EDIT_MAX_BYTES are edited: the whole file is held in memory. */
import { z } from 'zod';
import { writeFileAtomic } from '../../tool/atomic-write.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { mib, openRegularFile } from './file-kind.js';
import { fileStateAt, sha256 } from './file-state.js';
import { pathProblem } from './limits.js';
import { touchedPath } from './touched.js';
import { describeWriteError } from './write-errors.js';

const MAX_LISTED_MATCHES = 20;
/** Larger files are refused (the model is pointed to bash): edit reads the whole file. */
export const EDIT_MAX_BYTES = 32 * 1024 * 1024;

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
    touches: (args) => touchedPath(root, args.path),
    mutates: true,
    fileState: (rel) => fileStateAt(root, rel),
    async run(args, context) {
      const tooLong = pathProblem(args.path);
      if (tooLong) return fail(tooLong);
      const resolved = resolveInside(root, args.path);
      if (!resolved.ok) return fail(resolved.error);
      const opened = await openRegularFile(resolved);
      if (!opened.ok) {
        if (opened.kind === 'missing')
          return fail(`file not found: ${resolved.rel} (use write to create a new file)`);
        if (opened.kind === 'refused') return fail(opened.error);
        if (opened.kind === 'bad_name') return fail(`${opened.error}: ${resolved.rel}`);
        if (opened.what === 'a directory') return fail(`${resolved.rel} is a directory`);
        return fail(`${resolved.rel} is ${opened.what}, not a regular file; edit only changes files`);
      }
      let bytes: Buffer;
      try {
        if (opened.info.size > EDIT_MAX_BYTES) {
          return fail(
            `${resolved.rel} is ${mib(opened.info.size)}, too large to edit (at most ${mib(EDIT_MAX_BYTES)}); ` +
              'change it with bash (sed, a script) instead',
          );
        }
        if (args.old === args.new) return fail('old and new are identical; nothing to change');
        bytes = await opened.handle.readFile();
      } finally {
        await opened.handle.close();
      }
      const text = bytes.toString('utf8');
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
      const result = `Edited ${resolved.rel}: replaced 1 occurrence at line ${lineOf(text, index)}`;
      await context.intend?.({
        path: resolved.rel,
        beforeHash: sha256(bytes),
        afterHash: sha256(Buffer.from(updated, 'utf8')),
        result,
      });
      // The real path checked above, not the name: a link there is not followed again.
      const written = await writeFileAtomic(resolved.real, updated).then(
        () => null,
        (error: unknown) => describeWriteError(resolved.rel, error),
      );
      if (written) return fail(written);
      return ok(result);
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
