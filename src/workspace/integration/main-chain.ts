/**
 * Main's history since the run's base as the queue sees it: the first-parent chain base → … → tip,
 * read once through the object reader and extended as main moves (each new commit read once). Every
 * commit the queue lands has one parent, so while the chain is linear a merge request's merge base
 * with main can be found by walking only the agent's own commits back to the chain
 * (`mergeBaseOnChain`), with no `git merge-base` walk down main's whole history per request (which
 * is what made each `git merge-tree` of a 1,000-peer run cost more as main grew).
 */
import type { ObjectReader } from './object-reader.js';

/** Commits read from main's tip down to a known one before giving up (main moved somewhere unknown). */
const MAX_MAIN_WALK = 100_000;
/** An agent's commits read before giving up on finding its merge base on the chain. */
const MAX_AGENT_WALK = 256;

export class MainChain {
  /** base first, tip last. */
  private order: string[] = [];
  private readonly at = new Map<string, number>();

  constructor(
    private readonly reader: ObjectReader,
    /** The run's base commit (main's start); unknown: the chain starts at the first tip seen. */
    private readonly base: string | undefined,
  ) {}

  /**
   * Makes the chain end at `tip`. False when it cannot: the walk down from `tip` meets neither a
   * commit of the chain nor the base, or meets a commit above the base that is not linear.
   */
  async moveTo(tip: string): Promise<boolean> {
    const known = this.at.get(tip);
    if (known !== undefined) {
      this.truncate(known);
      return true;
    }
    const walked: string[] = [];
    let current = tip;
    for (;;) {
      const index = this.at.get(current);
      if (index !== undefined) {
        this.truncate(index);
        break;
      }
      const commit = await this.reader.commit(current);
      if (commit === null || walked.length >= MAX_MAIN_WALK) return this.reset();
      walked.push(current);
      const root = this.base === undefined ? this.order.length === 0 : current === this.base;
      if (root) {
        this.order = [];
        this.at.clear();
        break;
      }
      const [parent, ...others] = commit.parents;
      if (parent === undefined || others.length > 0) return this.reset();
      current = parent;
    }
    for (const id of walked.reverse()) {
      this.at.set(id, this.order.length);
      this.order.push(id);
    }
    return true;
  }

  /** Position on the chain (0 = base), or undefined when `commit` is not on it. */
  indexOf(commit: string): number | undefined {
    return this.at.get(commit);
  }

  /** The chain's commit at `index` (0 = base). */
  commitAt(index: number): string | undefined {
    return this.order[index];
  }

  private truncate(index: number): void {
    for (const id of this.order.splice(index + 1)) this.at.delete(id);
  }

  private reset(): false {
    this.order = [];
    this.at.clear();
    return false;
  }
}

/**
 * The merge base of `commit` and the chain's tip, found by walking `commit`'s ancestors until every
 * path reaches the chain: the newest chain commit met. Null — leave it to `git merge-tree` — when
 * `commit` is on the chain itself (nothing to merge), a path ends outside it (a root, an older
 * history) or the walk is longer than an agent's branch should be.
 *
 * Why the newest meeting point is the one merge base: every common ancestor lies on the chain or
 * below the base, and on any path from `commit` down to it the walk met a chain commit at or above it.
 */
export async function mergeBaseOnChain(
  reader: ObjectReader,
  chain: MainChain,
  commit: string,
): Promise<string | null> {
  if (chain.indexOf(commit) !== undefined) return null;
  const seen = new Set<string>();
  const stack = [commit];
  let newest = -1;
  while (stack.length > 0) {
    const id = stack.pop() as string;
    const index = chain.indexOf(id);
    if (index !== undefined) {
      newest = Math.max(newest, index);
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    if (seen.size > MAX_AGENT_WALK) return null;
    const object = await reader.commit(id);
    if (object === null || object.parents.length === 0) return null;
    stack.push(...object.parents);
  }
  return newest < 0 ? null : (chain.commitAt(newest) ?? null);
}
