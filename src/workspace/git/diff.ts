/** Diffs between two commits of a repository (usually the hub): per-file stats and the patch. */
import path from 'node:path';
import { git, gitError } from './git.js';

export interface FileStat {
  path: string;
  /** null for binary files. */
  added: number | null;
  deleted: number | null;
}

export type DiffStatResult =
  | { ok: true; files: FileStat[]; added: number; deleted: number }
  | { ok: false; error: string };

export async function diffStat(repo: string, from: string, to: string): Promise<DiffStatResult> {
  const result = await git(['diff', '--numstat', '-z', '--no-renames', '--end-of-options', from, to], {
    cwd: path.resolve(repo),
  });
  if (!result.ok) return { ok: false, error: `git diff ${from} ${to} failed: ${gitError(result)}` };
  const files: FileStat[] = [];
  for (const record of result.stdout.split('\0')) {
    if (record === '') continue;
    const [added, deleted, ...rest] = record.split('\t');
    files.push({ path: rest.join('\t'), added: toCount(added), deleted: toCount(deleted) });
  }
  return {
    ok: true,
    files,
    added: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
    deleted: files.reduce((sum, file) => sum + (file.deleted ?? 0), 0),
  };
}

export async function diff(
  repo: string,
  from: string,
  to: string,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const result = await git(
    ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--end-of-options', from, to],
    {
      cwd: path.resolve(repo),
    },
  );
  if (!result.ok) return { ok: false, error: `git diff ${from} ${to} failed: ${gitError(result)}` };
  return { ok: true, text: result.stdout };
}

function toCount(value: string | undefined): number | null {
  return value === undefined || value === '-' ? null : Number(value);
}
