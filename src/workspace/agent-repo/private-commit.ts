/**
 * `git commit` of an agent repository's index from a git directory of Colony's own (core/agent-layout.ts
 * `commitDir`), for the commit into the hub's object store that every merge_request, sync and release
 * makes. git writes what a commit writes by name — COMMIT_EDITMSG, HEAD, its reflog, MERGE_HEAD's
 * removal — in that private folder, which no sandbox binds, and reads its config (no filter, hook or
 * driver of anyone's) from there; from the agent's repository it takes only the index (written by lock
 * file and rename: a planted link is replaced, never written through) and the checkout's files. The
 * agent's branch is then moved by Colony with a no-follow write (agent-commit.ts).
 *
 * Why not commit-tree: the plumbing (add, write-tree, rev-parse, commit-tree, in a shell) is five
 * processes a commit against `add` + `commit` here — the 1,000-peer bench's burst of ~650 commits made
 * merge requests wait twice as long (bench/README.md).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentRepoPlace } from '../../core/agent-layout.js';
import { readTextNoFollow } from '../../core/no-follow.js';
import { AGENT_COMMIT_CONFIG, AGENT_IDENTITY, git, gitError } from '../git/git.js';
import { OBJECT_ID } from '../git/loose-ref.js';

export type PrivateCommit =
  | { kind: 'committed'; commit: string }
  | { kind: 'nothing' }
  /** The hub's store lacks an object the index or HEAD names (the agent committed in its own store). */
  | { kind: 'not-in-hub'; error: string }
  | { kind: 'failed'; error: string };

const PRIVATE_CONFIG = `[core]
\trepositoryformatversion = 0
\tbare = false
\tlogAllRefUpdates = false
[gc]
\tauto = 0
[maintenance]
\tauto = false
`;

/** One commit at a time per agent repository in this process (its private HEAD is shared). */
const inFlight = new Map<string, Promise<unknown>>();

export function commitFromPrivateDir(
  place: AgentRepoPlace,
  message: string,
  head: string,
): Promise<PrivateCommit> {
  const before = inFlight.get(place.commitDir) ?? Promise.resolve();
  const next = before.then(
    () => commitOnce(place, message, head),
    () => commitOnce(place, message, head),
  );
  inFlight.set(
    place.commitDir,
    next.finally(() => {
      if (inFlight.get(place.commitDir) === next) inFlight.delete(place.commitDir);
    }),
  );
  return next;
}

async function commitOnce(place: AgentRepoPlace, message: string, head: string): Promise<PrivateCommit> {
  const dir = place.commitDir;
  await mkdir(path.join(dir, 'refs'), { recursive: true });
  await writeFile(path.join(dir, 'config'), PRIVATE_CONFIG);
  await writeFile(path.join(dir, 'HEAD'), `${head}\n`);
  // A merge the agent was resolving: its MERGE_HEAD (ids only) becomes the commit's second parent.
  const merge = await mergeHeadOf(place.gitDir);
  if (merge) await writeFile(path.join(dir, 'MERGE_HEAD'), `${merge.join('\n')}\n`);
  else await rm(path.join(dir, 'MERGE_HEAD'), { force: true });
  const committed = await git(
    [
      ...AGENT_COMMIT_CONFIG,
      'commit',
      '--quiet',
      '--no-verify',
      '--untracked-files=no',
      '--cleanup=verbatim',
      '--allow-empty-message',
      '-F',
      '-',
    ],
    {
      // Not the checkout: git.ts would pin the agent's own git directory to a command run there.
      cwd: dir,
      input: message,
      env: {
        ...AGENT_IDENTITY,
        GIT_DIR: dir,
        GIT_COMMON_DIR: dir,
        GIT_WORK_TREE: place.checkout,
        GIT_INDEX_FILE: path.join(place.gitDir, 'index'),
        GIT_OBJECT_DIRECTORY: place.hubObjects,
      },
    },
  );
  if (!committed.ok) {
    const said = `${committed.stdout}\n${committed.stderr}`;
    if (/nothing (added )?to commit|no changes added to commit/.test(said)) return { kind: 'nothing' };
    if (/invalid object|Error building trees|could not parse|bad object|unable to read/i.test(said))
      return { kind: 'not-in-hub', error: gitError(committed) };
    return { kind: 'failed', error: `git commit failed: ${gitError(committed)}` };
  }
  const made = (await readFile(path.join(dir, 'HEAD'), 'utf8')).trim();
  return OBJECT_ID.test(made)
    ? { kind: 'committed', commit: made }
    : { kind: 'failed', error: `bad HEAD ${made}` };
}

/** The agent's MERGE_HEAD as ids, read without following a link; null when there is none. */
async function mergeHeadOf(gitDir: string): Promise<string[] | null> {
  const text = await readTextNoFollow(gitDir, 'MERGE_HEAD', 64 * 1024);
  if (text === null) return null;
  const ids = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return ids.length > 0 && ids.every((id) => OBJECT_ID.test(id)) ? ids : null;
}
