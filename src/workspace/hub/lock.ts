/**
 * Serialises worktree administration per hub within this process. Concurrent `git worktree add`
 * calls on one repository race: each reads the others' half-written admin folders and fails
 * ("failed to read worktrees/x/commondir"). Other processes are covered by retrying (see worktree.ts).
 */
const tails = new Map<string, Promise<unknown>>();

export function withHubLock<T>(hub: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(hub) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  tails.set(hub, tail);
  void tail.then(() => {
    if (tails.get(hub) === tail) tails.delete(hub);
  });
  return run;
}
