/**
 * The judge (`colony run --attempts N --judge CMD`): a command run in a fresh checkout of an
 * attempt's result commit that prints a number (higher is better). The tree is the agents' work, so
 * the judge runs as verify does: in the run's sandbox (seeing only the checkout) when the run has
 * one, after the run's setup (without the network: the tree has agents' changes), with an
 * environment that has none of Colony's secrets. The checkout is a git directory of Colony's own
 * that borrows the user's objects (alternates, as publishing does), with Colony's hardened git: no
 * hook or config of the user's repository runs. Its stdout goes to a file of the checkout (a link the
 * agent left there is removed first, and the file is read without following links).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isSecretEnvName } from '../agent/tools/env.js';
import { readNoFollow } from '../core/no-follow.js';
import { userObjectsDir } from '../forge/user-repo.js';
import type { Sandbox } from '../sandbox/index.js';
import { git, gitError } from '../workspace/git/git.js';
import { runSetup, runShellCommand } from '../workspace/shell-command.js';
import type { JudgeScore } from './rank.js';

const STDOUT_FILE = '.colony-judge-stdout';
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export interface JudgeOptions {
  judge: string;
  /** The user's repository (holds the attempt's result commit). */
  repo: string;
  commit: string;
  setup?: string;
  sandbox: Sandbox | null;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export async function judgeCommit(options: JudgeOptions): Promise<JudgeScore> {
  const parent = await mkdtemp(path.join(tmpdir(), 'colony-judge-'));
  const dir = path.join(parent, 'tree');
  try {
    const checkout = await checkoutCommit(options.repo, options.commit, dir);
    if (checkout) return { score: null, reason: checkout };
    const env = judgeEnv(options.env);
    if (options.setup) {
      const setup = await runSetup(options.setup, dir, { env, sandbox: options.sandbox, onBaseTree: false });
      if (setup.exitCode !== 0)
        return { score: null, reason: `setup failed before the judge (exit ${setup.exitCode ?? 'signal'})` };
    }
    await rm(path.join(dir, STDOUT_FILE), { force: true });
    const result = await runShellCommand(`{ ${options.judge}\n} > ${STDOUT_FILE}`, dir, {
      env,
      sandbox: options.sandbox,
      timeoutMs: options.timeoutMs ?? 10 * 60_000,
    });
    if (result.timedOut) return { score: null, reason: 'the judge timed out' };
    if (result.exitCode !== 0)
      return { score: null, reason: `the judge exited with ${result.exitCode ?? 'a signal'}` };
    const read = await readNoFollow(dir, STDOUT_FILE, 1024 * 1024);
    if (!read.ok) return { score: null, reason: `its output was not read: ${read.error}` };
    return scoreOf(read.value.toString('utf8'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/** The judge's score: the last non-empty line of its stdout, when that is a finite number. */
export function scoreOf(stdout: string): JudgeScore {
  const lines = stdout.split('\n').map((line) => line.trim());
  const last = lines.filter((line) => line !== '').pop();
  if (last === undefined) return { score: null, reason: 'the judge printed nothing' };
  const score = NUMBER.test(last) ? Number(last) : Number.NaN;
  if (!Number.isFinite(score))
    return {
      score: null,
      reason: `the judge printed no number (last line: ${JSON.stringify(last.slice(0, 60))})`,
    };
  return { score, reason: null };
}

/** A checkout of `commit` at `dir` from a git directory of Colony's own; an error text or null. */
async function checkoutCommit(repo: string, commit: string, dir: string): Promise<string | null> {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return `not a commit: ${commit}`;
  const objects = await userObjectsDir(repo);
  if (!objects.ok) return objects.error;
  const init = await git(['init', '--quiet', dir], { cwd: path.dirname(dir) });
  if (!init.ok) return `cannot make the judge's checkout: ${gitError(init)}`;
  await writeFile(path.join(dir, '.git', 'objects', 'info', 'alternates'), `${objects.value}\n`);
  const checkedOut = await git(['checkout', '--quiet', '--detach', commit], { cwd: dir });
  if (!checkedOut.ok) return `cannot check out ${commit.slice(0, 10)}: ${gitError(checkedOut)}`;
  return null;
}

/**
 * Colony's environment less its secrets (API keys, tokens, the database's: what agents' commands
 * never get either) and less NODE_TEST_CONTEXT (it changes how Node's test runner reports). In a
 * sandbox only the sandbox's allow-list of it is used (sandbox/env.ts).
 */
function judgeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => name !== 'NODE_TEST_CONTEXT' && !isSecretEnvName(name)),
  );
}
