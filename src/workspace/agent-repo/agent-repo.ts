/**
 * An agent's own repository: its checkout (the folder its tools work in) and a git directory of its
 * own outside that checkout, with the hub's object store as an alternate (so a thousand agents still
 * share one copy of the history). Hub refs and hub config are out of the agent's reach; Colony, outside
 * the sandbox, moves the agent's commits into the hub (`publish`: on merge_request, sync, at the end).
 *
 * The git directory's config, hooks and alternates file are Colony's: written here and bound
 * read-only into the agent's sandbox (sandbox/checkout.ts), so no filter, merge driver, hook or
 * fsmonitor an agent writes can run inside Colony's own git calls on its repository. The checkout's
 * `.git` file (written last, so a crash mid-creation leaves no half repository that looks whole) is
 * read-only in the sandbox too: a command cannot point Colony's git at another repository.
 *
 * Creation costs one git process (`reset --hard` fills the index and the checkout, or only its
 * top-level files when it is lazy: lazy-checkout.ts), none for a lazy checkout of a commit another
 * agent started on (checkout-template.ts); the rest is plain files. A branch the hub
 * already has (a released agent that resumes) is checked out again.
 *
 * Colony's own commits in the agent's repository (merge_request, sync's WIP, release) write their
 * objects straight into the hub's object store (worktree.ts commitChanges, with the hub's store as the
 * only one git reads, so git refuses a commit whose parent or files are not all there): publishing
 * such a commit is moving the hub's branch, one batched `update-ref` (ref-batch.ts). That saves two git
 * processes and the second copy of every new object per merge request (~10 ms of CPU at 1,000 peers).
 *
 * A commit that is not in the hub (the agent committed in its own bash, into its own store) is copied:
 * `pack-objects --revs` in the agent's repository piped into `unpack-objects --strict` in the hub.
 * It was a `git fetch` from the agent's repository, whose ref negotiation and connectivity check
 * (`rev-list --not --all`) walk every hub ref and worktree HEAD: ~300 ms a publish with 3,000 hub
 * refs, against ~20 ms now (7 ms when there is nothing new), whatever the number of refs. What to
 * leave out of the pack (hub main's tip, the hub's copy of the branch) is read in the hub, never from
 * the agent's refs, which the agent can rewrite; the agent's repository resolves those commits
 * through its alternate. Nothing else of the agent's is trusted but the bytes of its objects, and
 * `--strict` has the hub check each one (its content and that what it links to exists) before
 * writing it, so corrupt or incomplete objects are refused; `update-ref` refuses a commit the hub
 * does not have, so a commit whose bytes did not match its name cannot become the branch. No worktree
 * HEAD is read, so a `git worktree add` under way in the hub (its new HEAD briefly the null id) does
 * not matter either.
 *
 * So every object in the hub is complete (what it links to is there): git's own writes check it,
 * unpack-objects --strict and the hub's receive-pack (`receive.fsckObjects`) check it. A commit that
 * is a loose object of the hub needs no copy; the hub's ref files are read directly (loose-ref.ts).
 */
import { lstatSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { launch } from '../../core/launcher.js';
import { readTextNoFollow, writeNoFollow } from '../../core/no-follow.js';
import { err, ok, type Result } from '../../lang/result.js';
import { git, gitError, gitPipe } from '../git/git.js';
import { isLooseObject, OBJECT_ID, readRefFiles } from '../git/loose-ref.js';
import { isValidBranchName } from '../git/ref-name.js';
import { removeStaleLocks } from '../git/stale-locks.js';
import { HUB_EXCLUDES, HUB_MAIN } from '../hub/hub.js';
import { readHubMain } from '../hub/main.js';
import { hubRefCommit, updateRefs } from '../integration/hub-git.js';
import type { CheckoutTemplates } from './checkout-template.js';
import { isLazy, LAZY_START_PATTERNS, sparseFileOf } from './lazy-checkout.js';

export { AGENT_GIT_DIRS } from '../../core/agent-layout.js';

export interface AgentRepo {
  /** The agent's checkout (its working folder). */
  checkout: string;
  /** The agent's git directory (outside the checkout). */
  gitDir: string;
  /** The agent's branch, the same name in its repository and in the hub (`agent/<name>`). */
  branch: string;
}

/** What `git` needs to work on an agent repository however its `.git` file was changed. */
export function repoEnv(repo: AgentRepo): Record<string, string> {
  // GIT_COMMON_DIR: a `commondir` file the agent wrote must not redirect Colony (see git.ts).
  return { GIT_DIR: repo.gitDir, GIT_COMMON_DIR: repo.gitDir, GIT_WORK_TREE: repo.checkout };
}

/**
 * The config of every agent repository: no gc (its objects live in the hub) and no automatic
 * maintenance (else every `git commit` starts a `git maintenance run --auto` that finds nothing to do:
 * a second process per commit), the agents' commit identity (an agent may commit in its own bash),
 * nothing that runs a program. Rewritten on every open, so a repository from an older Colony gets it too.
 */
const agentConfig = (lazy: boolean) => `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
${lazy ? '\tsparseCheckout = true\n\tsparseCheckoutCone = false\n' : ''}[gc]
\tauto = 0
[maintenance]
\tauto = false
[user]
\tname = Colony Agent
\temail = agent@colony.local
[commit]
\tgpgsign = false
`;

/**
 * Opens the agent's repository, creating it on `startCommit` (or the hub's branch) when absent;
 * `lazy`: a new checkout holds the top-level files only and is filled on demand (lazy-checkout.ts).
 */
export async function openAgentRepo(options: {
  hubPath: string;
  repo: AgentRepo;
  startCommit: string;
  lazy?: boolean;
  /** New lazy checkouts written from the first one of their commit (checkout-template.ts). */
  templates?: CheckoutTemplates;
}): Promise<Result<{ head: string; created: boolean }>> {
  const { repo } = options;
  if (!isValidBranchName(repo.branch)) return err(`invalid branch name: ${repo.branch}`);
  const hub = path.resolve(options.hubPath);
  const dotGit = path.join(repo.checkout, '.git');
  const dotGitState = await pointsAt(dotGit, repo.gitDir);
  // A `.git` the agent rewrote or replaced (a link, a folder, another gitdir) in a repository that is
  // Colony's (its git directory is where Colony's record says): Colony's file is put back. Colony's own
  // git never read it (agent-git.ts); the agent's own git in its bash needs it.
  if (!dotGitState && lstatOrNull(dotGit) && isRealFolder(repo.gitDir) && isRealFolder(repo.checkout)) {
    await rm(dotGit, { recursive: true, force: true });
    const restored = await writeNoFollow(repo.checkout, '.git', `gitdir: ${repo.gitDir}\n`);
    if (!restored.ok) return err(`could not restore ${dotGit}: ${restored.error}`);
  }
  if (dotGitState || (await pointsAt(dotGit, repo.gitDir))) {
    // Opened again by a new process (a resumed run, a restarted worker): locks of the dead one go.
    await removeStaleLocks(repo.gitDir, [repo.branch, HUB_MAIN]);
    await writeColonyFiles(hub, repo);
    const head = await git(['rev-parse', 'HEAD'], { cwd: repo.checkout, env: repoEnv(repo) });
    if (head.ok) return ok({ head: head.stdout.trim(), created: false });
  }
  if (lstatOrNull(dotGit)) {
    return err(`${repo.checkout} exists but is not the agent's repository (its .git is not Colony's)`);
  }
  // Absent, or left half-made by a crash (no .git yet: it holds no agent work): start again.
  await rm(repo.checkout, { recursive: true, force: true });
  await rm(repo.gitDir, { recursive: true, force: true });
  const start = (await hubRefCommit(hub, `refs/heads/${repo.branch}`)) ?? options.startCommit;
  await mkdir(path.join(repo.gitDir, 'refs', 'tags'), { recursive: true });
  if (options.lazy) {
    await mkdir(path.join(repo.gitDir, 'info'), { recursive: true });
    await writeFile(sparseFileOf(repo), LAZY_START_PATTERNS);
  }
  await writeColonyFiles(hub, repo);
  // Loose refs are plain files: the agent's branch, and `main` as the hub had it (sync moves it).
  await writeRef(repo.gitDir, repo.branch, start);
  if (repo.branch !== HUB_MAIN) await writeRef(repo.gitDir, HUB_MAIN, options.startCommit);
  await writeFile(path.join(repo.gitDir, 'HEAD'), `ref: refs/heads/${repo.branch}\n`);
  await mkdir(repo.checkout, { recursive: true });
  const templates = options.lazy ? options.templates : undefined;
  const indexFile = path.join(repo.gitDir, 'index');
  if (!(await templates?.write(start, repo.checkout, indexFile))) {
    const filled = await git(['reset', '--hard', '--quiet'], { cwd: repo.checkout, env: repoEnv(repo) });
    if (!filled.ok) return err(`could not check out ${repo.branch} in ${repo.checkout}: ${gitError(filled)}`);
    await templates?.capture(start, repo.checkout, indexFile);
  }
  await writeFile(dotGit, `gitdir: ${repo.gitDir}\n`);
  return ok({ head: start, created: true });
}

async function writeRef(gitDir: string, branch: string, commit: string): Promise<void> {
  const file = path.join(gitDir, 'refs', 'heads', ...branch.split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${commit}\n`);
}

/**
 * Config, hooks (none) and the alternate pointing at the hub's objects: Colony's, never the agent's.
 * Rewritten on every open, never through a link the agent may have left in its git directory (a
 * renamed `info` folder replaced by a link to the host, say): core/no-follow.ts.
 */
async function writeColonyFiles(hub: string, repo: AgentRepo): Promise<void> {
  await mkdir(repo.gitDir, { recursive: true });
  const files: Array<[string, string]> = [
    ['config', agentConfig(isLazy(repo))],
    ['objects/info/alternates', `${path.join(hub, 'objects')}\n`],
    // Attributes in the git directory could name a filter; with no filter defined they do nothing,
    // but a reset keeps the file Colony's.
    ['info/attributes', ''],
    // What a crash mid-write leaves behind (the atomic write's temporary file) is never committed.
    ['info/exclude', `${HUB_EXCLUDES.join('\n')}\n`],
  ];
  for (const [rel, content] of files) {
    const written = await writeNoFollow(repo.gitDir, rel, content);
    if (!written.ok) throw new Error(`could not write ${rel} in ${repo.gitDir}: ${written.error}`);
  }
  await rm(path.join(repo.gitDir, 'commondir'), { force: true });
  const hooks = path.join(repo.gitDir, 'hooks');
  if (!isRealFolder(hooks)) {
    await rm(hooks, { recursive: true, force: true });
    await mkdir(hooks);
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function isRealFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Copies the agent's current commit (its HEAD) into the hub as its branch and returns it. The agent's
 * repository is read through Colony's config and only for objects: what to leave out comes from the
 * hub's refs, and the hub checks every object it is given (see the file header).
 */
export async function publishAgentRepo(
  hubPath: string,
  repo: AgentRepo,
  options: {
    /** HEAD's commit when the caller just made it (one git process fewer). */
    knownHead?: string;
    /** The caller knows the hub has `knownHead` (the agent started there and changed nothing). */
    inHub?: boolean;
    /** Moves the hub's branch (a RefUpdateBatch's, shared by a burst of publishes); default: alone. */
    moveBranch?: (ref: string, commit: string) => Promise<Result<void>>;
  } = {},
): Promise<Result<string>> {
  const hub = path.resolve(hubPath);
  const failed = (reason: string) => err(`could not copy ${repo.branch} into the hub: ${reason}`);
  // git's ref store follows a `commondir` the agent wrote even with GIT_COMMON_DIR set (see git.ts).
  // No agent process runs now (its tools run one at a time and a sandbox's processes end with its
  // command), so removing it is safe.
  await rm(path.join(repo.gitDir, 'commondir'), { force: true });
  const env = repoEnv(repo);
  const head = options.knownHead ? ok(options.knownHead) : await readHead(repo);
  if (!head.ok) return failed(`could not read its HEAD: ${head.error}`);
  const commit = head.value;
  const branchRef = `refs/heads/${repo.branch}`;
  const known = await hubTips(hub, branchRef, commit);
  if (!known.ok) return failed(known.error);
  const { mainTip, branchTip, present } = known.value;
  if (branchTip === commit) return ok(commit);
  // A commit the hub has already (main's, or the agent went back to an older one) needs no copy.
  if (!present && !options.inHub) {
    const exclude = [mainTip, branchTip].flatMap((tip) => (tip ? [`^${tip}`] : []));
    const copied = await gitPipe(
      { args: ['pack-objects', '--revs', '--stdout', '-q'], cwd: repo.gitDir, env },
      { args: ['unpack-objects', '-q', '--strict'], cwd: hub },
      `${[commit, ...exclude].join('\n')}\n`,
    );
    if (!copied.ok) {
      const side = copied.failed === 'to' ? 'the hub refused its objects' : 'could not read its objects';
      return failed(`${side}: ${gitError(copied)}`);
    }
  }
  // Forced, as the fetch's `+HEAD:` was. It refuses an object the hub does not have: a commit whose
  // bytes did not match its name was stored under another name by unpack-objects, if at all.
  const moved = options.moveBranch
    ? await options.moveBranch(branchRef, commit)
    : await updateRefs(hub, [{ ref: branchRef, to: commit }], 'publish');
  return moved.ok ? ok(commit) : failed(moved.error);
}

/**
 * The hub's main and the agent's branch there (what the copy leaves out), and whether the hub has the
 * commit complete already, from the hub's files (no git process): a commit Colony wrote straight into
 * the hub (worktree.ts commitChanges) is a loose object there, and a loose commit in the hub is
 * complete. Git is asked only when the ref files are unusual, or for a commit the hub may have packed.
 */
async function hubTips(
  hub: string,
  branchRef: string,
  commit: string,
): Promise<Result<{ mainTip: string | null; branchTip: string | null; present: boolean }>> {
  const mainTip = await readHubMain(hub);
  const branch = await readRefFiles(hub, branchRef);
  if (branch.kind !== 'unknown') {
    const branchTip = branch.kind === 'found' ? branch.id : null;
    // A packed commit the hub has goes into the copy once more (unpack-objects skips what it has).
    return ok({ mainTip, branchTip, present: isLooseObject(hub, commit) });
  }
  const known = await hubCommits(hub, [branchRef, commit]);
  if (!known.ok) return known;
  const [branchTip = null, present = null] = known.value;
  return ok({ mainTip, branchTip, present: present !== null });
}

async function readHead(repo: AgentRepo): Promise<Result<string>> {
  const head = await git(['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}'], {
    cwd: repo.gitDir,
    env: repoEnv(repo),
  });
  const commit = head.stdout.trim();
  return head.ok && OBJECT_ID.test(commit) ? ok(commit) : err(gitError(head));
}

/** Each name's commit in the hub (null when absent or not a commit), in one git process. */
async function hubCommits(hub: string, names: string[]): Promise<Result<Array<string | null>>> {
  const input = names.map((name) => `${name}^{commit}\n`).join('');
  const result = await git(['cat-file', '--batch-check=%(objectname)'], { cwd: hub, input });
  if (!result.ok) return err(`could not read the hub: ${gitError(result)}`);
  const lines = result.stdout.split('\n');
  return ok(names.map((_, i) => (OBJECT_ID.test(lines[i] ?? '') ? (lines[i] as string) : null)));
}

/** Removes the agent's checkout and git directory (publish first: its branch stays in the hub). */
export async function removeAgentRepo(repo: AgentRepo): Promise<void> {
  // A lazy checkout holds what the agent's tools touched: a few files, not worth a process.
  if (isLazy(repo)) {
    await rm(repo.checkout, { recursive: true, force: true });
    await rm(repo.gitDir, { recursive: true, force: true });
    return;
  }
  // `rm` in a launcher: fs.rm would run a callback per file (a million for 1,000 peers' checkouts of
  // 1,000 files) on Colony's event loop, between the model responses and tool results it serves.
  const removed = await launch('rm', ['-rf', '--', repo.checkout, repo.gitDir], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
  });
  if (removed.code === 0) return;
  await rm(repo.checkout, { recursive: true, force: true });
  await rm(repo.gitDir, { recursive: true, force: true });
}

/** Whether the checkout's `.git` is the file Colony wrote (read without following a link). */
async function pointsAt(dotGit: string, gitDir: string): Promise<boolean> {
  const text = await readTextNoFollow(path.dirname(dotGit), '.git', 64 * 1024);
  return text !== null && path.resolve(text.replace(/^gitdir:\s*/, '').trim()) === path.resolve(gitDir);
}
