import { killGroup, type Sandbox, setupSandbox, startCommand } from '../sandbox/index.js';

export interface CommandResult {
  exitCode: number | null;
  output: string;
  durationMs: number;
  timedOut: boolean;
}

const OUTPUT_CAP = 20_000;

export interface ShellCommandOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /**
   * Contain the command in this sandbox (it runs candidate code: setup, verify, merge checks); `cwd`
   * is its checkout. Without one (null, the default) it runs as Colony's user with `env`.
   */
  sandbox?: Sandbox | null;
}

/** Runs a user-given shell command (setup, verify) in a folder; output is combined and capped (tail kept). */
export function runShellCommand(
  command: string,
  cwd: string,
  options: ShellCommandOptions = {},
): Promise<CommandResult> {
  const started = performance.now();
  const env = options.env ?? process.env;
  return new Promise((resolvePromise) => {
    // Its own process group (killed whole on time-out); a sandbox dies with bwrap, which leads it.
    const child = startCommand(options.sandbox ?? null, {
      argv: ['bash', '-c', command],
      cwd,
      contain: { baseEnv: env },
      uncontainedEnv: env,
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_CAP * 2) output = output.slice(-OUTPUT_CAP);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        killGroup(child.pid);
      },
      options.timeoutMs ?? 30 * 60_000,
    );
    const done = (exitCode: number | null) => {
      clearTimeout(timer);
      const capped =
        output.length > OUTPUT_CAP
          ? `…(${output.length - OUTPUT_CAP} chars cut)\n${output.slice(-OUTPUT_CAP)}`
          : output;
      resolvePromise({
        exitCode,
        output: capped,
        durationMs: Math.round(performance.now() - started),
        timedOut,
      });
    };
    child.on('error', (err) => {
      output += `\n${err.message}`;
      done(null);
    });
    child.on('close', (code) => done(code));
  });
}

/**
 * Runs the run's `--setup` command in a checkout, with the network only on the base commit's tree
 * (sandbox.ts setupSandbox). A setup that fails without the network says so, and how to allow it.
 */
export async function runSetup(
  command: string,
  cwd: string,
  options: { env?: NodeJS.ProcessEnv; sandbox?: Sandbox | null; onBaseTree: boolean },
): Promise<CommandResult & { failedOffline: boolean }> {
  const sandbox = setupSandbox(options.sandbox, options.onBaseTree);
  const result = await runShellCommand(command, cwd, { env: options.env, sandbox });
  const failedOffline = result.exitCode !== 0 && sandbox !== null && !sandbox.network;
  return failedOffline
    ? { ...result, output: `${result.output}\n${SETUP_OFFLINE}`, failedOffline }
    : { ...result, failedOffline };
}

export const SETUP_OFFLINE =
  "setup ran without the network: this tree has agents' changes, and only the base commit's tree gets the network for setup (pass --allow-network to give it the network everywhere)";
