/**
 * Git operations of the integration queue on the bare hub. Candidates are built with
 * `git merge-tree --write-tree` (git ≥ 2.38): a three-way merge computed in the object store, no
 * checkout needed, conflicts listed by file; landing is one `update-ref --stdin` transaction.
 */

import { git, gitError } from '../git/git.js';
import { readRefFiles } from '../git/loose-ref.js';
import { pastDeadLock } from '../git/stale-locks.js';

export type MergeOutcome =
  | { kind: 'merged'; tree: string }
  | { kind: 'conflict'; files: string[] }
  | { kind: 'error'; error: string };

/** Three-way merge of `commit` into `onto` (merge base found by git); the result is a tree. */
export async function mergeTrees(hub: string, onto: string, commit: string): Promise<MergeOutcome> {
  const result = await git(
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', onto, commit],
    {
      cwd: hub,
    },
  );
  const [tree, ...rest] = result.stdout.split('\0');
  if (result.code === 0 && tree && /^[0-9a-f]{40,64}$/.test(tree)) return { kind: 'merged', tree };
  if (result.code === 1 && tree && /^[0-9a-f]{40,64}$/.test(tree)) {
    const files = [...new Set(rest.filter((name) => name !== ''))];
    return { kind: 'conflict', files };
  }
  return { kind: 'error', error: `git merge-tree ${onto} ${commit} failed: ${gitError(result)}` };
}

/** A branch's commit in the hub: from its ref files (loose-ref.ts), else from git; null when absent. */
export async function hubRefCommit(hub: string, ref: string): Promise<string | null> {
  const fromFiles = await readRefFiles(hub, ref);
  if (fromFiles.kind === 'found') return fromFiles.id;
  if (fromFiles.kind === 'absent') return null;
  return revParse(hub, `${ref}^{commit}`);
}

export async function revParse(hub: string, rev: string): Promise<string | null> {
  const result = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { cwd: hub });
  return result.ok ? result.stdout.trim() : null;
}

export async function treeOf(hub: string, commit: string): Promise<string | null> {
  return revParse(hub, `${commit}^{tree}`);
}

export async function commitTree(
  hub: string,
  tree: string,
  parent: string,
  message: string,
  author: string,
): Promise<{ ok: true; commit: string } | { ok: false; error: string }> {
  const result = await git(['commit-tree', tree, '-p', parent, '-m', message], {
    cwd: hub,
    env: {
      GIT_AUTHOR_NAME: author,
      GIT_AUTHOR_EMAIL: `${author.replace(/[^A-Za-z0-9._-]/g, '_')}@colony.local`,
      GIT_COMMITTER_NAME: 'Colony Integration',
      GIT_COMMITTER_EMAIL: 'integration@colony.local',
    },
  });
  if (!result.ok) return { ok: false, error: `git commit-tree failed: ${gitError(result)}` };
  return { ok: true, commit: result.stdout.trim() };
}

/**
 * Points refs at commits in one transaction; `expectOld` guards against a concurrent change;
 * `message` goes into the reflogs.
 */
export async function updateRefs(
  hub: string,
  updates: { ref: string; to: string; expectOld?: string }[],
  message?: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const lines = ['start'];
  for (const update of updates) {
    lines.push(`update ${update.ref} ${update.to}${update.expectOld ? ` ${update.expectOld}` : ''}`);
  }
  lines.push('prepare', 'commit', '');
  const args = ['update-ref', ...(message ? ['-m', message] : []), '--stdin'];
  // A lock a killed process left (docs/recovery.md): waited out while it may be live, then removed.
  const result = await pastDeadLock(
    hub,
    () => gitWithInput(hub, args, lines.join('\n')),
    (failed) => (failed.ok ? '' : failed.error),
  );
  return result.ok ? { ok: true } : { ok: false, error: result.error };
}

/** True when `ancestor` is reachable from `of`. */
export async function isAncestor(hub: string, ancestor: string, of: string): Promise<boolean> {
  const result = await git(['merge-base', '--is-ancestor', ancestor, of], { cwd: hub });
  return result.ok;
}

/** What `commit` changes relative to where it forked from `main` (stat and patch, capped). */
export async function changeSince(
  hub: string,
  main: string,
  commit: string,
  maxChars = 6000,
): Promise<{ files: string[]; patch: string }> {
  const range = `${main}...${commit}`;
  const names = await git(['diff', '--name-only', '--no-renames', '-z', range], { cwd: hub });
  // An agent's commit: no diff driver, external diff or textconv of any config or attributes runs.
  const patch = await git(
    ['diff', '--stat', '--patch', '--no-color', '--no-ext-diff', '--no-textconv', range],
    {
      cwd: hub,
    },
  );
  const text = patch.ok ? patch.stdout : `(no diff: ${gitError(patch)})`;
  return {
    files: names.ok ? names.stdout.split('\0').filter((name) => name !== '') : [],
    patch:
      text.length > maxChars
        ? `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)`
        : text,
  };
}

/**
 * The files each commit changes against its first parent, for many commits in one `git diff-tree
 * --stdin` process (a landed batch: one process, not one per request).
 */
export async function changedFilesOfCommits(hub: string, commits: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (commits.length === 0) return out;
  const result = await gitWithOutput(
    hub,
    ['diff-tree', '--stdin', '-r', '--name-only', '--no-renames', '-z', '--always'],
    `${commits.join('\n')}\n`,
  );
  // Each commit's id (--always: also for an empty change), then the files it changes, NUL-separated.
  if (!result.ok) {
    for (const commit of commits) out.set(commit, []);
    return out;
  }
  return parseDiffTreeOutput(result.stdout, commits);
}

/** Splits `diff-tree --stdin -z --name-only` output (with commit id records) by commit. */
export function parseDiffTreeOutput(stdout: string, commits: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(commits.map((c) => [c, []]));
  let current: string[] | undefined;
  for (const field of stdout.split('\0')) {
    const name = field.replace(/^\n+/, '');
    if (name === '') continue;
    if (out.has(name)) {
      current = out.get(name);
      continue;
    }
    current?.push(name);
  }
  return out;
}

export async function changedFiles(hub: string, from: string, to: string): Promise<string[]> {
  const result = await git(['diff', '--name-only', '--no-renames', '-z', from, to], { cwd: hub });
  return result.ok ? result.stdout.split('\0').filter((name) => name !== '') : [];
}

async function gitWithInput(
  cwd: string,
  args: string[],
  input: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const result = await gitWithOutput(cwd, args, input);
  return result.ok ? { ok: true } : result;
}

async function gitWithOutput(
  cwd: string,
  args: string[],
  input: string,
): Promise<{ ok: true; stdout: string } | { ok: false; error: string }> {
  const result = await git(args, { cwd, input });
  return result.ok ? { ok: true, stdout: result.stdout } : { ok: false, error: result.stderr.trim() };
}
