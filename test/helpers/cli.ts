import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';

export const COLONY_BIN = join(import.meta.dirname, '..', '..', 'bin', 'colony.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `colony` CLI (npm test builds dist/ first) as a child process. */
export function colony(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [COLONY_BIN, ...args],
      {
        env: { ...process.env, ...options.env },
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The last JSON line of `--json` output (the summary). */
export function lastJsonLine(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '{}') as Record<string, unknown>;
}

/** API keys blanked, so a run can reach only the fake provider it is pointed at. */
export const NO_API_KEYS = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

/** The flags that point a run at a fake provider (test/fake-provider) as an OpenAI-chat model. */
export function fakeModelFlags(baseUrl: string): string[] {
  return ['--model', 'openai-chat:fake-model', '--base-url', baseUrl];
}

export interface SpawnedColony {
  child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  output: () => string;
  /** Resolves with the exit code when the process has ended. */
  closed: Promise<number | null>;
}

/** Starts the built `colony` CLI in the background (without API keys) and collects its stdout. */
export function spawnColony(args: string[]): SpawnedColony {
  const child = spawn(process.execPath, [COLONY_BIN, ...args], { env: { ...process.env, ...NO_API_KEYS } });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output: () => stdout, closed };
}
