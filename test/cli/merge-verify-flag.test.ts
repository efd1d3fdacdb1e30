/** `colony run --merge-verify`: accepted only with --topology peers, never empty (usage errors). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_HELP, runCommand } from '../../src/cli/commands/run.js';

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-merge-verify-'));
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'init'],
  ])
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd: dir });
  return dir;
}

describe('colony run --merge-verify', () => {
  it('is documented and rejected without the peers topology or when empty', async () => {
    expect(RUN_HELP).toMatch(/--merge-verify CMD/);
    const dir = repo();
    const run = (...args: string[]) => runCommand(['--repo', dir, '--goal', 'g', ...args]);
    await expect(run('--verify', 'true', '--merge-verify', 'true')).rejects.toThrow(
      /--merge-verify needs --topology peers/,
    );
    await expect(
      run('--topology', 'peers', '--agents', '2', '--verify', 'true', '--merge-verify', ' '),
    ).rejects.toThrow(/--merge-verify must not be empty/);
  });
});
