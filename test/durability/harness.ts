/**
 * Helpers for the crash-durability tests: a throwaway git repository, the built CLI as a child
 * process (killable with SIGKILL at a chosen moment), the fake provider's counts and git diffs.
 * Child processes inherit COLONY_HOME from test/global-setup.ts, so they share its embedded Postgres.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { FakeStats } from '../fake-provider/server.js';

/** Small deterministic RNG (mulberry32), so a failing kill schedule can be replayed from its seed. */
export { seededRandom } from '../../src/core/random.js';

const execFileAsync = promisify(execFile);

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'bin', 'colony.js');

/** The CLI runs from dist/; build it when missing (`npm test` builds it first in pretest). */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) return;
  await execFileAsync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT });
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

/** A fresh git repository with one commit holding `files`. */
export async function makeRepo(files: Record<string, string>): Promise<{ dir: string; base: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'colony-durability-repo-'));
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'config', 'user.email', 'test@example.com');
  await git(dir, 'config', 'user.name', 'Test');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'initial');
  return { dir, base: (await git(dir, 'rev-parse', 'HEAD')).trim() };
}

/** The environment of CLI children: a dummy key for the fake server, COLONY_HOME inherited. */
export function cliEnv(): NodeJS.ProcessEnv {
  return { ...process.env, OPENAI_API_KEY: 'sk-durability-test', NO_COLOR: '1' };
}

export interface Colony {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Calls `listener` with every stdout line from now on. */
  onLine(listener: (line: string) => void): void;
  stderr(): string;
  /** Resolves with the first `runId` seen in a JSON line on stdout (null if the process ended first). */
  runId: Promise<string | null>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startColony(args: string[], env: NodeJS.ProcessEnv = cliEnv()): Colony {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners: Array<(line: string) => void> = [];
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    err += chunk;
  });
  let foundRunId: (id: string | null) => void = () => {};
  const runId = new Promise<string | null>((resolve) => {
    foundRunId = resolve;
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
    if (!line.startsWith('{')) return;
    try {
      const parsed = JSON.parse(line) as { runId?: unknown };
      if (typeof parsed.runId === 'string') foundRunId(parsed.runId);
    } catch {
      // not JSON: ignore
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      foundRunId(null);
      resolve({ code, signal });
    });
  });
  return { child, lines, onLine: (listener) => listeners.push(listener), stderr: () => err, runId, exited };
}

/** Runs a CLI command to completion. */
export async function colony(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const c = startColony(args);
  const { code } = await c.exited;
  return { code, stdout: c.lines.join('\n'), stderr: c.stderr() };
}

/**
 * Waits `afterMs`, then SIGKILLs the process unless it has exited. Returns true when the kill
 * landed (the process was still running), false when it finished first.
 */
export async function killAfter(c: Colony, afterMs: number): Promise<boolean> {
  const winner = await Promise.race([
    c.exited.then(() => 'exited' as const),
    sleep(afterMs).then(() => 'timer' as const),
  ]);
  if (winner === 'exited') return false;
  c.child.kill('SIGKILL');
  const { signal } = await c.exited;
  return signal === 'SIGKILL';
}

/** An event line of `--json` output, as far as the kill triggers need it. */
export interface EventLine {
  kind: string;
  /** The event's position in the run's log. */
  seq?: number;
  step?: number;
  name?: string;
}

export function parseEventLine(line: string): EventLine | null {
  if (!line.startsWith('{')) return null;
  try {
    const e = JSON.parse(line) as {
      kind?: unknown;
      seq?: unknown;
      data?: { step?: unknown; name?: unknown };
    };
    if (typeof e.kind !== 'string') return null;
    return {
      kind: e.kind,
      seq: typeof e.seq === 'number' ? e.seq : undefined,
      step: typeof e.data?.step === 'number' ? e.data.step : undefined,
      name: typeof e.data?.name === 'string' ? e.data.name : undefined,
    };
  } catch {
    return null; // a line cut short by a kill
  }
}

/**
 * SIGKILLs the process `delayMs` after it prints an event matching `match` (e.g. 100 ms into a
 * `bash` call), unless it exits first. Returns true when the kill landed.
 */
export async function killWhen(
  c: Colony,
  match: (event: EventLine) => boolean,
  delayMs: number,
): Promise<boolean> {
  const seen = new Promise<'seen'>((resolve) => {
    const check = (line: string): void => {
      const event = parseEventLine(line);
      if (event && match(event)) resolve('seen');
    };
    for (const line of c.lines) check(line);
    c.onLine(check);
  });
  const winner = await Promise.race([c.exited.then(() => 'exited' as const), seen]);
  if (winner === 'exited') return false;
  return killAfter(c, delayMs);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Requests served more than once: the sum over keys of (count - 1). */
export function repeatedServes(stats: FakeStats): number {
  let extra = 0;
  for (const n of Object.values(stats.byKey)) extra += Math.max(0, n - 1);
  return extra;
}

/** The result branch's diff against the base commit, in the user's repository. */
export function resultDiff(repo: string, base: string, runId: string): Promise<string> {
  return git(repo, 'diff', '--no-color', base, `colony/${runId}`);
}
