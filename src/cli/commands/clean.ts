import { existsSync, rmSync } from 'node:fs';
import { parseDurationMs } from '../../core/duration.js';
import { runDir } from '../../core/home.js';
import { git } from '../../workspace/git.js';
import { parseFlags, UsageError } from '../args.js';
import { withStore } from '../store-access.js';

export const CLEAN_HELP = `colony clean [--older-than 7d] [--dry-run]

Removes the hubs and worktrees (under $COLONY_HOME/runs) of finished runs that finished longer ago than
--older-than (default 7d; 0s = all finished runs). Events stay in the database, so runs can still be
shown, verified and compared; result branches already fetched into your repositories are untouched.
Running runs are never touched.`;

export async function cleanCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      'older-than': { type: 'string' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    'clean',
  );
  if (values.help) {
    process.stdout.write(`${CLEAN_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`clean: unexpected argument "${positionals[0]}"`);
  const olderThan = parseDurationMs(values['older-than'] ?? '7d');
  if (olderThan === null)
    throw new UsageError(
      `clean: --older-than takes a duration like 7d, 12h or 30m, got "${values['older-than']}"`,
    );
  const cutoff = Date.now() - olderThan;
  return withStore(async (store) => {
    let removed = 0;
    for (const run of await store.runs.listRuns(100_000)) {
      if (run.status === 'running' || !run.finishedAt || Date.parse(run.finishedAt) > cutoff) continue;
      const dir = runDir(store.home, run.runId);
      if (!existsSync(dir)) continue;
      process.stdout.write(
        `${values['dry-run'] ? 'would remove' : 'removing'} ${dir} (${run.status}, finished ${run.finishedAt})\n`,
      );
      if (values['dry-run']) continue;
      // Worktrees first (their .git files point into the hub), then the whole run folder.
      const hub = `${dir}/hub.git`;
      if (existsSync(hub)) await git(['worktree', 'prune'], { cwd: hub });
      rmSync(dir, { recursive: true, force: true });
      removed += 1;
    }
    process.stdout.write(
      `${values['dry-run'] ? 'dry run: nothing removed' : `removed ${removed} run folder(s)`}; events stay in the database\n`,
    );
    return 0;
  });
}
