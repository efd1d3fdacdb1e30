/**
 * A supervisor: any long-running Colony process on the store (`colony serve`, `colony worker`,
 * `colony supervise`) looks at the running runs every few seconds and resumes, on its own, each one
 * whose process is gone (recovery-decision.ts) — as a `colony resume RUN` child of its own, detached,
 * so the run goes on if the supervisor stops. Supervisors may race for a run: the run lock decides
 * (store/run-lock.ts), the loser's child exits at once, and only the winner logs `run.recovered`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { colonyBin } from '../core/package-root.js';
import { interruptedRunIds } from '../run/interrupted.js';
import { runSilences, type Store } from '../store/index.js';
import {
  DEFAULT_RECOVERY_POLICY,
  type RecoveryDecision,
  type RecoveryPolicy,
  recoveryDecision,
} from './recovery-decision.js';

export interface SupervisorOptions {
  store: Store;
  /** Who resumes, as logged in run.recovered (e.g. `serve@host:pid`). */
  name: string;
  /** The resumed runs' environment (model keys, the store's location). */
  env: NodeJS.ProcessEnv;
  /** Between scans (default 5 s). */
  intervalMs?: number;
  policy?: RecoveryPolicy;
  /** Each run's decision, once per change (a resume each time one is started). */
  onDecision?: (runId: string, decision: RecoveryDecision) => void;
  /** A scan that failed (the database away): the supervisor tries again at the next one. */
  onError?: (error: Error) => void;
}

export const DEFAULT_SCAN_MS = 5_000;

export class RunSupervisor {
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private stopped = false;
  /** Runs this supervisor started a resume of, while that child lives. */
  private readonly resuming = new Map<string, ChildProcess>();
  private readonly reported = new Map<string, string>();

  constructor(private readonly options: SupervisorOptions) {}

  /** Scans until stop(); the timer keeps the process alive (a supervisor is what it is there for). */
  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.scanning;
  }

  /** One look at the running runs; resumes the orphaned ones. */
  async scan(): Promise<void> {
    const { store } = this.options;
    const running = await store.runs.listRunning();
    const interrupted = await interruptedRunIds(store, running);
    const orphans = running.filter((r) => interrupted.has(r.runId) && !this.resuming.has(r.runId));
    const silences = await runSilences(
      store.pool,
      orphans.map((r) => r.runId),
    );
    for (const run of orphans) {
      const silence = silences.get(run.runId);
      const decision = recoveryDecision(
        run.runId,
        {
          interrupted: true,
          stopRequested: silence?.stopRequested ?? false,
          autoResume: run.config.autoResume !== false,
          silentMs: silence?.silentMs ?? null,
          repoHere: existsSync(run.repo),
        },
        this.options.policy ?? DEFAULT_RECOVERY_POLICY,
      );
      this.report(run.runId, decision);
      if (decision.action === 'resume') this.resume(run.runId, decision.afterMs);
    }
    // Runs no longer orphaned (finished, or resumed by someone) may be reported again later.
    for (const runId of this.reported.keys()) if (!interrupted.has(runId)) this.reported.delete(runId);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.scanning = this.scan()
        .catch((error: unknown) => this.options.onError?.(error as Error))
        .finally(() => {
          this.scanning = null;
          this.schedule(this.options.intervalMs ?? DEFAULT_SCAN_MS);
        });
    }, ms);
  }

  private report(runId: string, decision: RecoveryDecision): void {
    const key = decision.action === 'skip' ? `skip:${decision.reason}` : decision.action;
    if (decision.action !== 'resume' && this.reported.get(runId) === key) return;
    this.reported.set(runId, key);
    if (decision.action !== 'live') this.options.onDecision?.(runId, decision);
  }

  private resume(runId: string, afterMs: number): void {
    const { store, name, env } = this.options;
    const folder = join(store.home, 'recovered');
    mkdirSync(folder, { recursive: true });
    const output = openSync(join(folder, `${runId}.log`), 'a');
    const child = spawn(
      process.execPath,
      [
        colonyBin(),
        'resume',
        runId,
        '--json',
        '--recovered-by',
        name,
        '--recovered-after',
        String(Math.round(afterMs)),
      ],
      // Its own process group: the run outlives this supervisor (and its Ctrl-C).
      { env, detached: true, stdio: ['ignore', output, output] },
    );
    closeSync(output);
    this.resuming.set(runId, child);
    child.once('exit', () => this.resuming.delete(runId));
    child.once('error', () => this.resuming.delete(runId));
    child.unref();
  }
}
