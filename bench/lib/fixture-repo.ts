/** A tiny committed git repository for benchmark agents to `ls` in. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function makeFixtureRepo(dir: string): { dir: string; commit: string } {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# bench fixture\n\nA small project for the fanout benchmark.\n');
  writeFileSync(join(dir, 'package.json'), '{ "name": "bench-fixture", "version": "1.0.0" }\n');
  writeFileSync(join(dir, 'src', 'add.ts'), 'export const add = (a: number, b: number) => a + b;\n');
  writeFileSync(join(dir, 'src', 'mul.ts'), 'export const mul = (a: number, b: number) => a * b;\n');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'fixture');
  return { dir, commit: git('rev-parse', 'HEAD') };
}
