/**
 * The batch's fast lane: requests whose changes touch paths that nothing else in play touches (main
 * since their merge base, the requests before them in the batch) are built as one chain of commits by
 * three git processes for the whole batch — `diff-tree --stdin` for every request's change and
 * main's change since each merge base, `fast-import` for the chain, `rev-parse` for the top's tree —
 * instead of a `merge-tree` and a `commit-tree` per request. A three-way merge of changes on disjoint
 * paths is exactly "main with the request's paths set as the request has them", so the tree is the one
 * `merge-tree` would write; the rest (overlapping paths, renames near deletions, unusual history) goes
 * to `merge-tree` as before (candidate.ts). Conservative by construction: when in doubt, not fast.
 */
import { git, gitError } from '../git/git.js';
import { type MainChain, mergeBaseOnChain } from './main-chain.js';
import type { ObjectReader } from './object-reader.js';
import { landedMessage } from './texts.js';
import type { Pending } from './types.js';

/** Fewer eligible requests than this are cheaper through merge-tree (and leave no pack behind). */
export const FAST_CHAIN_MIN = 4;

/** One changed path, as `diff-tree --raw` reports it (path as latin1: the bytes as they are). */
export interface PathChange {
  path: string;
  /** New mode and object id; a deletion has mode 000000. */
  mode: string;
  id: string;
  deleted: boolean;
}

export interface FastPlan {
  /** Requests for the fast chain, in batch order, each with its changes. */
  fast: { request: Pending; changes: PathChange[] }[];
  /** Requests left to merge-tree, in batch order. */
  rest: Pending[];
}

/**
 * A request stacked on an earlier request of its agent that has landed (submit and move on: the
 * agent's next change is committed on top of its previous one before that one lands). Its change is
 * read from that commit, not from the merge base: otherwise it overlaps its own landed predecessor
 * and every such request went through merge-tree one by one.
 */
interface Stacked {
  /** The landed request commit it sits on. */
  on: string;
}

/** Request commits walked down from a request looking for a landed one it is stacked on. */
const MAX_STACK_WALK = 32;

/**
 * Splits `batch` (to be applied on `main`) into the fast lane and the rest. `landed`: commits of
 * requests that landed earlier (their agents' commits, not the chain's), for stacked requests.
 */
export async function planFastChain(
  hub: string,
  reader: ObjectReader,
  chain: MainChain,
  main: string,
  batch: Pending[],
  landed: ReadonlySet<string> = new Set(),
): Promise<FastPlan> {
  const none: FastPlan = { fast: [], rest: batch };
  if (batch.length < FAST_CHAIN_MIN || !(await chain.moveTo(main))) return none;
  const bases = new Map<Pending, string>();
  const stacked = new Map<Pending, Stacked>();
  for (const request of batch) {
    const base = await mergeBaseOnChain(reader, chain, request.commit);
    if (base === null) continue;
    bases.set(request, base);
    const on = await landedAncestor(reader, chain, request.commit, landed);
    // Only on the same merge base: then merge-tree's three-way merge is the one reasoned about below.
    if (on !== null && (await mergeBaseOnChain(reader, chain, on)) === base) stacked.set(request, { on });
  }
  if (bases.size < FAST_CHAIN_MIN) return none;
  const distinctBases = [...new Set(bases.values())];
  // Per request its change ([commit, base], or [commit, on] when stacked); per stacked request also
  // what it sits on ([on, base]) and main against that ([main, on]); per distinct base main's change.
  const pairs: (readonly [string, string])[] = [];
  const slots = new Map<Pending, { change: number; own?: number; mainSince?: number }>();
  for (const [request, base] of bases) {
    const stack = stacked.get(request);
    if (!stack) {
      slots.set(request, { change: pairs.push([request.commit, base]) - 1 });
      continue;
    }
    const change = pairs.push([request.commit, stack.on]) - 1;
    const own = pairs.push([stack.on, base]) - 1;
    const mainSince = pairs.push([main, stack.on]) - 1;
    slots.set(request, { change, own, mainSince });
  }
  const baseSlot = new Map(distinctBases.map((base) => [base, pairs.push([main, base]) - 1]));
  const diffs = await diffPairs(hub, pairs);
  if (diffs === null) return none;
  const diff = (slot: number | undefined) => (slot === undefined ? undefined : diffs[slot]);
  const fast: FastPlan['fast'] = [];
  const rest: Pending[] = [];
  const earlier = touched([]);
  for (const request of batch) {
    const base = bases.get(request);
    const slot = slots.get(request);
    const changes = diff(slot?.change);
    const since =
      slot?.mainSince !== undefined
        ? diff(slot.mainSince)
        : diff(base === undefined ? undefined : baseSlot.get(base));
    if (!changes || !since || !eligible(changes)) {
      rest.push(request);
      continue;
    }
    const theirs = touched(changes);
    const ours = touched(since);
    if (overlaps(theirs, ours) || overlaps(theirs, earlier) || !stackHolds(diff(slot?.own), theirs, ours)) {
      rest.push(request);
      continue;
    }
    fast.push({ request, changes });
    add(earlier, theirs);
  }
  return fast.length >= FAST_CHAIN_MIN ? { fast, rest } : none;
}

