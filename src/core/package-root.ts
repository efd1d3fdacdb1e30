import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `colony` command of this package (started as `node <it> …`: eval trials, recovered runs). */
export function colonyBin(): string {
  return join(packageRoot(), 'bin', 'colony.js');
}

/** The Colony package's folder (works from src/ under vitest and from dist/ when installed). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'colony'
    )
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the colony package folder');
    dir = parent;
  }
}
