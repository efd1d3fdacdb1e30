/**
 * Colony's commit in an agent's repository (merge_request, sync's WIP, release, the solo result): all
 * of the agent's changes, as a commit on the branch its HEAD names.
 *
 * The agent's git directory is writable to the agent, so every file git would write there by name is a
 * place it may have planted a link (COMMIT_EDITMSG, logs/HEAD, MERGE_MSG…). So git never writes there
 * by name: `add` writes only the index (through a lock file and a rename: a link is replaced, never
 * written through), and the commit is made either
 * - into the hub's store (merge_request, sync, release: the common case), by `git commit` from a git
 *   directory of Colony's own (private-commit.ts) that only borrows the agent's index — two processes;
 * - or into the agent's own store (the solo result, a workflow step, or when the hub's store lacks an
 *   object the agent's own commits made), with git's plumbing (`add`, `write-tree`, `commit-tree`) in
 *   one shell in the repository's sandbox (agent-git.ts): a loose object's folder could be a link.
 * Colony then moves the branch itself with a no-follow write (core/no-follow.ts).
 *
 * A nested repository the agent made (`git init sub`, a clone into a folder) is not a gitlink and not a
 * failure: its files are committed as plain files, its `.git` is left out, and the caller is told
 * (`nested`), so the model reads it in its tool result and nothing it did is lost.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { type AgentRepoPlace, agentRepoAt } from '../../core/agent-layout.js';
import { readTextNoFollow, writeNoFollow } from '../../core/no-follow.js';
import { AGENT_IDENTITY, git, gitError, shInRepo } from '../git/git.js';
import { OBJECT_ID, readHeadFile, readNoFollowGitFile } from '../git/loose-ref.js';
import { commitFromPrivateDir } from './private-commit.js';

export type AgentCommitResult =
  | { ok: true; status: 'committed'; commit: string; nested: string[] }
  | { ok: true; status: 'nothing-to-commit'; nested: string[] }
  | { ok: false; error: string };

/**
 * The commit script: `$1` is the object directory to write to ('' for the repository's own), the
 * rest are pathspecs to leave out; the message is on stdin. Prints one line: `nested`, `nothing` or
 * `committed <id>`, then git's messages.
 */
const COMMIT_SCRIPT = `
objects="$1"; shift
if [ -n "$objects" ]; then export GIT_OBJECT_DIRECTORY="$objects"; fi
out=$(git add -A --sparse -- . "$@" </dev/null 2>&1) || {
  case "$out" in *"does not have a commit checked out"*) printf 'nested\\n%s\\n' "$out"; exit 0;; esac
  printf '%s\\n' "$out" >&2; exit 3; }
case "$out" in *"adding embedded git repository"*) printf 'nested\\n%s\\n' "$out"; exit 0;; esac
tree=$(git write-tree </dev/null) || exit 4
head=$(git rev-parse HEAD 'HEAD^{tree}' </dev/null) || exit 5
set -- $head
merge=""
if [ -f "$GIT_DIR/MERGE_HEAD" ]; then merge=$(git rev-parse -q --verify 'MERGE_HEAD^{commit}' </dev/null) || merge=""; fi
if [ "$tree" = "$2" ] && [ -z "$merge" ]; then echo nothing; exit 0; fi
commit=$(git commit-tree "$tree" -p "$1" \${merge:+-p "$merge"}) || exit 6
echo "committed $commit"
`;

/** What a nested repository's add failure or warning names: the folders that hold one. */
export function nestedRepositoriesIn(gitOutput: string): string[] {
  const found = new Set<string>();
  for (const match of gitOutput.matchAll(/adding embedded git repository: (.+)$/gm))
    found.add(trimSlash(match[1]));
  for (const match of gitOutput.matchAll(/^error: '(.+)' does not have a commit checked out$/gm))
    found.add(trimSlash(match[1]));
  return [...found].filter((p) => p !== '');
}

const trimSlash = (p: string | undefined) => (p ?? '').replace(/\/+$/, '');

/**
 * Commits everything in the agent repository whose checkout is `checkout`. `hubObjects`: write the new
 * objects into the hub's store (falls back to the repository's own when the hub lacks part of it).
 */
export async function commitAgentRepo(
  checkout: string,
  message: string,
  options: { hubObjects?: string } = {},
): Promise<AgentCommitResult> {
  const place = agentRepoAt(checkout);
  if (!place) return { ok: false, error: `${checkout} is not an agent repository of a run` };
  const nested: string[] = [];
  // Into the hub's store from Colony's private git directory (private-commit.ts): `add` + `commit`.
  let intoHub = options.hubObjects !== undefined;
  for (let round = 0; round < 5; round++) {
    const made = intoHub
      ? await commitIntoHub(place, message, nested)
      : await commitScript(place.checkout, message, '', nested);
    if (made.kind === 'own-store') {
      intoHub = false;
      continue;
    }
    if (made.kind === 'failed') return { ok: false, error: made.error };
    if (made.kind === 'nested') {
      const found = made.found.filter((p) => !nested.includes(p));
      if (found.length === 0) return { ok: false, error: `git add failed: ${made.said}` };
      const plain = await addAsPlainFiles(place.checkout, found);
      if (!plain.ok) return plain;
      nested.push(...found);
      continue;
    }
    if (made.kind === 'nothing') return { ok: true, status: 'nothing-to-commit', nested };
    const moved = await moveHead(place.gitDir, made.commit);
    if (!moved.ok) return moved;
    return { ok: true, status: 'committed', commit: made.commit, nested };
  }
  return { ok: false, error: 'nested repositories kept appearing while committing' };
}