/**
 * For a stacked request (merge base X, landed predecessor R, its own change P_b = R→commit): git's
 * three-way merge with base X gives "main with P_b set as the request has it" — what the fast chain
 * writes — when R's own change P_R = X→R is on main exactly as R has it (no path of P_R differs
 * between R and main) and P_b keeps off P_R (with `theirs`/`ours` disjoint, checked by the caller,
 * main left P_b as X had it). Then X→request = P_R ∪ P_b, X→main = P_R ∪ others: P_R the same on
 * both sides, P_b on one, the others on the other. Not stacked (`own` undefined): nothing to check.
 */
function stackHolds(own: PathChange[] | undefined, theirs: Touched, ours: Touched): boolean {
  if (own === undefined) return true;
  if (own.length === 0) return false;
  const mine = touched(own);
  for (const p of mine.paths) if (ours.paths.has(p)) return false;
  return !overlaps(theirs, mine);
}

/**
 * The nearest commit below `commit` (first parents, not on main's chain) that is a landed request
 * commit, or null.
 */
async function landedAncestor(
  reader: ObjectReader,
  chain: MainChain,
  commit: string,
  landed: ReadonlySet<string>,
): Promise<string | null> {
  if (landed.size === 0) return null;
  let current = commit;
  for (let i = 0; i < MAX_STACK_WALK; i++) {
    const object = await reader.commit(current);
    const parent = object?.parents[0];
    if (parent === undefined || chain.indexOf(parent) !== undefined) return null;
    if (landed.has(parent)) return parent;
    current = parent;
  }
  return null;
}

/** A change the fast lane can carry: not empty, plain paths (no quoting needed in a fast-import stream). */
function eligible(changes: PathChange[]): boolean {
  return changes.length > 0 && changes.every((c) => plainPath(c.path));
}

function plainPath(file: string): boolean {
  if (file.startsWith(' ') || file.includes('"') || file.includes('\\')) return false;
  for (let i = 0; i < file.length; i++) if (file.charCodeAt(i) < 0x20) return false;
  return true;
}

/** The paths one side changed, the folders above them, and the folders above its deletions. */
interface Touched {
  paths: Set<string>;
  folders: Set<string>;
  deletionFolders: Set<string>;
}

function touched(changes: PathChange[]): Touched {
  const t: Touched = { paths: new Set(), folders: new Set(), deletionFolders: new Set() };
  for (const change of changes) {
    t.paths.add(change.path);
    for (const folder of foldersOf(change.path)) {
      t.folders.add(folder);
      if (change.deleted) t.deletionFolders.add(folder);
    }
  }
  return t;
}

function add(into: Touched, from: Touched): void {
  for (const p of from.paths) into.paths.add(p);
  for (const f of from.folders) into.folders.add(f);
  for (const f of from.deletionFolders) into.deletionFolders.add(f);
}

/**
 * Whether a three-way merge could see the two sides interact: the same path; a file on one side where
 * the other has a folder; or a path under a folder where the other side deleted something (git's
 * directory-rename detection moves files added there).
 */
