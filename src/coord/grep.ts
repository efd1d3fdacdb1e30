/**
 * The `grep` filter of context_read: terms joined by `&` (and) and `,` (or), matched as
 * case-insensitive substrings of an entry's summary and detail. `,` binds tighter than `&`:
 * `lexer,tokenizer&crash` means (lexer OR tokenizer) AND crash. Whitespace around terms is ignored.
 */
import type { Result } from './types.js';

/** AND of groups; each group is an OR of terms (lower-cased). */
export type GrepQuery = string[][];

export function parseGrep(expression: string): Result<GrepQuery> {
  const groups = expression
    .split('&')
    .map((group) =>
      group
        .split(',')
        .map((term) => term.trim().toLowerCase())
        .filter((term) => term !== ''),
    )
    .filter((group) => group.length > 0);
  if (groups.length === 0) {
    return { ok: false, error: 'grep has no terms: write e.g. "lexer,tokenizer&crash" (, = or, & = and)' };
  }
  return { ok: true, value: groups };
}

export function describeGrep(query: GrepQuery): string {
  return query
    .map((group) => (group.length === 1 ? `"${group[0]}"` : `(${group.map((t) => `"${t}"`).join(' OR ')})`))
    .join(' AND ');
}

/** The same predicate as the SQL filter, for callers holding entries in memory. */
export function matchesGrep(query: GrepQuery, summary: string, detail: string | null): boolean {
  const text = `${summary}\n${detail ?? ''}`.toLowerCase();
  return query.every((group) => group.some((term) => text.includes(term)));
}
