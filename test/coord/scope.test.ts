import { describe, expect, it } from 'vitest';
import { describeGrep, matchesGrep, parseGrep } from '../../src/coord/grep.js';
import { parseScope, type Scope, scopeCovers, scopesOverlap } from '../../src/coord/scope.js';

const s = (raw: string): Scope => {
  const parsed = parseScope(raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('scopes', () => {
  it('normalises paths and task ids', () => {
    expect(s('src/parser/')).toEqual({ kind: 'path', text: 'src/parser/', key: 'src/parser/' });
    expect(s('./src//parser')).toEqual({ kind: 'path', text: 'src/parser', key: 'src/parser/' });
    expect(s('.')).toEqual({ kind: 'path', text: '.', key: '' });
    expect(s(' task:12 ')).toEqual({ kind: 'task', text: 'task:12', key: 'task:12' });
  });

  it('refuses empty, absolute and escaping scopes with a clear reason', () => {
    for (const [raw, word] of [
      ['', 'empty'],
      ['/etc/passwd', 'absolute'],
      ['src/../../x', '..'],
      ['task:', 'no id'],
    ] as const) {
      const parsed = parseScope(raw);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain(word);
    }
  });

  it('overlaps by whole path segments', () => {
    expect(scopesOverlap(s('src/parser/'), s('src/parser/lexer.ts'))).toBe(true);
    expect(scopesOverlap(s('src/parser/lexer.ts'), s('src/parser/'))).toBe(true);
    expect(scopesOverlap(s('src/parser/'), s('src/parser2/'))).toBe(false);
    expect(scopesOverlap(s('src/parser'), s('src/parser2/x.ts'))).toBe(false);
    expect(scopesOverlap(s('src/a.ts'), s('src/a.ts'))).toBe(true);
    expect(scopesOverlap(s('src/a.ts'), s('src/'))).toBe(true);
    expect(scopesOverlap(s('src/a.ts'), s('src/b.ts'))).toBe(false);
    expect(scopesOverlap(s('src/a.ts'), s('src/a.tsx'))).toBe(false);
    expect(scopesOverlap(s('.'), s('lib/x.ts'))).toBe(true);
  });

  it('task ids overlap only the identical id, never a path', () => {
    expect(scopesOverlap(s('task:1'), s('task:1'))).toBe(true);
    expect(scopesOverlap(s('task:1'), s('task:12'))).toBe(false);
    expect(scopesOverlap(s('task:1'), s('.'))).toBe(false);
  });

  it('covers: same scope or an ancestor folder', () => {
    expect(scopeCovers(s('src/'), s('src/a.ts'))).toBe(true);
    expect(scopeCovers(s('src/a.ts'), s('src/'))).toBe(false);
    expect(scopeCovers(s('task:3'), s('task:3'))).toBe(true);
  });
});

describe('grep expressions', () => {
  it('"," binds tighter than "&": (a OR b) AND c', () => {
    const q = parseGrep(' Lexer , tokenizer & crash ');
    expect(q).toEqual({ ok: true, value: [['lexer', 'tokenizer'], ['crash']] });
    if (!q.ok) return;
    expect(describeGrep(q.value)).toBe('("lexer" OR "tokenizer") AND "crash"');
    expect(matchesGrep(q.value, 'the LEXER crashed', null)).toBe(true);
    expect(matchesGrep(q.value, 'tokenizer', 'it crashes')).toBe(true);
    expect(matchesGrep(q.value, 'lexer is fine', null)).toBe(false);
    expect(matchesGrep(q.value, 'crash in parser', null)).toBe(false);
  });

  it('refuses an expression without terms', () => {
    expect(parseGrep(' & , ').ok).toBe(false);
  });
});
