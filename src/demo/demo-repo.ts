/**
 * Copies the bundled example repository to a fresh folder and makes it a git repository, named after
 * the demo that uses it (`colony-demo-solo-…`), not after the example (`colony-demo-demo-repo-…`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';

export function createDemoRepo(
  example: string,
  parent = tmpdir(),
  demo = example.replace(/-repo$/, ''),
): string {
  const dir = mkdtempSync(join(parent, `colony-demo-${demo}-`));
  cpSync(join(packageRoot(), 'examples', example), dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Colony Demo', '-c', 'user.email=demo@colony.local', ...args], {
      cwd: dir,
      stdio: 'pipe',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'Example repository with failing tests');
  return dir;
}
