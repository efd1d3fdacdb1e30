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
 * Creation costs one git process (`reset --hard` fills the index and the checkout); the rest is
 * plain files. A branch the hub already has (a released agent that resumes) is checked out again.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { err, ok, type Result } from '../lang/result.js';
import { git, gitError } from './git.js';
import { HUB_EXCLUDES, HUB_MAIN } from './hub.js';
import { revParse } from './integration/hub-git.js';
import { isValidBranchName } from './ref-name.js';

/** Folder (in the run folder) that holds the agents' git directories. */
export const AGENT_GIT_DIRS = 'repos';

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
 * The config of every agent repository: no gc (its objects live in the hub), the agents' commit
 * identity (an agent may commit in its own bash), nothing that runs a program. Rewritten on every open, so a repository from an older Colony gets it too.
 */
const AGENT_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
[gc]
\tauto = 0
[user]
\tname = Colony Agent
\temail = agent@colony.local
[commit]
\tgpgsign = false
`;

/** Opens the agent's repository, creating it on `startCommit` (or the hub's branch) when absent. */
export async function openAgentRepo(options: {
  hubPath: string;
  repo: AgentRepo;
  startCommit: string;
}): Promise<Result<{ head: string; created: boolean }>> {
  const { repo } = options;
  if (!isValidBranchName(repo.branch)) return err(`invalid branch name: ${repo.branch}`);
  const hub = path.resolve(options.hubPath);
  const dotGit = path.join(repo.checkout, '.git');
  if (await pointsAt(dotGit, repo.gitDir)) {
    await writeColonyFiles(hub, repo);
    const head = await git(['rev-parse', 'HEAD'], { cwd: repo.checkout, env: repoEnv(repo) });
    if (head.ok) return ok({ head: head.stdout.trim(), created: false });
  }
  if (existsSync(dotGit)) {
    return err(`${repo.checkout} exists but is not the agent's repository (its .git is not Colony's)`);
  }
  // Absent, or left half-made by a crash (no .git yet: it holds no agent work): start again.
  await rm(repo.checkout, { recursive: true, force: true });
  await rm(repo.gitDir, { recursive: true, force: true });
  const start = (await revParse(hub, `refs/heads/${repo.branch}^{commit}`)) ?? options.startCommit;
  await mkdir(path.join(repo.gitDir, 'refs', 'tags'), { recursive: true });
  await writeColonyFiles(hub, repo);
  // Loose refs are plain files: the agent's branch, and `main` as the hub had it (sync moves it).
  await writeRef(repo.gitDir, repo.branch, start);
  if (repo.branch !== HUB_MAIN) await writeRef(repo.gitDir, HUB_MAIN, options.startCommit);
  await writeFile(path.join(repo.gitDir, 'HEAD'), `ref: refs/heads/${repo.branch}\n`);
  await mkdir(repo.checkout, { recursive: true });
  const filled = await git(['reset', '--hard', '--quiet'], { cwd: repo.checkout, env: repoEnv(repo) });
  if (!filled.ok) return err(`could not check out ${repo.branch} in ${repo.checkout}: ${gitError(filled)}`);
  await writeFile(dotGit, `gitdir: ${repo.gitDir}\n`);
  return ok({ head: start, created: true });
}

async function writeRef(gitDir: string, branch: string, commit: string): Promise<void> {
  const file = path.join(gitDir, 'refs', 'heads', ...branch.split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${commit}\n`);
}

/** Config, hooks (none) and the alternate pointing at the hub's objects: Colony's, never the agent's. */
async function writeColonyFiles(hub: string, repo: AgentRepo): Promise<void> {
  await mkdir(path.join(repo.gitDir, 'objects', 'info'), { recursive: true });
  await mkdir(path.join(repo.gitDir, 'hooks'), { recursive: true });
  await mkdir(path.join(repo.gitDir, 'info'), { recursive: true });
  await writeFile(path.join(repo.gitDir, 'config'), AGENT_CONFIG);
  await rm(path.join(repo.gitDir, 'commondir'), { force: true });
  await writeFile(path.join(repo.gitDir, 'objects', 'info', 'alternates'), `${path.join(hub, 'objects')}\n`);
  // Attributes in the git directory could name a filter; with no filter defined they do nothing, but
  // a reset keeps the file Colony's.
  await writeFile(path.join(repo.gitDir, 'info', 'attributes'), '');
  // What a crash mid-write leaves behind (the atomic write's temporary file) is never committed.
  await writeFile(path.join(repo.gitDir, 'info', 'exclude'), `${HUB_EXCLUDES.join('\n')}\n`);
}

/**
 * Copies the agent's current commit (its HEAD) into the hub as its branch and returns it. Colony's
 * git runs in the hub; the agent's repository is only read, through its own (Colony's) config.
 */
export async function publishAgentRepo(hubPath: string, repo: AgentRepo): Promise<Result<string>> {
  const hub = path.resolve(hubPath);
  // The fetch below reads the agent's repository through git's local transport, which drops
  // GIT_COMMON_DIR: a `commondir` the agent wrote would redirect it. No agent process runs now (its
  // tools run one at a time and a sandbox's processes end with its command), so removing it is safe.
  await rm(path.join(repo.gitDir, 'commondir'), { force: true });
  const args = [
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-write-fetch-head',
    '--no-recurse-submodules',
    '--',
    repo.gitDir,
    `+HEAD:refs/heads/${repo.branch}`,
  ];
  let fetched = await git(args, { cwd: hub });
  // `git worktree add` in the hub (a verify or integration checkout being made) first points the new
  // worktree's HEAD at the null id; a fetch's connectivity check (`rev-list --not --all`, every
  // worktree's HEAD included) that runs in that instant fails with "bad object worktrees/<x>/HEAD".
  // The window is a few milliseconds: try again.
  for (let attempt = 1; !fetched.ok && BAD_WORKTREE_HEAD.test(fetched.stderr) && attempt <= 10; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    fetched = await git(args, { cwd: hub });
  }
  if (!fetched.ok) return err(`could not copy ${repo.branch} into the hub: ${gitError(fetched)}`);
  const tip = await revParse(hub, `refs/heads/${repo.branch}^{commit}`);
  return tip ? ok(tip) : err(`${repo.branch} is missing from the hub after publishing it`);
}

const BAD_WORKTREE_HEAD = /bad object worktrees\/[^\s/]+\/HEAD/;

/** Removes the agent's checkout and git directory (publish first: its branch stays in the hub). */
export async function removeAgentRepo(repo: AgentRepo): Promise<void> {
  await rm(repo.checkout, { recursive: true, force: true });
  await rm(repo.gitDir, { recursive: true, force: true });
}

async function pointsAt(dotGit: string, gitDir: string): Promise<boolean> {
  try {
    const text = await readFile(dotGit, 'utf8');
    return path.resolve(text.replace(/^gitdir:\s*/, '').trim()) === path.resolve(gitDir);
  } catch {
    return false;
  }
}
