/**
 * Run git as data: an argument array through execFile (never a shell string), a result object
 * (never a throw), and an environment that does not depend on the user's global or system config.
 */
import { execFile } from 'node:child_process';

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
}

export const AGENT_NAME = 'Colony Agent';
export const AGENT_EMAIL = 'agent@colony.local';

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

/** The parent's environment without GIT_* variables (a hook's GIT_DIR must not redirect us). */
export function gitEnv(extra: Record<string, string> = {}, userConfig = false): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('GIT_')) env[name] = value;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    // No hooks anywhere: neither the user's nor the hub's may run during our operations.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.hooksPath',
    GIT_CONFIG_VALUE_0: '/dev/null',
    ...(userConfig ? {} : { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }),
    // Stable, parseable messages whatever the user's locale.
    LC_ALL: 'C',
    ...extra,
  };
}

export function git(args: string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: gitEnv(options.env, options.userConfig),
        maxBuffer: MAX_BUFFER,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ ok: true, stdout, stderr, code: 0 });
          return;
        }
        const code = typeof error.code === 'number' ? error.code : null;
        const message = stderr || error.message;
        resolve({ ok: false, stdout, stderr: message, code });
      },
    );
  });
}

/** First line of git's error output, for one-line error messages. */
export function gitError(result: GitResult): string {
  const lines = result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  const fatal = lines.find((line) => line.startsWith('fatal:') || line.startsWith('error:'));
  return (fatal ?? lines[0] ?? `git exited with code ${result.code}`).replace(/^(fatal|error): /, '');
}
