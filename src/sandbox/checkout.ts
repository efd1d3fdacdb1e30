/**
 * The one folder of the host a sandboxed command may change: its own checkout, bound at its real path
 * (read-write, or read-only for read-only profiles), with the git metadata it needs:
 *
 * - an agent's own repository (workspace/agent-repo/agent-repo.ts): its git directory read-write (the agent may
 *   commit, branch, stash), but the files Colony owns read-only over it — config, hooks, the
 *   attributes, exclude and alternates files — and the hub's object store it borrows, read-only. The
 *   hub's refs and config are not there at all.
 * - a linked worktree of the hub (Colony's own check checkouts: verify, merge check): the hub
 *   read-only (git log, diff and status work).
 *
 * The checkout's `.git` file is bound read-only over itself in both cases, so that a command cannot
 * point Colony's own git commands at another repository.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { agentRepoAt } from '../core/agent-layout.js';

/** Files of an agent's git directory that are Colony's: read-only inside the sandbox. */
const COLONY_OWNED = ['config', 'hooks', 'info/attributes', 'info/exclude', 'objects/info/alternates'];

export function checkoutMounts(checkout: string, writable: boolean): string[] {
  const dir = path.resolve(checkout);
  const args: string[] = [];
  args.push(writable ? '--bind' : '--ro-bind', dir, dir);
  const repo = gitMetadata(dir);
  if (repo?.kind === 'worktree') args.push('--ro-bind', repo.common, repo.common);
  if (repo?.kind === 'own') {
    args.push(writable ? '--bind' : '--ro-bind', repo.gitDir, repo.gitDir);
    for (const name of COLONY_OWNED) {
      const owned = path.join(repo.gitDir, name);
      if (existsSync(owned)) args.push('--ro-bind', owned, owned);
    }
    for (const objects of repo.alternates) args.push('--ro-bind', objects, objects);
  }
  const dotGit = path.join(dir, '.git');
  if (writable && isFile(dotGit)) args.push('--ro-bind', dotGit, dotGit);
  args.push('--chdir', dir);
  return args;
}

type GitMetadata =
  | { kind: 'worktree'; common: string }
  | { kind: 'own'; gitDir: string; alternates: string[] };

/**
 * Where a checkout's git metadata lives. An agent's own repository is found from Colony's record (the
 * run folder's layout, core/agent-layout.ts), never from the `.git` file in the checkout, which the
 * agent may have rewritten; its git directory with the hub's object store it borrows. Else, from the
 * `.git` file of one of Colony's check checkouts (no agent writes there outside a sandbox that binds
 * it read-only): a linked worktree's repository (gitdir → commondir). Null for a plain clone (its
 * `.git` folder is inside the checkout already) or no repository.
 */
export function gitMetadata(checkout: string): GitMetadata | null {
  const own = agentRepoAt(checkout);
  if (own && path.resolve(checkout) === own.checkout) {
    return {
      kind: 'own',
      gitDir: own.gitDir,
      alternates: existsSync(own.hubObjects) ? [own.hubObjects] : [],
    };
  }
  const dotGit = path.join(checkout, '.git');
  if (!isFile(dotGit)) return null;
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!match?.[1]) return null;
  const gitDir = path.resolve(checkout, match[1]);
  // Never bind a repository that contains the checkout (it would cover the checkout's own bind).
  const outside = (p: string) => path.relative(p, checkout).startsWith('..');
  // A linked worktree's admin folder is `<repository>/worktrees/<name>`. Any other git directory is
  // an agent's own, whose `commondir` file (if any) the agent wrote: never bind what it names.
  if (path.basename(path.dirname(gitDir)) === 'worktrees') {
    const commondir = readText(path.join(gitDir, 'commondir'));
    const common = commondir === null ? null : path.resolve(gitDir, commondir.trim());
    return common === path.dirname(path.dirname(gitDir)) && outside(common)
      ? { kind: 'worktree', common }
      : null;
  }
  // Any other git directory named by a `.git` file is not Colony's: bind nothing of it.
  return null;
}

function readText(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}
