import { describe, expect, it } from 'vitest';
import { nearestFreePaths, sortPaths } from '../../src/coord/nearby-paths.js';
import { parseScope, type Scope } from '../../src/coord/scope.js';

function scope(text: string): Scope {
  const parsed = parseScope(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const FILES = sortPaths([
  'README.md',
  'files/f01.txt',
  'files/f02.txt',
  'files/f03.txt',
  'files/f04.txt',
  'files/f05.txt',
  'files/f06.txt',
  'lib/a.ts',
  'lib/b.ts',
  'src/parser/lexer.ts',
  'src/parser/parser.ts',
  'src/util.ts',
]);

describe('nearestFreePaths', () => {
  it('suggests the closest free files of the same folder first, then further ones', () => {
    const claimed = new Set(['files/f03.txt/', 'files/f04.txt/', 'files/f02.txt/']);
    expect(nearestFreePaths(FILES, claimed, scope('files/f03.txt'), 3)).toEqual([
      'files/f01.txt',
      'files/f05.txt',
      'files/f06.txt',
    ]);
    // Once the folder is used up, other folders' files, nearest in path order first.
    const all = new Set(FILES.filter((f) => f.startsWith('files/')).map((f) => `${f}/`));
    expect(nearestFreePaths(FILES, all, scope('files/f03.txt'), 2)).toEqual(['README.md', 'lib/a.ts']);
  });

  it('leaves out files inside a taken folder, and everything when the whole repository is taken', () => {
    const claimed = new Set(['src/parser/']);
    expect(nearestFreePaths(FILES, claimed, scope('src/parser/lexer.ts'), 5)).not.toContain(
      'src/parser/parser.ts',
    );
    expect(nearestFreePaths(FILES, claimed, scope('src/parser/lexer.ts'), 1)).toEqual(['src/util.ts']);
    expect(nearestFreePaths(FILES, new Set(['']), scope('lib/a.ts'), 5)).toEqual([]);
  });

  it('a folder scope finds files inside it first; a task scope finds none', () => {
    expect(nearestFreePaths(FILES, new Set(), scope('lib/'), 2)).toEqual(['lib/a.ts', 'lib/b.ts']);
    expect(nearestFreePaths(FILES, new Set(), scope('task:4'), 5)).toEqual([]);
    expect(nearestFreePaths([], new Set(), scope('lib/'), 5)).toEqual([]);
  });
});
