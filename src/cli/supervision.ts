/**
 * The supervisor that `colony serve`, `colony worker` and `colony supervise` run (supervise/): on
 * unless the process was started with --no-auto-resume or COLONY_AUTO_RESUME=off. Its decisions are
 * one line each on stderr (or a JSON object per line with `json`).
 */
import { hostname } from 'node:os';
import { terminalJson, terminalLine } from '../core/terminal-text.js';
import type { Store } from '../store/index.js';
import { DEFAULT_RECOVERY_POLICY, type RecoveryDecision, RunSupervisor } from '../supervise/index.js';

/** COLONY_AUTO_RESUME=off (or 0, false, no) turns supervision off for every process of this environment. */
export function autoResumeOff(env: NodeJS.ProcessEnv): boolean {
  return ['off', '0', 'false', 'no'].includes((env.COLONY_AUTO_RESUME ?? '').trim().toLowerCase());
}

export function startSupervision(options: {
  store: Store;
  /** What this process is, for run.recovered: `serve`, `worker <name>`, `supervise`. */
  role: string;
  env: NodeJS.ProcessEnv;
  intervalMs?: number;
  graceMs?: number;
  json?: boolean;
  write?: (line: string) => void;
}): RunSupervisor {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const supervisor = new RunSupervisor({
    store: options.store,
    name: `${options.role}@${hostname()}:${process.pid}`,
    env: options.env,
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    ...(options.graceMs !== undefined
      ? { policy: { ...DEFAULT_RECOVERY_POLICY, graceMs: options.graceMs } }
      : {}),
    onDecision: (runId, decision) =>
      write(
        options.json ? terminalJson({ runId, ...decision }) : terminalLine(decisionLine(runId, decision)),
      ),
    onError: (error) => write(`supervise: scan failed (${error.message}); trying again`),
  });
  supervisor.start();
  return supervisor;
}

function decisionLine(runId: string, decision: RecoveryDecision): string {
  switch (decision.action) {
    case 'resume':
      return `supervise: resuming run ${runId} (its process is gone, log silent for ${Math.round(decision.afterMs / 1000)} s)`;
    case 'wait':
      return `supervise: run ${runId} lost its process; resuming it in ${Math.ceil(decision.inMs / 1000)} s unless it comes back`;
    case 'skip':
      return `supervise: leaving run ${runId}: ${decision.reason}`;
    case 'live':
      return `supervise: run ${runId} is live`;
  }
}
