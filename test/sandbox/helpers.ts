import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectSandbox } from '../../src/sandbox/detect.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

/**
 * The sandbox of this machine (bwrap must work here: `.ci/run` installs bubblewrap); the test fails,
 * never skips, when it does not.
 */
export async function machineSandbox(overrides: Partial<Sandbox> = {}): Promise<Sandbox> {
  const found = await detectSandbox();
  if (!found.ok) throw new Error(found.error);
  return { bwrap: found.value, network: false, writable: true, passEnv: {}, ...overrides };
}

/** Fresh folders under the system temp dir, removed by `cleanup`. */
export function tempDirs() {
  const made: string[] = [];
  return {
    make(prefix = 'colony-sandbox-test-'): string {
      const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
      made.push(dir);
      return dir;
    },
    cleanup(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const REPO_ROOT = path.join(import.meta.dirname, '..', '..');

/**
 * For tests whose child processes import dist/: rebuilds it when a file of `sourceDirs` (relative to
 * the repository) is newer than its built counterpart.
 */
export function ensureBuilt(sourceDirs: string[]): void {
  const stale = sourceDirs.some((dir) =>
    readdirSync(path.join(REPO_ROOT, dir))
      .filter((name) => name.endsWith('.ts'))
      .some((name) => {
        const built = path.join(REPO_ROOT, 'dist', dir, name.replace(/\.ts$/, '.js'));
        return (
          !existsSync(built) || statSync(built).mtimeMs < statSync(path.join(REPO_ROOT, dir, name)).mtimeMs
        );
      }),
  );
  if (!stale) return;
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(REPO_ROOT, 'tsconfig.build.json')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`build failed: ${built.stdout}${built.stderr}`);
}
