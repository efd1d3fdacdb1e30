import { spawn } from 'node:child_process';

export interface CommandResult {
  exitCode: number | null;
  output: string;
  durationMs: number;
  timedOut: boolean;
}

const OUTPUT_CAP = 20_000;

/** Runs a user-given shell command (setup, verify) in a folder; output is combined and capped (tail kept). */
export function runShellCommand(
  command: string,
  cwd: string,
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const child = spawn('bash', ['-c', command], { cwd, env: options.env ?? process.env, detached: true });
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

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
