/** Committed git repositories for the benches: a fresh `main` with the given files as its one commit. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Writes `files` (path → content) under `dir`, then `git init` on main and one commit of them all. */
export function commitFixture(
  dir: string,
  files: Record<string, string>,
  message: string,
): { dir: string; commit: string } {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', message);
  return { dir, commit: git('rev-parse', 'HEAD') };
}

/** A tiny committed git repository for benchmark agents to `ls` in. */
export function makeFixtureRepo(dir: string): { dir: string; commit: string } {
  return commitFixture(
    dir,
    {
      'README.md': '# bench fixture\n\nA small project for the fanout benchmark.\n',
      'package.json': '{ "name": "bench-fixture", "version": "1.0.0" }\n',
      'src/add.ts': 'export const add = (a: number, b: number) => a + b;\n',
      'src/mul.ts': 'export const mul = (a: number, b: number) => a * b;\n',
    },
    'fixture',
  );
}
