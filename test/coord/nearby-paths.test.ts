import { describe, expect, it } from 'vitest';
import { nearestFreePaths, RecentOffers, sortPaths } from '../../src/coord/nearby-paths.js';
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

  it('places paths just suggested to other agents after the rest of their folder, and still suggests them when nothing else is free', () => {
    const avoid = new Set(['files/f02.txt', 'files/f04.txt']);
    expect(nearestFreePaths(FILES, new Set(['files/f03.txt/']), scope('files/f03.txt'), 3, avoid)).toEqual([
      'files/f01.txt',
      'files/f05.txt',
      'files/f06.txt',
    ]);
    const others = new Set(FILES.filter((f) => f.startsWith('files/') && !avoid.has(f)).map((f) => `${f}/`));
    expect(nearestFreePaths(FILES, others, scope('files/f03.txt'), 3, avoid)).toEqual([
      'files/f02.txt',
      'files/f04.txt',
      'README.md',
    ]);
  });
});

describe('RecentOffers', () => {
  it('gives each agent the paths offered to the others until they expire, per run', () => {
    const offers = new RecentOffers(1_000);
    offers.record('r1', 'a', ['x', 'y'], 0);
    offers.record('r1', 'b', ['z'], 500);
    offers.record('r2', 'c', ['w'], 0);
    expect([...offers.othersOf('r1', 'a', 600)]).toEqual(['z']);
    expect([...offers.othersOf('r1', 'c', 600)].sort()).toEqual(['x', 'y', 'z']);
    expect([...offers.othersOf('r1', 'c', 1_200)]).toEqual(['z']);
    expect([...offers.othersOf('r1', 'c', 1_500)]).toEqual([]);
    expect([...offers.othersOf('r2', 'a', 10)]).toEqual(['w']);
  });
});