function overlaps(a: Touched, b: Touched): boolean {
  const one = (x: Touched, y: Touched) => {
    for (const p of x.paths) {
      if (y.paths.has(p) || y.folders.has(p)) return true;
      for (const folder of foldersOf(p))
        if (y.paths.has(folder) || y.deletionFolders.has(folder)) return true;
    }
    return false;
  };
  return one(a, b) || one(b, a);
}

function foldersOf(file: string): string[] {
  const out: string[] = [];
  for (let at = file.indexOf('/'); at >= 0; at = file.indexOf('/', at + 1)) out.push(file.slice(0, at));
  return out;
}

/**
 * `git diff-tree --stdin -r --no-renames --raw -z` for `[commit, base]` pairs: the change from base to
 * commit, one list per pair in input order. Null when git fails.
 */
export async function diffPairs(
  hub: string,
  pairs: ReadonlyArray<readonly [string, string]>,
): Promise<PathChange[][] | null> {
  const input = pairs.map(([commit, base]) => `${commit} ${base}\n`).join('');
  const args = ['diff-tree', '--stdin', '-r', '--no-renames', '--raw', '-z', '--always'];
  const out = await git(args, { cwd: hub, input, encoding: 'latin1' });
  return out.ok ? parseDiffPairs(out.stdout, pairs.length) : null;
}

/** Splits the `--stdin --raw -z --always` output: per pair, its commit id then `:<modes ids status>\0path\0`. */
export function parseDiffPairs(text: string, count: number): PathChange[][] | null {
  const fields = text.split('\0');
  const lists: PathChange[][] = [];
  let current: PathChange[] | null = null;
  for (let i = 0; i < fields.length; i++) {
    const field = (fields[i] as string).replace(/^\n+/, '');
    if (field === '') continue;
    if (!field.startsWith(':')) {
      current = [];
      lists.push(current);
      continue;
    }
    const [, newMode, , newId, status] = field.slice(1).split(' ');
    const file = fields[++i];
    if (current === null || !newMode || !newId || !status || file === undefined) return null;
    current.push({ path: file, mode: newMode, id: newId, deleted: status === 'D' });
  }
  return lists.length === count ? lists : null;
}

/**
 * Writes the chain on `main` with one `git fast-import`: one commit per request (message and author
 * as merge-tree's path makes them), each on the previous. Returns the commit ids in order.
 */
export async function writeFastChain(
  hub: string,
  main: string,
  fast: FastPlan['fast'],
  scratchRef: string,
): Promise<{ ok: true; commits: string[] } | { ok: false; error: string }> {
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const chunks: Buffer[] = [Buffer.from('feature done\n')];
  fast.forEach(({ request, changes }, i) => {
    const message = Buffer.from(
      landedMessage(request.note, request.mr, request.agent, request.commit),
      'utf8',
    );
    const name = request.agent.replace(/[<>\n]/g, '_');
    const email = `${request.agent.replace(/[^A-Za-z0-9._-]/g, '_')}@colony.local`;
    chunks.push(
      Buffer.from(
        `commit ${scratchRef}\nmark :${i + 1}\nauthor ${name} <${email}> ${when}\n` +
          `committer Colony Integration <integration@colony.local> ${when}\ndata ${message.length}\n`,
        'utf8',
      ),
      message,
      Buffer.from(`\nfrom ${i === 0 ? main : `:${i}`}\n`, 'utf8'),
    );
    for (const change of changes) {
      const line = change.deleted ? `D ${change.path}\n` : `M ${change.mode} ${change.id} ${change.path}\n`;
      chunks.push(Buffer.from(line, 'latin1'));
    }
    chunks.push(Buffer.from('\n'));
  });
  for (let i = 1; i <= fast.length; i++) chunks.push(Buffer.from(`get-mark :${i}\n`));
  chunks.push(Buffer.from('done\n'));
  const out = await git(['fast-import', '--quiet', '--force', '--done'], {
    cwd: hub,
    input: Buffer.concat(chunks),
  });
  if (!out.ok) return { ok: false, error: `git fast-import failed: ${gitError(out)}` };
  const commits = out.stdout.split('\n').filter((line) => /^[0-9a-f]{40,64}$/.test(line));
  if (commits.length !== fast.length)
    return { ok: false, error: `git fast-import answered ${commits.length} of ${fast.length} commits` };
  return { ok: true, commits };
}
