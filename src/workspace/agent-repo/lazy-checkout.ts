/**
 * An agent checkout filled on demand. Creating a full checkout of a 1,000-file repository is the
 * kernel creating 1,000 files: 0.06–0.56 s of system time each on the disks we measure on, so 1,000
 * peers starting at once spent more CPU filling checkouts than working (bench/README.md, issue 12),
 * although a peer that fixes one file reads and writes one file.
 *
 * A lazy checkout is a git sparse checkout (non-cone patterns, in the agent's git directory, which
 * is Colony's): it starts with the top-level files only (README, AGENTS.md, manifests: what the
 * repository summary reads), and every file the agent's tools touch is added to the patterns and
 * checked out before the tool runs (tool/checkout-fill.ts). Bash, grep and `ls` of the root need the
 * whole tree: their first call turns the checkout into a full one, for good (the cost a full
 * checkout had at creation, paid only by the agents that need it). Agents whose loop is an external
 * CLI (its own file tools), a run with a setup command, and fleet workers (their work-in-progress
 * snapshot reads the whole checkout) get full checkouts from the start.
 *
 * Nothing an agent does is lost to sparseness: git never removes a modified file when it applies
 * patterns, a file present in the checkout loses its skip-worktree bit when git reads the index
 * (git ≥ 2.36), and Colony commits with `git add -A --sparse`, which stages files outside the
 * patterns too. Files outside the patterns are the branch's, unchanged: the index has them.
 */
import { lstatSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { readTextNoFollow, writeNoFollow } from '../../core/no-follow.js';
import { err, ok, type Result } from '../../lang/result.js';
import type { CheckoutFill } from '../../tool/checkout-fill.js';
import { git, gitError } from '../git/git.js';
import type { AgentRepo } from './agent-repo.js';

/**
 * Paths brought in one by one before the checkout is made full instead: git matches every non-cone
 * pattern against every index entry when it applies them, so thousands of patterns would cost more
 * than the files they spare.
 */
export const MAX_LAZY_PATHS = 200;

/** The patterns a lazy checkout starts with: every file at the top level, no folder. */
export const LAZY_START_PATTERNS = '/*\n!/*/\n';

/** The agent repository's sparse-checkout file: present while its checkout is lazy. */
export function sparseFileOf(repo: AgentRepo): string {
  return path.join(repo.gitDir, 'info', 'sparse-checkout');
}

/** The sparse-checkout file's place in the git directory (which the agent can write: no-follow). */
const SPARSE_FILE = 'info/sparse-checkout';

export function isLazy(repo: AgentRepo): boolean {
  try {
    return lstatSync(sparseFileOf(repo)).isFile();
  } catch {
    return false;
  }
}

/** A gitignore-style pattern that matches exactly this path (a file, or a folder and its content). */
export function sparsePattern(rel: string): string {
  // Wildcards and a leading `!`/`#` escaped; trailing spaces would be trimmed without a backslash.
  const escaped = rel.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ');
  return `/${escaped}`;
}

/** The fill of one agent's checkout; its calls run one after another (they rewrite one file). */
export class LazyCheckout implements CheckoutFill {
  private queue: Promise<unknown> = Promise.resolve();
  /** The patterns in the sparse-checkout file, once read. */
  private patterns: Set<string> | null = null;

  constructor(
    private readonly repo: AgentRepo,
    /** Called before every fill: a tool is about to read or change files of the checkout. */
    private readonly onTouch: () => void = () => {},
  ) {}

  paths(rels: readonly string[], options: { replaced?: boolean } = {}): Promise<Result<void>> {
    this.onTouch();
    return this.serially(() => this.fillPaths(rels, options.replaced === true));
  }

  all(): Promise<Result<void>> {
    this.onTouch();
    return this.serially(() => this.fillAll());
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }

  private async fillPaths(rels: readonly string[], replaced: boolean): Promise<Result<void>> {
    if (!isLazy(this.repo)) return ok(undefined);
    // The agent's bash may have left a file of its own there (a full checkout has none): read and
    // written without following a link (core/no-follow.ts).
    const text = this.patterns ? '' : await readTextNoFollow(this.repo.gitDir, SPARSE_FILE, 1024 * 1024);
    if (text === null) return err('the sparse-checkout file of the checkout is not a regular file');
    const patterns = this.patterns ?? new Set(text.split('\n').filter(Boolean));
    this.patterns = patterns;
    const added = rels.filter((rel) => !patterns.has(sparsePattern(rel)));
    if (added.length === 0) return ok(undefined);
    if (patterns.size + added.length > MAX_LAZY_PATHS) return this.fillAll();
    for (const rel of added) patterns.add(sparsePattern(rel));
    const written = await writeNoFollow(this.repo.gitDir, SPARSE_FILE, `${[...patterns].join('\n')}\n`);
    if (!written.ok) return err(`could not write the sparse-checkout patterns: ${written.error}`);
    // A file already here, or one about to be written whole, needs only its pattern (so git keeps
    // it; a file written over a skipped one is git's again when it reads the index); anything else
    // is checked out.
    if (replaced || added.every((rel) => isFile(path.join(this.repo.checkout, rel)))) return ok(undefined);
    const applied = await git(['sparse-checkout', 'reapply'], { cwd: this.repo.checkout });
    return applied.ok ? ok(undefined) : err(`git sparse-checkout reapply: ${gitError(applied)}`);
  }

  private async fillAll(): Promise<Result<void>> {
    const file = sparseFileOf(this.repo);
    if (!isLazy(this.repo)) return ok(undefined);
    const disabled = await git(['sparse-checkout', 'disable'], { cwd: this.repo.checkout });
    if (!disabled.ok) return err(`git sparse-checkout disable: ${gitError(disabled)}`);
    // Gone last: a crash before leaves a lazy checkout that holds every file, filled again at will.
    await rm(file, { force: true });
    this.patterns = null;
    return ok(undefined);
  }
}

function isFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}
