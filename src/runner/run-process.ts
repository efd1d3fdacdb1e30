/**
 * One issue's run as a `colony run` process of its own, started with the run id the watch recorded
 * (`--run-id`): a second start of the same id fails on the runs table's key, so a watch restarted
 * after a kill may start it again safely when it cannot tell whether the first start got that far.
 * Detached, in its own process group, its output in a file: the run outlives the watch (a kill -9 of
 * the watch leaves it running; the next watch follows it). The forge's token is not passed on: the
 * run does not publish, the watch does.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { colonyBin } from '../core/package-root.js';

export interface RunProcess {
  /** The exit code once the process ended (null while it runs, or when killed by a signal: -1). */
  exitCode(): number | null;
  /** The last lines it wrote (for an error when it ended before recording the run). */
  outputTail(): string;
}

export interface RunStart {
  runId: string;
  goal: string;
  /** The local clone the run works on. */
  repo: string;
  /** The usual `colony run` flags, passed on as they were given. */
  runArgs: readonly string[];
  /** Where the process's output goes ($COLONY_HOME/watch). */
  folder: string;
  env: NodeJS.ProcessEnv;
}

export function startRunProcess(start: RunStart): RunProcess {
  mkdirSync(start.folder, { recursive: true });
  const file = join(start.folder, `${start.runId}.log`);
  const output = openSync(file, 'a');
  let code: number | null = null;
  try {
    const child = spawn(
      process.execPath,
      [
        colonyBin(),
        'run',
        '--run-id',
        start.runId,
        '--repo',
        start.repo,
        `--goal=${start.goal}`,
        '--json',
        ...start.runArgs,
      ],
      { env: start.env, detached: true, stdio: ['ignore', output, output] },
    );
    child.once('exit', (exit) => {
      code = exit ?? -1;
    });
    child.once('error', () => {
      code = -1;
    });
    child.unref();
  } catch (error) {
    // A process that cannot be started at all ends at once, with the reason in its output.
    writeSync(output, `colony watch: cannot start colony run: ${(error as Error).message}\n`);
    code = -1;
  } finally {
    closeSync(output);
  }
  return {
    exitCode: () => code,
    outputTail() {
      try {
        const lines = readFileSync(file, 'utf8').trim().split('\n');
        return lines.slice(-5).join('\n');
      } catch {
        return '';
      }
    },
  };
}
