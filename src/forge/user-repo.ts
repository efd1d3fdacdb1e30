/**
 * What publishing reads of the user's repository, which Colony treats as hostile input (an agent, or
 * whoever wrote its config, may have planted hooks, an fsmonitor, an ssh command, credential helpers,
 * `url.<x>.insteadOf` rewrites, includes): only a remote's URL, read by `git config` from the
 * repository's own file with includes off, and where its objects are. No git command that could run
 * anything is started in it; the push runs from a git directory of Colony's own (push.ts).
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { err, ok, type Result } from '../lang/result.js';
import { git, gitError } from '../workspace/git/git.js';

/** A remote's name as git allows it and a shell or option parser cannot misread. */
const REMOTE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The URL to push to: `nameOrUrl` itself when it is a URL (or scp-like `host:path`), else the
 * remote's `pushurl`, then `url`, from the repository's config file (never an included one).
 */
export async function remoteUrlOf(repo: string, nameOrUrl: string): Promise<Result<string>> {
  if (nameOrUrl.includes('://') || nameOrUrl.includes(':') || nameOrUrl.includes('/')) return ok(nameOrUrl);
  if (!REMOTE_NAME.test(nameOrUrl)) return err(`not a remote name: "${nameOrUrl}"`);
  for (const key of ['pushurl', 'url']) {
    const read = await git(['config', '--local', '--no-includes', '--get', `remote.${nameOrUrl}.${key}`], {
      cwd: repo,
      userConfig: true,
    });
    if (read.ok && read.stdout.trim() !== '') return ok(read.stdout.trim());
    if (!read.ok && read.code !== 1)
      return err(`cannot read remote ${nameOrUrl} in ${repo}: ${gitError(read)}`);
  }
  return err(
    `no remote "${nameOrUrl}" in ${repo} (git remote -v lists them; a remote defined in an included config file is not read)`,
  );
}

/**
 * The user's object store, for the push's git directory to borrow (alternates). It must be a real
 * folder inside the git directory git names for the repository, reached through no symbolic link.
 */
export async function userObjectsDir(repo: string): Promise<Result<string>> {
  const dotGit = path.join(repo, '.git');
  const dotGitInfo = await lstat(dotGit).catch(() => null);
  if (dotGitInfo?.isSymbolicLink()) return err(`${dotGit} is a symbolic link: Colony does not follow it`);
  const common = await git(['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: repo,
    userConfig: true,
  });
  if (!common.ok) return err(`not a git repository: ${repo} (${gitError(common)})`);
  const gitDir = common.stdout.trim();
  const objects = path.join(gitDir, 'objects');
  const info = await lstat(objects).catch(() => null);
  if (!info) return err(`no object store at ${objects}`);
  if (info.isSymbolicLink() || !info.isDirectory())
    return err(`${objects} is not a plain folder (a symbolic link?): Colony does not follow it`);
  const real = await realpath(objects).catch(() => null);
  if (real === null) return err(`cannot resolve ${objects}`);
  return ok(real);
}
