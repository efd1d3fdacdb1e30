/**
 * The one way Colony reads the hub's main (the run's integrated result): from its ref files without a
 * git process (loose-ref.ts), else from git. The integration queue, sync, review tools, the checks on
 * main, the workspace's result and the agents' repositories all read it here; only the queue moves it
 * (landing.ts, main-guard.ts), in a ref transaction.
 */
import { err, ok, type Result } from '../../lang/result.js';
import { git } from '../git/git.js';
import { readRefFiles } from '../git/loose-ref.js';

/** The hub's integration branch (the user's repository gets it as colony/<run-id>). */
export const HUB_MAIN = 'main';
export const MAIN_REF = `refs/heads/${HUB_MAIN}`;

/** Hub main's commit; null when the hub has no main (or git cannot read it). */
export async function readHubMain(hub: string): Promise<string | null> {
  const fromFiles = await readRefFiles(hub, MAIN_REF);
  if (fromFiles.kind === 'found') return fromFiles.id;
  if (fromFiles.kind === 'absent') return null;
  const parsed = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${MAIN_REF}^{commit}`], {
    cwd: hub,
  });
  return parsed.ok ? parsed.stdout.trim() : null;
}

/** Hub main's commit, or an error naming the hub, for a caller that cannot go on without it. */
export async function hubMainCommit(hub: string): Promise<Result<string>> {
  const main = await readHubMain(hub);
  return main === null ? err(`cannot read ${HUB_MAIN} in the run's hub ${hub}`) : ok(main);
}
