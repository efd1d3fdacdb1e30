import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentRepo } from '../../src/workspace/agent-repo/agent-repo.js';
import { createHub } from '../../src/workspace/hub/hub.js';

const ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_'))),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'user@example.com',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'user@example.com',
};

/** Run git as the test's "user" (independent of the code under test). */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8' }).trim();
}

export function tempDir(prefix = 'colony-ws-'): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function write(root: string, rel: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), content);
}

/** A user repository on branch main with two commits; returns their ids. */
export function makeUserRepo(dir: string): { first: string; second: string } {
  sh(dir, 'init', '--quiet', '--initial-branch=main');
  write(dir, 'README.md', '# sample\n');
  write(dir, 'src/add.js', 'export const add = (a, b) => a - b;\n');
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '--quiet', '-m', 'first');
  const first = sh(dir, 'rev-parse', 'HEAD');
  write(dir, 'src/mul.js', 'export const mul = (a, b) => a * b;\n');
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '--quiet', '-m', 'second');
  return { first, second: sh(dir, 'rev-parse', 'HEAD') };
}

/** Everything about the user's repo that a run must never change (besides adding colony/* refs). */
export function snapshot(repo: string): Record<string, string> {
  const index = path.join(repo, '.git', 'index');
  return {
    head: sh(repo, 'rev-parse', 'HEAD'),
    branch: sh(repo, 'symbolic-ref', '--short', 'HEAD'),
    status: sh(repo, '--no-optional-locks', 'status', '--porcelain'),
    indexHash: createHash('sha256').update(readFileSync(index)).digest('hex'),
    indexMtime: String(statSync(index).mtimeMs),
    branches: sh(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/')
      .split('\n')
      .filter((line) => !line.startsWith('refs/heads/colony/'))
      .join('\n'),
    files: treeHash(repo),
  };
}

function treeHash(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.name === '.git') continue;
      const full = path.join(dir, entry.name);
      hash.update(path.relative(root, full));
      if (entry.isDirectory()) walk(full);
      else hash.update(readFileSync(full));
    }
  };
  walk(root);
  return hash.digest('hex');
}

/**
 * A user repository in `dir/user` with `files` committed on main (`prepare` may add more, e.g. modes
 * and symlinks), and a run's hub made from it in `dir/run/hub.git`.
 */
export async function userRepoAndHub(
  dir: string,
  files: Record<string, string>,
  prepare: (user: string) => void = () => {},
): Promise<{ user: string; hub: string; base: string }> {
  const user = path.join(dir, 'user');
  sh(dir, 'init', '--quiet', '--initial-branch=main', user);
  for (const [rel, content] of Object.entries(files)) write(user, rel, content);
  prepare(user);
  sh(user, 'add', '-A');
  sh(user, 'commit', '--quiet', '-m', 'base');
  const base = sh(user, 'rev-parse', 'HEAD');
  const hub = path.join(dir, 'run', 'hub.git');
  const created = await createHub(hub, user, base);
  if (!created.ok) throw new Error(created.error);
  return { user, hub, base };
}

/** Where an agent's repository lives in a run folder (as RunWorkspace.repoOf lays it out). */
export function agentRepoIn(dir: string, name: string): AgentRepo {
  return {
    checkout: path.join(dir, 'run', 'worktrees', name),
    gitDir: path.join(dir, 'run', 'repos', `${name}.git`),
    branch: `agent/${name}`,
  };
}
