/**
 * The candidate: a batch built as a chain of commits on main with `git merge-tree` (no checkout), and
 * its verification in the one integration worktree of the run (setup once per queue on the base
 * commit's tree, then verify on a clean checkout with a pristine copy of what setup made), with
 * verdicts cached by tree so that bisection never verifies a tree twice.
 */
import path from 'node:path';
import { git, gitError } from '../git/git.js';
import { pastDeadLock } from '../git/stale-locks.js';
import { runSetup, runShellCommand } from '../shell-command.js';
import { addWorktree } from '../worktree.js';
import { planFastChain, writeFastChain } from './fast-chain.js';
import { commitTree, mergeTrees, treeOf } from './hub-git.js';
import type { MainChain } from './main-chain.js';
import type { ObjectReader } from './object-reader.js';
import { captureSetupOutput, restoreSetupOutput, type SetupCopy } from './setup-copy.js';
import { clip, landedMessage, lastLines } from './texts.js';
import type { Applied, IntegrationQueueOptions, IntegrationStats, Pending, Reject } from './types.js';

const VERIFY_CACHE = 256;
/** The run's folder (beside the integration worktree, in no checkout) holding what setup made. */
const SETUP_COPY = 'integration-setup';

export interface Candidate {
  /** The requests applied, in chain order (empty: nothing to verify). */
  applied: Applied[];
  /** Requests that conflict with, or become empty on, an earlier member: to retry alone. */
  deferred: Pending[];
  /** The chain's top commit and its tree. */
  top: string;
  topTree: string;
}

/** What the fast lane needs between batches (one per queue). */
export interface FastLane {
  reader: ObjectReader;
  chain: MainChain;
  /** The ref fast-import leaves on the last chain it wrote. */
  scratchRef: string;
  /** Commits of requests landed by this queue (agents' commits): what later requests may be stacked on. */
  landed: Set<string>;
  stats: IntegrationStats;
}

/**
 * Builds `batch` as a chain on `main`, one commit per request: first the requests the fast lane can
 * take (fast-chain.ts: disjoint paths, three git processes for all of them), then the others one by
 * one with merge-tree on top. A request that fails on its own (error, conflict with main, nothing to
 * merge) is rejected through `reject` on the spot.
 */
export async function buildCandidate(
  hub: string,
  main: string,
  batch: Pending[],
  reject: Reject,
  lane?: FastLane,
): Promise<Candidate> {
  const applied: Applied[] = [];
  const deferred: Pending[] = [];
  let top = main;
  let rest = batch;
  if (lane) {
    const plan = await planFastChain(hub, lane.reader, lane.chain, main, batch, lane.landed);
    const written = plan.fast.length > 0 ? await writeFastChain(hub, main, plan.fast, lane.scratchRef) : null;
    // A failed fast-import leaves nothing that matters (an unreferenced pack at worst): merge-tree all.
    if (written?.ok) {
      plan.fast.forEach(({ request }, i) => {
        const commit = written.commits[i] as string;
        applied.push({ request, parent: top, commit });
        top = commit;
      });
      lane.stats.fastLaned += plan.fast.length;
      rest = plan.rest;
    }
  }
  let topTree = await treeOf(hub, top);
  for (const request of rest) {
    const merged = await mergeTrees(hub, top, request.commit);
    if (merged.kind === 'error') {
      await reject(request, 'error', [], merged.error);
      continue;
    }
    const alone = applied.length === 0;
    if (merged.kind === 'conflict') {
      if (alone) await reject(request, 'conflict', merged.files, conflictOutput(merged.files));
      else deferred.push(request);
      continue;
    }
    if (merged.tree === topTree) {
      if (alone) await reject(request, 'nothing_to_merge', [], '');
      else deferred.push(request);
      continue;
    }
    const message = landedMessage(request.note, request.mr, request.agent, request.commit);
    const made = await commitTree(hub, merged.tree, top, message, request.agent);
    if (!made.ok) {
      await reject(request, 'error', [], made.error);
      continue;
    }
    applied.push({ request, parent: top, commit: made.commit });
    top = made.commit;
    topTree = merged.tree;
  }
  return { applied, deferred, top, topTree: topTree ?? top };
}

function conflictOutput(files: string[]): string {
  return `CONFLICT: the change does not apply cleanly on main in ${files.join(', ')}`;
}

export type Verdict =
  | { passed: true; summary: string }
  | { passed: false; setupFailed: boolean; summary: string; output: string };

type VerifyOptions = Pick<
  IntegrationQueueOptions,
  'runId' | 'workRoot' | 'baseCommit' | 'setup' | 'verify' | 'env' | 'sandbox' | 'verifyTimeoutMs'
>;

/** Verifies candidates in the integration worktree (branch integration/<run>); one verdict per tree. */
export class CandidateVerifier {
  private worktree: string | null = null;
  /** What setup made, once it ran (null: not yet, or it failed and runs again). */
  private setupCopy: SetupCopy | null = null;
  /** prepare()'s work, which verify() waits for (one git process at a time in the worktree). */
  private preparing: Promise<void> | null = null;
  private readonly verdicts = new Map<string, Verdict>();

