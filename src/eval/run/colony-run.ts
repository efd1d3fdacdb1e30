/**
 * A trial's run is `colony run --json` in a child process of its own. Why a process, not a call:
 * one process executes one run at a time (src/run/durable.ts), so concurrent trials need processes
 * anyway; and the library's runTopology sits above eval in the layers. Its stdout is one event per
 * line and the run summary last; it is read line by line (a real run's log can be large), keeping
 * only the merge counts and the summary.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { colonyBin } from '../../core/package-root.js';
import type { RunSummary } from '../../view/summary.js';
import { firstGreenMsOf, type GreenRules, NO_GREEN, noteGreen } from './first-green.js';

export interface ColonyRunResult {
  /** The run summary (the last line), or null when the run never printed one. */
  summary: RunSummary | null;
  merges: number;
  conflicts: number;
  /** Run start to the first green verify (first-green.ts); null when never, or no rules given. */
  firstGreenMs: number | null;
  exitCode: number | null;
  /** The end of stderr, for an infra error's reason. */
  stderrTail: string;
}

export interface ColonyRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** `run` (default) or `workflow` (a workflow program: its file is the first of ARGS). */
  command?: 'run' | 'workflow';
  /** What counts as a green verify (first-green.ts). */
  green?: GreenRules;
}

/** Runs `colony run ARGS --json` in `cwd`; never rejects (a spawn failure is an exit code null). */
export function runColony(args: readonly string[], options: ColonyRunOptions): Promise<ColonyRunResult> {
  return new Promise((resolve) => {
    const command = options.command ?? 'run';
    const child = spawn(process.execPath, [colonyBin(), command, ...args, '--json'], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Interrupted like a user's Ctrl-C: the run ends as stopped (colony resume can finish it).
      ...(options.signal ? { signal: options.signal, killSignal: 'SIGINT' as const } : {}),
    });
    const result: ColonyRunResult = {
      summary: null,
      merges: 0,
      conflicts: 0,
      firstGreenMs: null,
      exitCode: null,
      stderrTail: '',
    };
    let green = NO_GREEN;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (options.green && typeof json.kind === 'string' && typeof json.ts === 'string')
        green = noteGreen(green, { kind: json.kind, ts: json.ts, data: json.data }, options.green);
      if (json.kind === 'merge.landed') result.merges++;
      else if (json.kind === 'merge.rejected' && (json.data as { reason?: unknown })?.reason === 'conflict')
        result.conflicts++;
      else if (json.kind === undefined && typeof json.status === 'string')
        result.summary = json as unknown as RunSummary;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      result.stderrTail = (result.stderrTail + chunk.toString()).slice(-2000);
    });
    child.on('error', (e) => {
      result.stderrTail += `\n${e.message}`;
    });
    child.on('close', (code) => {
      result.exitCode = code;
      result.firstGreenMs = firstGreenMsOf(green);
      resolve(result);
    });
  });
}
