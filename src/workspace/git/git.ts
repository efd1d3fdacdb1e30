/**
 * Run git as data: an argument array (never a shell string), a result object
 * (never a throw), and an environment that does not depend on the user's global or system config.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { type LaunchResult, launch, launchPipe } from '../../core/launcher.js';
import { agentGitCall } from '../agent-repo/agent-git.js';

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** Exit code; null when git could not be started or was killed. */
  code: number | null;
}

export interface GitOptions {
  /** Folder to run in (`git -C`). */
  cwd: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Read the user's global/system git config (excludes file, safe.directory) — for commands in the
   * user's own repository. Default false: hub and worktree commands never depend on it.
   */
  userConfig?: boolean;
  /** Written to git's stdin (which is closed after it). */
  input?: string | Buffer;
  /** How stdout is decoded (default utf8; latin1 keeps path bytes as they are). */
  encoding?: 'utf8' | 'latin1';
  /**
   * Config for this call only, passed in the environment (GIT_CONFIG_KEY_n), never in the arguments:
   * a credential header here is not in the command line other processes can read.
   */
  config?: readonly (readonly [string, string])[];
  /**
   * The command needs the network (a fleet worker's push to the run's gateway): on an agent's
   * repository its sandbox then shares the host's network.
   */
  network?: boolean;
  /**
   * On an agent's repository: run in its sandbox (agent-git.ts) — for every command that writes
   * files in its git directory by name (merge, rebase, reset, update-ref: MERGE_MSG, ORIG_HEAD,
   * reflogs) or objects into its own store, where a link the agent planted would lead a write out.
   * Commands that only read, or write by lock file and rename (add, write-tree, status), and objects
   * into the hub's store, run on the host (a sandbox costs ~9 ms a call idle, far more under load).
   */
  contain?: boolean;
}

export const AGENT_NAME = 'Colony Agent';
export const AGENT_EMAIL = 'agent@colony.local';

/** The identity of commits made on the agents' behalf, as git's environment. */
export const AGENT_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: AGENT_NAME,
  GIT_AUTHOR_EMAIL: AGENT_EMAIL,
  GIT_COMMITTER_NAME: AGENT_NAME,
  GIT_COMMITTER_EMAIL: AGENT_EMAIL,
};

/** `-c` options for commits made on the agents' behalf: fixed identity, no signing. */
export const AGENT_COMMIT_CONFIG = [
  '-c',
  `user.name=${AGENT_NAME}`,
  '-c',
  `user.email=${AGENT_EMAIL}`,
  '-c',
  'commit.gpgsign=false',
];

const MAX_BUFFER = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * What git may see of Colony's environment: enough to find programs, the user's home (their config,
 * for commands in their own repository), temp space and the locale. Never a key, a database URL or
 * a GIT_* variable (a hook's GIT_DIR must not redirect us).
 */
const GIT_ENV_ALLOW = ['PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'TZ', 'SSH_AUTH_SOCK'];

/**
 * Settings no repository config may override in Colony's own git calls (the GIT_CONFIG_* variables
 * rank above every config file): no hooks, no fsmonitor daemon, no ext:: transport — an agent that
 * writes a repository's config must not get a command run by Colony, outside its sandbox.
 */
const HARDENED_CONFIG: ReadonlyArray<[string, string]> = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['protocol.ext.allow', 'never'],
  // Never into a nested repository or submodule an agent made: git would start a git of its own
  // there (status, diff), with that repository's config (filters, fsmonitor, hooks) and without these
  // settings (git clears GIT_CONFIG_* for a submodule's process).
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  // No credential helper of anyone's config (an empty value clears the list).
  ['credential.helper', ''],
];

/** `GIT_CONFIG_COUNT` and its `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` pairs for these settings. */
function configEnv(settings: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Made once: every git call has them (spreading a fresh one cost ~70 µs a call, 16,000 calls a run). */
const HARDENED_ENV = configEnv(HARDENED_CONFIG);

export function gitEnv(
  extra: Record<string, string> = {},
  userConfig = false,
  extraConfig: readonly (readonly [string, string])[] = [],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of GIT_ENV_ALLOW) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  // Replacement refs (an agent may write refs/replace/* in its own repository) never change what
  // Colony reads.
  env.GIT_NO_REPLACE_OBJECTS = '1';
  Object.assign(
    env,
    extraConfig.length === 0 ? HARDENED_ENV : configEnv([...HARDENED_CONFIG, ...extraConfig]),
  );
  if (!userConfig) {
    env.GIT_CONFIG_NOSYSTEM = '1';
    env.GIT_CONFIG_GLOBAL = '/dev/null';
  }
  // Stable, parseable messages whatever the user's locale.
  env.LC_ALL = 'C';
  return Object.assign(env, extra);
}

/**
 * Runs git to its end. The process is started by a launcher (core/launcher.ts), not by Colony's own
 * process, whose synchronous fork cost grows with its memory and stalls the event loop.
 */
export function git(args: string[], options: GitOptions): Promise<GitResult> {
  return runGit('git', args, options);
}

/**
 * `sh -c script` with git's environment, where git would run (in an agent repository's sandbox when
 * `cwd` is one): several git commands of one operation in one sandbox. `args` are the script's $1….
 */
export function shInRepo(script: string, args: string[], options: GitOptions): Promise<GitResult> {
  return runGit('sh', ['-c', script, 'colony-sh', ...args], options);
}

async function runGit(program: 'git' | 'sh', args: string[], options: GitOptions): Promise<GitResult> {
  const agentRepo = agentGitCall(options.cwd);
  // An agent's repository, found from Colony's record (never its `.git` file): git pinned to it, in
  // its own sandbox (agent-git.ts), whatever the agent left in it.
  const env = gitEnv({ ...options.env, ...agentRepo?.pinnedEnv }, options.userConfig, options.config);
  if (agentRepo) removeCommondir(agentRepo.place.gitDir);
  const contained = (options.contain ? agentRepo?.contain : null)?.([program, ...args], {
    cwd: path.resolve(options.cwd),
    env,
    ...(options.network ? { network: true } : {}),
  });
  // Git in an agent's repository is that agent's work: the launchers' background lane.
  const background = agentRepo !== null;
  const launched = contained
    ? launch(contained.file, contained.args, {
        cwd: '/',
        env: contained.env,
        background,
        ...launchLimits(options),
      })
    : launch(program, args, { cwd: options.cwd, env, background, ...launchLimits(options) });
  const result = await launched;
  const stdout = result.stdout.toString(options.encoding ?? 'utf8');
  const stderr = result.stderr.toString('utf8');
  if (result.code === 0) return { ok: true, stdout, stderr, code: 0 };
  return {
    ok: false,
    stdout,
    stderr: stderr || result.error || `git exited with ${result.code}`,
    code: result.code,
  };
}

function launchLimits(options: GitOptions) {
  return {
    maxBuffer: MAX_BUFFER,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.input !== undefined ? { input: options.input } : {}),
  };
}

