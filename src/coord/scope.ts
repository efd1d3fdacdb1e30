/**
 * Claim and context scopes: a repository path or a task id (`task:<id>`). Paths overlap by whole
 * segments: `src/parser/` overlaps `src/parser/lexer.ts` and `src/`, not `src/parser2/`. A task id
 * overlaps only the identical task id. `.` is the whole repository (overlaps every path).
 */
import type { Result } from './types.js';

export interface Scope {
  kind: 'path' | 'task';
  /** Normalised form shown to agents and stored: `src/parser/`, `src/a.ts`, `.`, `task:12`. */
  text: string;
  /**
   * Comparison key. Paths: segments joined by `/` plus a trailing `/` (`''` for the whole
   * repository), so "is a prefix of" means "is the same path or an ancestor". Tasks: `task:<id>`.
   */
  key: string;
}

export const MAX_SCOPE_CHARS = 500;
const TASK_PREFIX = 'task:';

export function parseScope(raw: string): Result<Scope> {
  const trimmed = raw.trim();
  if (trimmed === '')
    return { ok: false, error: 'scope is empty: give a path (src/parser/) or a task id (task:12)' };
  if (trimmed.length > MAX_SCOPE_CHARS) {
    return { ok: false, error: `scope is ${trimmed.length} characters; the limit is ${MAX_SCOPE_CHARS}` };
  }
  if (trimmed.startsWith(TASK_PREFIX)) {
    const id = trimmed.slice(TASK_PREFIX.length).trim();
    if (id === '') return { ok: false, error: `task scope "${trimmed}" has no id (write task:<id>)` };
    const text = `${TASK_PREFIX}${id}`;
    return { ok: true, value: { kind: 'task', text, key: text } };
  }
  const path = trimmed.replace(/\\/g, '/');
  if (path.startsWith('/')) {
    return { ok: false, error: `scope "${trimmed}" is absolute; use a path relative to the repository root` };
  }
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, error: `scope "${trimmed}" leaves the repository (..)` };
  if (segments.length === 0) return { ok: true, value: { kind: 'path', text: '.', key: '' } };
  const joined = segments.join('/');
  return {
    ok: true,
    value: { kind: 'path', text: path.endsWith('/') ? `${joined}/` : joined, key: `${joined}/` },
  };
}

export function scopesOverlap(a: Scope, b: Scope): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'task') return a.key === b.key;
  return a.key.startsWith(b.key) || b.key.startsWith(a.key);
}

/** True when `outer` is the same scope as `inner` or contains it (an ancestor folder). */
export function scopeCovers(outer: Scope, inner: Scope): boolean {
  if (outer.kind !== inner.kind) return false;
  return outer.kind === 'task' ? outer.key === inner.key : inner.key.startsWith(outer.key);
}
