/**
 * Pushing a run's commits to a remote, safely: from a git directory of Colony's own (a temporary bare
 * repository that borrows the user's objects through `objects/info/alternates`), with Colony's
 * hardened git environment (workspace/git/git.ts: no hooks, no fsmonitor, no credential helper, no user
 * or system config) — so nothing the user's repository config says (hooks, `core.sshCommand`,
 * `url.<x>.insteadOf`, includes, credential helpers, `remote.<x>.receivepack`) is read, let alone run.
 *
 * A branch is only ever created: each ref is pushed with `--force-with-lease=<ref>:` (expect it
 * absent), which git turns into a create-only update the server checks atomically. A branch already
 * there at the same commit is left as it is (a publish run again); at any other commit the push is
 * refused and nothing is overwritten. Several branches go in one `--atomic` push: all or none.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { err, ok, type Result } from '../lang/result.js';
import { git, gitError } from '../workspace/git/git.js';
import type { RemoteUrl } from './remote-url.js';

export interface BranchPush {
  branch: string;
  commit: string;
}

export interface PushOutcome {
  /** Created on the remote by this push. */
  created: BranchPush[];
  /** Already on the remote at exactly this commit (an earlier publish): left as they are. */
  alreadyThere: BranchPush[];
}

export interface PushRequest {
  /** The user's object store (user-repo.ts, userObjectsDir). */
  objectsDir: string;
  remote: RemoteUrl;
  branches: readonly BranchPush[];
  /** The token's header for the remote's own forge host (token.ts, pushAuth), or null. */
  auth: { urlPrefix: string; header: string } | null;
}

/**
 * Transports allowed for the push (git's own allow-list, above the URL check): https, http and ssh.
 * No `file` (a local repository's receive-pack runs that repository's hooks), no `ext`, no helpers.
 * No redirects (the token header would follow them). ssh never prompts (no terminal to answer).
 */
const PUSH_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['protocol.allow', 'never'],
  ['protocol.https.allow', 'always'],
  ['protocol.http.allow', 'always'],
  ['protocol.ssh.allow', 'always'],
  ['http.followRedirects', 'false'],
  ['core.askPass', ''],
];
const SSH_ENV = { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' };

export async function pushBranches(request: PushRequest): Promise<Result<PushOutcome>> {
  for (const { branch, commit } of request.branches)
    if (!/^[0-9a-f]{40,64}$/.test(commit) || branch.startsWith('-'))
      return err(`not a branch and commit to push: ${branch} ${commit}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'colony-publish-'));
  try {
    const gitDir = path.join(dir, 'push.git');
    const init = await git(['init', '--quiet', '--bare', '--template=', gitDir], { cwd: dir });
    if (!init.ok) return err(`cannot make the push's git directory: ${gitError(init)}`);
    await mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
    await writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${request.objectsDir}\n`);
    const options = {
      cwd: gitDir,
      env: SSH_ENV,
      config: [
        ...PUSH_CONFIG,
        ...(request.auth
          ? [[`http.${request.auth.urlPrefix}.extraHeader`, request.auth.header] as const]
          : []),
      ],
    };
    const missing = await git(['--git-dir', gitDir, 'cat-file', '--batch-check'], {
      ...options,
      input: request.branches.map((b) => `${b.commit}^{commit}\n`).join(''),
    });
    const absent = missing.stdout.split('\n').find((line) => line.endsWith(' missing'));
    if (!missing.ok || absent)
      return err(`the run's commit ${absent?.split(' ')[0] ?? ''} is not in your repository any more`.trim());
    const args = ['--git-dir', gitDir, 'push', '--porcelain', '--no-verify', '--no-recurse-submodules'];
    if (request.branches.length > 1) args.push('--atomic');
    for (const { branch } of request.branches) args.push(`--force-with-lease=refs/heads/${branch}:`);
    args.push('--', request.remote.url, ...request.branches.map((b) => `${b.commit}:refs/heads/${b.branch}`));
    const pushed = await git(args, options);
    return outcomeOf(pushed.stdout, pushed.ok ? null : gitError(pushed), request);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads `git push --porcelain`: `<flag>\t<from>:<to>\t<summary>` per ref. */
function outcomeOf(stdout: string, failure: string | null, request: PushRequest): Result<PushOutcome> {
  const created: BranchPush[] = [];
  const alreadyThere: BranchPush[] = [];
  const refused: string[] = [];
  for (const line of stdout.split('\n')) {
    const [flag, refs, summary = ''] = line.split('\t');
    const to = refs?.split(':')[1];
    const branch = request.branches.find((b) => `refs/heads/${b.branch}` === to);
    if (!branch || flag === undefined) continue;
    if (flag === '*') created.push(branch);
    else if (flag === '=') alreadyThere.push(branch);
    else if (summary.includes('stale info'))
      refused.push(
        `branch ${branch.branch} already exists on ${request.remote.display} at another commit; Colony never ` +
          'overwrites a branch: delete that branch on the remote if it is yours to delete, or publish to ' +
          'another remote with --remote',
      );
    else if (!summary.includes('atomic push failed')) refused.push(`${branch.branch}: ${summary}`);
  }
  if (refused.length > 0) return err(refused.join('; '));
  if (failure !== null || created.length + alreadyThere.length !== request.branches.length)
    return err(`push to ${request.remote.display} failed: ${failure ?? 'not every branch was pushed'}`);
  return ok({ created, alreadyThere });
}
