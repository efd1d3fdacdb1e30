/**
 * Deterministic step ids from the program's call path. Every step or stage gets an id made of its
 * enclosing scopes and a name unique within the scope ('review/explore_2'). Concurrent branches
 * (w.parallel, w.map items, w.dag nodes, stages) each get their own scope, carried through awaits by
 * AsyncLocalStorage, so ids do not depend on which branch happens to call first.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';

/**
 * Where a scope sits on its `w.dag`'s critical path (critical-path.ts): `rank` is the remaining chain
 * from the DAG node it belongs to (the scheduler's tie-break for its steps), `tail` what follows the
 * node (so a DAG inside a node ranks its own nodes as `tail` + their rank). Outside any DAG: none.
 */
export interface ChainPosition {
  rank: number;
  tail: number;
}

export class Scope {
  private readonly used = new Map<string, number>();

  constructor(
    /** '' for the program's top level. */
    readonly path: string,
    /** Id of the innermost enclosing stage (null outside any stage). */
    readonly stage: string | null,
    /** Its place on the innermost enclosing DAG's critical path (null outside any DAG). */
    readonly chain: ChainPosition | null = null,
  ) {}

  /** A name unique in this scope: `base`, then `base_2`, `base_3`… in call order. */
  allocate(base: string): string {
    const name = segment(base);
    const n = (this.used.get(name) ?? 0) + 1;
    this.used.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  }

  childId(name: string): string {
    return this.path === '' ? name : `${this.path}/${name}`;
  }

  child(name: string, stage: string | null = this.stage): Scope {
    return new Scope(this.childId(name), stage, this.chain);
  }
}

const storage = new AsyncLocalStorage<Scope>();

export function currentScope(root: Scope): Scope {
  return storage.getStore() ?? root;
}

export function inScope<T>(scope: Scope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/**
 * One path segment: letters, digits, `_` and `-` only (safe in branch names and folder names). A
 * name that had to change gets a short hash so two different names never share a segment.
 */
export function segment(name: string): string {
  const clean =
    name
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'x';
  if (clean === name) return clean;
  return `${clean}-${createHash('sha256').update(name).digest('hex').slice(0, 6)}`;
}

/** The agent of a step's attempt: path segments joined by '.', attempt and repair as suffixes. */
export function attemptAgentName(step: string, attempt: number, repair: boolean): string {
  const base = step.split('/').join('.');
  return `${base}${attempt > 1 ? `+${attempt}` : ''}${repair ? '+r' : ''}`;
}

export function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