/** One side of `gitPipe`: git's arguments, folder and extra environment. */
export interface PipeEnd {
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  contain?: boolean;
}

/** `gitPipe`'s outcome: the failing side's output (and which side it was), else the consumer's. */
export interface PipeResult extends GitResult {
  failed?: 'from' | 'to';
}

/**
 * `git <from> | git <to>` without a shell, `input` on the first one's stdin; the bytes stream through
 * inside a launcher process (core/launcher.ts; never held whole). The result is the side that failed
 * first (the other is then ended: a producer whose reader is gone would block on a full pipe, a
 * consumer fed half a stream is of no use), else the consumer's output.
 */
export async function gitPipe(
  from: PipeEnd,
  to: PipeEnd,
  input: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<PipeResult> {
  const command = (end: PipeEnd) => {
    const agentRepo = agentGitCall(end.cwd);
    const env = gitEnv({ ...end.env, ...agentRepo?.pinnedEnv });
    // Reads only (pack-objects): never contained (see GitOptions.contain).
    const contained = end.contain
      ? agentRepo?.contain?.(['git', ...end.args], { cwd: path.resolve(end.cwd), env })
      : undefined;
    return contained
      ? { file: contained.file, args: contained.args, cwd: '/', env: contained.env }
      : { file: 'git', args: end.args, cwd: end.cwd, env };
  };
  const piped = await launchPipe(command(from), command(to), {
    input,
    timeoutMs,
    maxBuffer: MAX_BUFFER,
    background: agentGitCall(from.cwd) !== null,
  });
  const asGit = (result: LaunchResult, args: string[]): GitResult => {
    const stdout = result.stdout.toString('utf8');
    const stderr = result.stderr.toString('utf8');
    if (result.code === 0) return { ok: true, stdout, stderr, code: 0 };
    const why = stderr || result.error || `git ${args.join(' ')} exited with ${result.code}`;
    return { ok: false, stdout, stderr: why, code: result.code };
  };
  // Both ends failing by themselves is the producer's fault: the consumer only saw its input end
  // ("early EOF"), whichever exit the launcher noticed first. A producer we killed has no code.
  const producerFailed = piped.from.code !== null && piped.from.code !== 0;
  const failed = piped.failed === 'to' && producerFailed ? 'from' : piped.failed;
  if (failed) {
    const side = failed === 'from' ? piped.from : piped.to;
    return { ...asGit(side, failed === 'from' ? from.args : to.args), failed };
  }
  return asGit(piped.to, to.args);
}

/**
 * git's ref store follows a `commondir` file in the git directory even with GIT_COMMON_DIR set, and
 * the agent can write one (its git directory is writable in its sandbox) to point Colony's git at a
 * repository of its choosing: it is removed before each of Colony's commands. An agent's tools run
 * one at a time and a sandbox's processes end with its command, so nothing of a built-in agent's runs
 * now; a CLI agent's could, and then reaches only its own sandbox's view (agent-git.ts).
 */
function removeCommondir(gitDir: string): void {
  rmSync(path.join(gitDir, 'commondir'), { force: true });
}

/** First line of git's error output, for one-line error messages. */
export function gitError(result: GitResult): string {
  const lines = result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  const fatal = lines.find((line) => line.startsWith('fatal:') || line.startsWith('error:'));
  const said = (fatal ?? lines[0] ?? `git exited with code ${result.code}`).replace(/^(fatal|error): /, '');
  // A refused push says why on its own line (" ! [remote rejected] main -> main (failed to lock)"),
  // above the "failed to push some refs" that is its error line.
  const rejected = lines.filter((line) => /^!\s*\[(remote )?rejected\]/.test(line));
  return rejected.length > 0 ? `${said}: ${rejected.join('; ')}` : said;
}
