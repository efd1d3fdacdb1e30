/**
 * A run's shared workspace: the hub is the single source of truth; each writing agent gets its own
 * worktree on `agent/<name>`, created lazily (with the run's setup command run in it once); at the
 * end worktrees are removed, branches stay in the hub, and hub `main` (the integrated result) is
 * fetched into the user's repository as `colony/<run-id>`. Worktrees share the hub's object store, so a
 * thousand agents need a thousand checkouts, not a thousand copies of the history.
 */

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from '../lang/result.js';
import { type Sandbox, setupSandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import { git } from './git.js';
import { createHub, HUB_MAIN } from './hub.js';
import { type FetchResult, fetchResult } from './result.js';
import { runShellCommand } from './shell-command.js';
import { addWorktree, commitAll, removeWorktree } from './worktree.js';

export interface AgentWorkspace {
  agent: string;
  worktree: string;
  branch: string;
}

export type WorkspaceResult<T> = Result<T>;

export class RunWorkspace {
  readonly hubPath: string;
  private readonly ready = new Map<string, Promise<WorkspaceResult<AgentWorkspace>>>();

  constructor(
    private readonly options: {
      runId: string;
      runDir: string;
      userRepo: string;
      baseCommit: string;
      log: EventLog;
      setup?: string;
      env?: NodeJS.ProcessEnv;
      /** Where the setup command runs (with network); null: uncontained. */
      sandbox?: Sandbox | null;
    },
  ) {
    this.hubPath = join(options.runDir, 'hub.git');
  }

  async open(): Promise<WorkspaceResult<string>> {
    const hub = await createHub(this.hubPath, this.options.userRepo, this.options.baseCommit);
    return hub.ok ? { ok: true, value: hub.hubPath } : hub;
  }

  worktreePath(agent: string): string {
    return join(this.options.runDir, 'worktrees', agent);
  }

  /** The agent's worktree, created on first use (concurrent callers share one creation). */
  forAgent(agent: string): Promise<WorkspaceResult<AgentWorkspace>> {
    let pending = this.ready.get(agent);
    if (!pending) {
      pending = this.create(agent);
      this.ready.set(agent, pending);
      // A failed creation may be retried by a later call.
      void pending.then((r) => {
        if (!r.ok) this.ready.delete(agent);
      });
    }
    return pending;
  }

  private async create(agent: string): Promise<WorkspaceResult<AgentWorkspace>> {
    const { runId, log, setup } = this.options;
    const branch = `agent/${agent}`;
    const worktree = this.worktreePath(agent);
    const existing = await log.read(runId, { agent, kinds: ['workspace.ready', 'setup.finished'] });
    const main = await addWorktree(this.hubPath, worktree, branch, await this.mainCommit());
    if (!main.ok) return main;
    if (!existing.some((e) => e.kind === 'workspace.ready')) {
      await log.append({
        runId,
        agent,
        kind: 'workspace.ready',
        data: { hub: this.hubPath, worktree, branch, baseCommit: main.head },
      });
    }
    if (setup && (main.created || !existing.some((e) => e.kind === 'setup.finished'))) {
      const result = await runShellCommand(setup, worktree, {
        env: this.options.env,
        sandbox: setupSandbox(this.options.sandbox),
      });
      await log.append({
        runId,
        agent,
        kind: 'setup.finished',
        data: {
          command: setup,
          exitCode: result.exitCode,
          output: result.output,
          durationMs: result.durationMs,
        },
      });
      if (result.exitCode !== 0)
        return { ok: false, error: `setup command failed in ${worktree} (exit ${result.exitCode})` };
    }
    return { ok: true, value: { agent, worktree, branch } };
  }

  private async mainCommit(): Promise<string> {
    const head = await git(['rev-parse', `refs/heads/${HUB_MAIN}`], { cwd: this.hubPath });
    return head.ok ? head.stdout.trim() : this.options.baseCommit;
  }

  /**
   * Removes one finished agent's worktree, so a run of 1,000 peers keeps only the working ones on
   * disk. Uncommitted changes are first committed on the agent's branch (nothing is lost); a later
   * forAgent() (e.g. after a resume) checks the branch out again.
   */
  async release(agent: string): Promise<WorkspaceResult<void>> {
    const worktree = this.worktreePath(agent);
    this.ready.delete(agent);
    if (!existsSync(worktree)) return { ok: true, value: undefined };
    const saved = await commitAll(worktree, `colony: uncommitted work of ${agent} when it finished`);
    if (!saved.ok) return saved;
    const removed = await removeWorktree(this.hubPath, worktree);
    return removed.ok ? { ok: true, value: undefined } : removed;
  }

  /** Removes every agent worktree (branches stay) and fetches hub main as `colony/<run-id>`. */
  async finish(): Promise<FetchResult> {
    // Every agent's worktree, also those created by an earlier process of this run (before a resume).
    const folder = join(this.options.runDir, 'worktrees');
    const agents = existsSync(folder) ? readdirSync(folder) : [];
    for (const agent of agents) {
      const removed = await removeWorktree(this.hubPath, this.worktreePath(agent));
      if (!removed.ok) return removed;
    }
    this.ready.clear();
    return fetchResult(this.options.userRepo, this.hubPath, HUB_MAIN, `colony/${this.options.runId}`);
  }
}
