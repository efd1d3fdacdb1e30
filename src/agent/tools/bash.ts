/**
 * `bash {command, timeout_s?}`: run `bash -c` in the worktree, in its own process group, with a
 * time-out, an output cap and an environment without secrets. The whole group is killed on
 * time-out, on abort, and when the command exits (background processes do not outlive it).
 *
 * If Colony itself dies (even by SIGKILL) nothing in Node can kill the group, so a watchdog lives
 * inside it: the command runs under a small wrapper whose background `read` waits on a stdin pipe from
 * Node that Node never writes to. When Node dies the kernel closes its end, `read` sees EOF and the
 * watchdog kills the whole group, so no command outlives the process that would record its result.
 *
 * With a sandbox (`BashToolOptions.sandbox`, src/sandbox/) the wrapper runs inside bubblewrap: Node
 * starts bwrap in the process group instead, killing the group kills bwrap, and `--die-with-parent`
 * plus the sandbox's own PID namespace take every process of the command down with it.
 */
import path from 'node:path';
import { z } from 'zod';
import { type CommandToStart, type Sandbox, startStreamedCommand } from '../../sandbox/index.js';
import { defineTool } from '../../tool/define.js';
import { fail, ok, type Tool, type ToolResult } from '../../tool/types.js';
import { agentEnv } from './env.js';
import { argumentProblem } from './limits.js';
import { OutputCap } from './output-cap.js';

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** After the command exits, how long to wait for pipes held by stragglers before giving up. */
const DRAIN_GRACE_MS = 2_000;

/**
 * Run as `bash -c WRAPPER colony-bash COMMAND`. fd 3 keeps Node's pipe, stdin becomes /dev/null and
 * the wrapper's own stderr goes to /dev/null (so its job notices, like "Killed", never reach the
 * output; the command's stderr is fd 4). The watchdog is a builtin-only subshell (one process),
 * killed and reaped by the wrapper when the command ends, so it neither delays the result nor is
 * left behind as an orphan or zombie. The command's status is passed on (a signal death of the
 * command's shell now shows as exit code 128+N, as in any bash script).
 */
const WRAPPER = [
  'exec 3<&0 </dev/null 4>&2 2>/dev/null',
  'SHLVL=$((SHLVL - 1))', // the command sees the same level as without the wrapper
  '{ while read -r -u 3 _; do :; done; kill -KILL 0; } >/dev/null 4>&- &',
  'w=$!',
  'bash -c "$1" 2>&4 3<&- 4>&-',
  's=$?',
  'kill -KILL "$w"',
  'wait "$w"',
  'exit "$s"',
].join('\n');

export interface BashToolOptions {
  /** Environment to start from (secrets are removed). Default: `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Extra variables, added after secret filtering. */
  env?: Record<string, string>;
  defaultTimeoutS?: number;
  maxOutputChars?: number;
  /**
   * How the command is contained: in this bubblewrap sandbox (the worktree read-write, or read-only
   * when `writable` is false; environment from the allow-list only), or not at all (null, the default).
   */
  sandbox?: Sandbox | null;
}

const schema = z.object({
  command: z.string().min(1).describe('Shell command, run with `bash -c` in the worktree root.'),
  timeout_s: z
    .number()
    .positive()
    .max(BASH_MAX_TIMEOUT_S)
    .optional()
    .describe(`Time-out in seconds (default ${BASH_DEFAULT_TIMEOUT_S}, at most ${BASH_MAX_TIMEOUT_S}).`),
});

export function createBashTool(root: string, options: BashToolOptions = {}): Tool {
  const defaultTimeoutS = options.defaultTimeoutS ?? BASH_DEFAULT_TIMEOUT_S;
  const maxOutputChars = options.maxOutputChars ?? BASH_MAX_OUTPUT_CHARS;
  return defineTool({
    name: 'bash',
    description:
      'Run a shell command with bash in the worktree root and return its combined stdout and stderr ' +
      `and exit code. Default time-out ${defaultTimeoutS} s (timeout_s, at most ${BASH_MAX_TIMEOUT_S}); ` +
      `output over ${maxOutputChars} characters keeps its head and tail. No stdin; background ` +
      'processes are killed when the command ends. Secrets are not in the environment.' +
      sandboxNote(options.sandbox),
    schema,
    // The whole tree: a command may read or write any file of it.
    touches: () => 'all',
    mutates: true,
    run(args, context) {
      const problem = argumentProblem(
        'command',
        args.command,
        'write a script with write and run that; put data in files, not on the command line',
      );
      if (problem) return Promise.resolve(fail(problem));
      const argv = ['bash', '-c', WRAPPER, 'colony-bash', args.command];
      const baseEnv = options.baseEnv ?? process.env;
      const command: CommandToStart = {
        argv,
        cwd: root,
        contain: { baseEnv, extraEnv: options.env },
        uncontainedEnv: agentEnv(baseEnv, options.env),
      };
      return runBash(options.sandbox ?? null, command, {
        timeoutMs: (args.timeout_s ?? defaultTimeoutS) * 1000,
        maxOutputChars,
        signal: context.signal,
      });
    },
  });
}

function sandboxNote(sandbox: Sandbox | null | undefined): string {
  if (!sandbox) return '';
  const files = sandbox.writable
    ? 'the worktree is the only folder it may change (besides a private /tmp)'
    : 'the worktree is read-only (a private /tmp is writable)';
  return ` It runs in a sandbox: ${files}; ${sandbox.network ? 'network allowed' : 'no network'}.`;
}

interface RunOptions {
  timeoutMs: number;
  maxOutputChars: number;
  signal: AbortSignal | undefined;
}

function runBash(sandbox: Sandbox | null, command: CommandToStart, options: RunOptions): Promise<ToolResult> {
  if (options.signal?.aborted) return Promise.resolve(fail('aborted before the command started'));
  return new Promise((resolve) => {
    const output = new OutputCap(options.maxOutputChars);
    let stopped: 'timeout' | 'abort' | null = null;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    // Started by a launcher process (the fork of Colony's own process would block its event loop),
    // in its own process group, so the whole tree can be killed at once. stdin is the watchdog's
    // pipe: never written to nor closed while the command runs.
    const child = startStreamedCommand(sandbox, command, {
      data: (chunk) => output.push(chunk),
      error: (message) =>
        finish(
          fail(
            `could not start ${path.basename(sandbox ? sandbox.bwrap : (command.argv[0] ?? ''))}: ${message}`,
          ),
        ),
      exit: (code, signal) => {
        exitCode = code;
        exitSignal = signal;
        // Leftover background processes would hold the pipes open; end them with their parent.
        child.kill();
        drainTimer = setTimeout(() => finish(report()), DRAIN_GRACE_MS);
      },
      close: () => finish(report()),
    });

    const timer = setTimeout(() => {
      stopped ??= 'timeout';
      child.kill();
    }, options.timeoutMs);
    const onAbort = (): void => {
      stopped ??= 'abort';
      child.kill();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    function finish(result: ToolResult): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // A straggler outside our process group may still hold the pipes; stop listening to it.
      child.release();
      resolve(result);
    }

    const report = (): ToolResult => {
      const text = output.length === 0 ? '(no output)' : output.text();
      if (stopped === 'timeout') {
        return fail(`${text}\n[timed out after ${options.timeoutMs / 1000} s; the command was killed]`);
      }
      if (stopped === 'abort') return fail(`${text}\n[aborted; the command was killed]`);
      if (exitCode === null) return ok(`${text}\n[killed by signal ${exitSignal ?? 'unknown'}]`);
      return ok(`${text}\n[exit code ${exitCode}]`);
    };
  });
}