  constructor(
    private readonly hub: string,
    private readonly options: VerifyOptions,
    private readonly stats: IntegrationStats,
  ) {}

  /**
   * Makes the worktree on `commit` (the base commit, when known) and runs setup in the background,
   * before the first candidate: a full checkout made while a thousand peers submit their first
   * requests took 9 s of the first request's wait. A failure here is met again, and reported, by the
   * first verify.
   */
  prepare(commit: string): void {
    this.preparing ??= (this.options.setup ? this.setUp(commit) : this.checkout(commit))
      .then(() => {})
      .catch(() => {});
  }

  /** `fresh`: run verify again even when the tree has a verdict (a flake retry). */
  async verify(commit: string, tree: string, options: { fresh?: boolean } = {}): Promise<Verdict> {
    const known = this.verdicts.get(tree);
    if (known && !options.fresh) return known;
    await this.preparing;
    const setupFailed = await this.setUp(commit);
    if (setupFailed) return setupFailed;
    const wt = await this.checkout(commit);
    if (!wt.ok) return { passed: false, setupFailed: true, summary: wt.error, output: wt.error };
    const env = this.options.env ?? process.env;
    if (!this.options.verify) return { passed: true, summary: 'no verify command configured' };
    this.stats.verifyRuns++;
    const run = await runShellCommand(this.options.verify, wt.path, {
      env,
      sandbox: this.options.sandbox,
      timeoutMs: this.options.verifyTimeoutMs,
    });
    this.stats.verifyMs += run.durationMs;
    const seconds = (run.durationMs / 1000).toFixed(1);
    const verdict: Verdict =
      run.exitCode === 0
        ? {
            passed: true,
            summary: clip(
              `\`${this.options.verify}\` passed in ${seconds} s: ${lastLines(run.output, 2)}`,
              400,
            ),
          }
        : {
            passed: false,
            setupFailed: false,
            summary: `\`${this.options.verify}\` ${run.timedOut ? 'timed out' : `failed (exit ${run.exitCode})`}`,
            output: run.output,
          };
    this.verdicts.set(tree, verdict);
    if (this.verdicts.size > VERIFY_CACHE) this.verdicts.delete(this.verdicts.keys().next().value as string);
    return verdict;
  }

  /**
   * Runs setup once per queue (again after a failure) on the base commit's tree, with its network
   * (runSetup), and keeps a copy of what it made; the failed verdict, or null. Without a base commit
   * it runs on `commit`, a tree of agents' changes.
   */
  private async setUp(commit: string): Promise<Verdict | null> {
    const command = this.options.setup;
    if (!command || this.setupCopy) return null;
    const base = this.options.baseCommit ?? commit;
    const failed = (summary: string, output: string): Verdict => ({
      passed: false,
      setupFailed: true,
      summary,
      output: `${summary}\n${output}`,
    });
    const wt = await this.checkout(base);
    if (!wt.ok) return failed(`setup \`${command}\` could not run`, wt.error);
    const setup = await runSetup(command, wt.path, {
      env: this.options.env ?? process.env,
      sandbox: this.options.sandbox,
      onBaseTree: base === this.options.baseCommit,
    });
    if (setup.exitCode !== 0)
      return failed(`setup \`${command}\` failed (exit ${setup.exitCode})`, setup.output);
    const copy = await captureSetupOutput(wt.path, path.resolve(this.options.workRoot, SETUP_COPY));
    if (!copy.ok) return failed(`setup \`${command}\` ran, but its files could not be kept`, copy.error);
    this.setupCopy = copy.value;
    return null;
  }

  /**
   * The one integration worktree, exactly `commit`: nothing a previous candidate wrote is left (also
   * no file git ignores), and what setup made is back as setup made it.
   */
  private async checkout(commit: string): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
    if (this.worktree === null) {
      const wtPath = path.join(path.resolve(this.options.workRoot), 'integration');
      const added = await addWorktree(this.hub, wtPath, `integration/${this.options.runId}`, commit);
      if (!added.ok) return { ok: false, error: `integration worktree: ${added.error}` };
      this.worktree = added.path;
    }
    const cwd = this.worktree;
    // Its index lock in the hub (worktrees/integration/index.lock) may be a killed owner's (soak seed 46).
    const reset = await pastDeadLock(
      this.hub,
      () => git(['reset', '--hard', '--quiet', commit], { cwd }),
      (failed) => failed.stderr,
    );
    if (!reset.ok) return { ok: false, error: `could not check out ${commit}: ${gitError(reset)}` };
    // Ignored files too: a candidate's tests could plant node_modules/.bin/<tool> for the next one.
    const clean = await git(['clean', '-ffdxq'], { cwd });
    if (!clean.ok)
      return { ok: false, error: `could not clean the integration worktree: ${gitError(clean)}` };
    if (this.setupCopy) {
      const restored = await restoreSetupOutput(this.setupCopy, cwd);
      if (!restored.ok) return restored;
    }
    return { ok: true, path: cwd };
  }
}
