import { existsSync, rmSync } from 'node:fs';
import { parseDurationMs } from '../../core/duration.js';
import { runDir } from '../../core/home.js';
import type { RunRecord, Store } from '../../store/index.js';
import { git } from '../../workspace/git/git.js';
import { parseFlags, UsageError } from '../args.js';
import { removeResultBranch, resultBranchState } from '../result-branches.js';
import { CliFailure, withStore } from '../store-access.js';

export const CLEAN_HELP = `colony clean [RUN…] [--older-than 7d] [--dry-run] [--keep-branches]

Removes what finished runs left behind: their hubs and worktrees (under $COLONY_HOME/runs) and their
result branches colony/<run-id> in your repositories. Without RUN, every run that finished longer ago
than --older-than (default 7d; 0s = all finished runs); with RUN…, exactly those runs.

  --dry-run        list what would be removed, remove nothing
  --keep-branches  remove only the run folders, keep every colony/<run-id> branch

A result branch is removed only while it still points where the run left it and is not checked out:
one you committed on or checked out is kept (and said so). Events stay in the database, so runs can
still be shown, verified and compared. Running runs are never touched.`;

interface CleanOptions {
  dryRun: boolean;
  keepBranches: boolean;
}

export async function cleanCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      'older-than': { type: 'string' },
      'dry-run': { type: 'boolean' },
      'keep-branches': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'clean',
  );
  if (values.help) {
    process.stdout.write(`${CLEAN_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0 && values['older-than'] !== undefined)
    throw new UsageError('clean: give runs or --older-than, not both');
  const olderThan = parseDurationMs(values['older-than'] ?? '7d');
  if (olderThan === null)
    throw new UsageError(
      `clean: --older-than takes a duration like 7d, 12h or 30m, got "${values['older-than']}"`,
    );
  const options = { dryRun: values['dry-run'] === true, keepBranches: values['keep-branches'] === true };
  return withStore(async (store) => {
    const runs =
      positionals.length > 0 ? await namedRuns(store, positionals) : await oldRuns(store, olderThan);
    let folders = 0;
    let branches = 0;
    for (const run of runs) {
      const done = await cleanRun(store, run, options);
      folders += done.folder ? 1 : 0;
      branches += done.branch ? 1 : 0;
    }
    const did = options.dryRun
      ? 'dry run: nothing removed'
      : `removed ${folders} run folder(s), ${branches} result branch(es)`;
    process.stdout.write(`${did}; events stay in the database\n`);
    return 0;
  });
}

/** The runs the user named: each must exist and be finished (a running run is never touched). */
async function namedRuns(store: Store, ids: readonly string[]): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  for (const id of ids) {
    const run = await store.runs.getRun(id);
    if (!run) throw new CliFailure(`no run ${id} (see colony runs)`);
    if (run.status === 'running')
      throw new CliFailure(`run ${id} is running; stop it first (colony stop ${id})`);
    runs.push(run);
  }
  return runs;
}

async function oldRuns(store: Store, olderThanMs: number): Promise<RunRecord[]> {
  const cutoff = Date.now() - olderThanMs;
  return (await store.runs.listRuns(100_000)).filter(
    (run) => run.status !== 'running' && run.finishedAt !== null && Date.parse(run.finishedAt) <= cutoff,
  );
}

/** One run: its folder, then its result branch; prints a line for each thing removed or kept. */
async function cleanRun(
  store: Store,
  run: RunRecord,
  options: CleanOptions,
): Promise<{ folder: boolean; branch: boolean }> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const verb = options.dryRun ? 'would remove' : 'removing';
  const done = { folder: false, branch: false };
  const dir = runDir(store.home, run.runId);
  if (existsSync(dir)) {
    say(`${verb} ${dir} (${run.status}, finished ${run.finishedAt ?? '?'})`);
    if (!options.dryRun) {
      // Worktrees first (their .git files point into the hub), then the whole run folder.
      const hub = `${dir}/hub.git`;
      if (existsSync(hub)) await git(['worktree', 'prune'], { cwd: hub });
      rmSync(dir, { recursive: true, force: true });
      done.folder = true;
    }
  }
  if (options.keepBranches) return done;
  const state = await resultBranchState(store, run.runId, run.repo);
  if (state.kind === 'kept') say(`keeping ${state.branch} in ${run.repo}: ${state.why}`);
  if (state.kind !== 'removable') return done;
  say(`${verb} branch ${state.branch} in ${run.repo} (${state.commit.slice(0, 10)})`);
  if (options.dryRun) return done;
  const removed = await removeResultBranch(run.repo, state.branch, state.commit);
  if (removed.ok) done.branch = true;
  else say(`  could not remove ${state.branch}: ${removed.error}`);
  return done;
}
