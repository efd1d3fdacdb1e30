/**
 * Hub main moves only through the integration queue. The queue knows where it last left main (the
 * last `merge.landed` commit, or the run's base before any landing); anything else that moved it — an
 * uncontained agent's `git update-ref`, a person in the hub — is undone here: main goes back to what
 * the queue left, and the foreign commit is kept as refs/colony/moved-outside/<sha> (nothing is lost).
 * Checked before each landing and at finalize, before the result is fetched.
 */
import { err, ok, type Result } from '../../lang/result.js';
import { git } from '../git/git.js';
import { HUB_MAIN } from '../hub/hub.js';
import { MAIN_REF, readHubMain } from '../hub/main.js';
import { updateRefs } from './hub-git.js';

/** What the check found: main as expected, or where it was and that it was put back. */
export type MainCheck = { moved: false; main: string } | { moved: true; main: string; found: string };

export async function guardMain(hub: string, expected: string): Promise<Result<MainCheck>> {
  const found = await readHubMain(hub);
  if (found === expected) return ok({ moved: false, main: expected });
  // The queue sets refs/colony/landed/<id> in the same ref transaction as main: a main that one of
  // them points at was landed by the queue (a process died before logging it), not moved outside.
  if (found && (await landedByQueue(hub, found))) return ok({ moved: false, main: found });
  const restored = await updateRefs(hub, [
    ...(found ? [{ ref: `refs/colony/moved-outside/${found}`, to: found }] : []),
    { ref: MAIN_REF, to: expected, ...(found ? { expectOld: found } : {}) },
  ]);
  if (!restored.ok) return err(`could not put ${HUB_MAIN} back to ${expected}: ${restored.error}`);
  return ok({ moved: true, main: expected, found: found ?? '(missing)' });
}

/** The warning a moved main leaves in the log. */
export function movedMainWarning(check: Extract<MainCheck, { moved: true }>): string {
  return (
    `hub ${HUB_MAIN} was moved outside the integration queue (to ${check.found}); it is back at ` +
    `${check.main}, the last commit the queue landed, and the foreign commit is kept as ` +
    `refs/colony/moved-outside/${check.found}`
  );
}

async function landedByQueue(hub: string, commit: string): Promise<boolean> {
  const refs = await git(['for-each-ref', '--count=1', `--points-at=${commit}`, 'refs/colony/landed/'], {
    cwd: hub,
  });
  return refs.ok && refs.stdout.trim() !== '';
}
