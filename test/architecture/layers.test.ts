/**
 * The import graph has no upward arrow: a folder of src/ imports only folders of a lower layer (or
 * itself). Layers, lowest first, as docs/architecture.md lists them. A new folder must be placed here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const LAYERS: string[][] = [
  ['lang'],
  ['auth'],
  ['model'],
  ['core'],
  ['store', 'tool', 'view', 'sandbox'],
  // demo: the bundled scripted scenarios are data over model/ (the run's catalog in run/ looks them up).
  ['agent', 'demo'],
  ['run'],
  ['coord', 'workspace', 'workflow', 'proxy'],
  ['fleet', 'mcp'],
  ['external-agent'],
  ['topology'],
  // runner: the front door of a new run (one spec builder for the library and the CLI).
  ['runner'],
  // notify: what needs a person, found in a run's log (the server's "needs you" list reads it too).
  ['notify'],
  // forge: publishing a finished run (push + pull request) reads the log, the view and the git runner.
  // notify (the layer below): notifications to a person (webhook, desktop) follow the run's log.
  ['report', 'server', 'worker', 'forge', 'supervise'],
  // watch: labelled issues become runs and pull requests; it publishes through forge/.
  // attempts: `colony run --attempts N` starts N runs, judges and ranks them, publishes the winner.
  ['dashboard', 'eval', 'watch', 'attempts'],
  // The CLI is a client of the library, never the other way round.
  ['library'],
  ['cli'],
];

/** Arrows named on their own, so that reordering LAYERS cannot quietly allow them. */
const FORBIDDEN: Array<[from: string, to: string]> = [
  ['library', 'cli'],
  ['runner', 'cli'],
  ['topology', 'cli'],
  ['topology', 'server'],
];
/** Files directly in src/ are the package's entry points: above every folder. */
const ENTRY = LAYERS.length;
const SRC = join(import.meta.dirname, '..', '..', 'src');
const layerOf = new Map([
  ...LAYERS.flatMap((folders, rank) => folders.map((f) => [f, rank] as const)),
  ['(entry)', ENTRY] as const,
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every import of one folder by another: `from → to (file: specifier)`. */
function crossFolderImports(): { from: string; to: string; where: string }[] {
  const found: { from: string; to: string; where: string }[] = [];
  const specifiers = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    const from = path.includes('/') ? (path.split('/')[0] ?? '') : '(entry)';
    for (const match of readFileSync(file, 'utf8').matchAll(specifiers)) {
      const target = relative(SRC, normalize(join(dirname(file), match[1] ?? '')));
      const to = target.split('/')[0] ?? '';
      if (to !== from && !target.startsWith('..'))
        found.push({ from, to, where: `${relative(SRC, file)}: ${match[1]}` });
    }
  }
  return found;
}

describe('src/ layers', () => {
  it('places every folder of src/ in a layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(folders.map((e) => e.name).filter((name) => !layerOf.has(name))).toEqual([]);
  });

  it('has no import from a lower or equal layer into a higher one', () => {
    const imports = crossFolderImports();
    expect(imports.length).toBeGreaterThan(100);
    const upward = imports
      .filter(({ from, to }) => (layerOf.get(to) ?? Number.POSITIVE_INFINITY) >= (layerOf.get(from) ?? -1))
      .map(({ from, to, where }) => `${from} → ${to} (${where})`);
    expect(upward).toEqual([]);
  });

  it('has none of the forbidden arrows (library → cli, topology → cli or server, …)', () => {
    for (const [from, to] of FORBIDDEN) expect(layerOf.get(from)).toBeLessThan(layerOf.get(to) ?? -1);
    const found = crossFolderImports()
      .filter((arrow) => FORBIDDEN.some(([from, to]) => arrow.from === from && arrow.to === to))
      .map(({ from, to, where }) => `${from} → ${to} (${where})`);
    expect(found).toEqual([]);
  });
});