type Attempt =
  | { kind: 'committed'; commit: string }
  | { kind: 'nothing' }
  | { kind: 'nested'; found: string[]; said: string }
  /** Try again into the repository's own store (the hub's lacks an object, or HEAD is unusual). */
  | { kind: 'own-store' }
  | { kind: 'failed'; error: string };

/** `add` into the hub's store, then `git commit` from Colony's private git directory. */
async function commitIntoHub(
  place: AgentRepoPlace,
  message: string,
  nested: readonly string[],
): Promise<Attempt> {
  const excluded = nested.map((p) => `:(exclude,top,literal)${p}`);
  const added = await git(['add', '-A', '--sparse', '--', '.', ...excluded], {
    cwd: place.checkout,
    env: { GIT_OBJECT_DIRECTORY: place.hubObjects },
  });
  const said = `${added.stdout}\n${added.stderr}`;
  const found = nestedRepositoriesIn(said);
  if (found.length > 0) return { kind: 'nested', found, said: said.trim() };
  if (!added.ok) return { kind: 'own-store' };
  const head = await readHeadFile(place.gitDir, readNoFollowGitFile);
  if (head === null) return { kind: 'own-store' };
  const committed = await commitFromPrivateDir(place, message, head);
  if (committed.kind === 'not-in-hub') return { kind: 'own-store' };
  return committed;
}

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

/** The plumbing in one sandboxed shell (COMMIT_SCRIPT), into `objects` ('' for the repository's own). */
async function commitScript(
  checkout: string,
  message: string,
  objects: string,
  nested: readonly string[],
): Promise<Attempt> {
  // Folders with no file of their own but a `.git` (an empty `git init`): left out of `add`.
  const excluded = nested.map((p) => `:(exclude,top,literal)${p}`);
  const ran = await shInRepo(COMMIT_SCRIPT, [objects, ...excluded], {
    cwd: checkout,
    input: message,
    env: AGENT_IDENTITY,
  });
  if (!ran.ok) return { kind: 'failed', error: gitError(ran) };
  const line = ran.stdout.trim();
  if (line.startsWith('nested'))
    return { kind: 'nested', found: nestedRepositoriesIn(line), said: line.split('\n')[1] ?? line };
  if (line === 'nothing') return { kind: 'nothing' };
  const commit = /^committed ([0-9a-f]+)$/.exec(line)?.[1];
  if (!commit || !OBJECT_ID.test(commit))
    return { kind: 'failed', error: `could not read the new commit: ${line}` };
  return { kind: 'committed', commit };
}

/**
 * The files of each nested repository `folders` (relative to the checkout), as plain files in the
 * index: every regular file and link below it but those inside a `.git` (any depth), found without
 * following a link. The folder's gitlink, if `add` made one, is removed from the index first.
 */
async function addAsPlainFiles(checkout: string, folders: string[]): Promise<Step<void>> {
  const files: string[] = [];
  for (const folder of folders) await collectFiles(checkout, folder, files);
  const removed = await git(['rm', '-q', '--cached', '-f', '--ignore-unmatch', '-r', '--', ...folders], {
    cwd: checkout,
  });
  if (!removed.ok) return { ok: false, error: `git rm --cached failed: ${gitError(removed)}` };
  if (files.length === 0) return { ok: true, value: undefined };
  const ignored = await git(['check-ignore', '-z', '--stdin'], {
    cwd: checkout,
    input: `${files.join('\0')}\0`,
  });
  const skip = new Set(ignored.stdout.split('\0').filter((p) => p !== ''));
  const kept = files.filter((p) => !skip.has(p));
  if (kept.length === 0) return { ok: true, value: undefined };
  const added = await git(['update-index', '--add', '-z', '--stdin'], {
    cwd: checkout,
    contain: true,
    input: `${kept.join('\0')}\0`,
  });
  return added.ok
    ? { ok: true, value: undefined }
    : { ok: false, error: `git update-index failed: ${gitError(added)}` };
}

async function collectFiles(checkout: string, rel: string, into: string[]): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(path.join(checkout, rel));
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === '.git') continue;
    const child = `${rel}/${name}`;
    const stat = await lstat(path.join(checkout, child)).catch(() => null);
    if (!stat) continue;
    if (stat.isDirectory()) await collectFiles(checkout, child, into);
    else if (stat.isFile() || stat.isSymbolicLink()) into.push(child);
  }
}

/** Moves the branch HEAD names (or a detached HEAD) to `commit`, never through a link. */
async function moveHead(gitDir: string, commit: string): Promise<Step<void>> {
  const head = (await readTextNoFollow(gitDir, 'HEAD'))?.trim() ?? null;
  if (head === null) return { ok: false, error: 'the repository has no readable HEAD' };
  const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
  const written = await writeNoFollow(gitDir, ref ?? 'HEAD', `${commit}\n`);
  if (!written.ok) return { ok: false, error: `could not move ${ref ?? 'HEAD'}: ${written.error}` };
  // A merge the agent was resolving is concluded by this commit (its second parent).
  for (const name of ['MERGE_HEAD', 'MERGE_MSG', 'MERGE_MODE', 'AUTO_MERGE'])
    await rm(path.join(gitDir, name), { force: true });
  return { ok: true, value: undefined };
}
