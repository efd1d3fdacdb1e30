import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitError } from '../../../src/workspace/git/git.js';
import { makeUserRepo, sh, tempDir, write } from '../helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("Colony's own git calls", () => {
  it('run no fsmonitor or hook a repository config names, and see no key of Colony’s environment', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    makeUserRepo(dir);
    const marker = path.join(dir, '..', `${path.basename(dir)}-pwned`);
    cleanups.push(() => rmSync(marker, { force: true }));
    write(dir, 'evil.sh', `#!/bin/sh\nenv > '${marker}'\necho '{}'\n`);
    chmodSync(path.join(dir, 'evil.sh'), 0o755);
    sh(dir, 'config', 'core.fsmonitor', path.join(dir, 'evil.sh'));
    sh(dir, 'config', 'core.hooksPath', dir);
    write(dir, 'pre-commit', `#!/bin/sh\nenv > '${marker}'\n`);
    chmodSync(path.join(dir, 'pre-commit'), 0o755);

    process.env.COLONY_TEST_API_KEY = 'sk-should-never-reach-git';
    try {
      const status = await git(['status', '--porcelain'], { cwd: dir });
      expect(status.ok).toBe(true);
      const commit = await git(
        ['-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qam', 'x', '--allow-empty'],
        {
          cwd: dir,
        },
      );
      expect(commit.ok).toBe(true);
      expect(existsSync(marker)).toBe(false);
      // What git's own children see (an alias is run by git with git's environment).
      const env = await git(['-c', 'alias.envdump=!env', 'envdump'], { cwd: dir });
      expect(env.ok).toBe(true);
      expect(env.stdout).toContain('PATH=');
      expect(env.stdout).not.toContain('sk-should-never-reach-git');
      expect(env.stdout).not.toMatch(/^COLONY_/m);
    } finally {
      delete process.env.COLONY_TEST_API_KEY;
    }
    // The same repository run by plain git does run the fsmonitor: the test can fail.
    sh(dir, 'status');
    expect(existsSync(marker)).toBe(true);
  });
});

describe('gitError', () => {
  it('says why a push was refused, not only that it was', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const from = path.join(dir, 'from');
    const to = path.join(dir, 'to.git');
    mkdirSync(from);
    makeUserRepo(from);
    sh(dir, 'init', '--quiet', '--bare', to);
    // A lock left by a dead process: the remote refuses the ref update.
    mkdirSync(path.join(to, 'refs', 'heads'), { recursive: true });
    writeFileSync(path.join(to, 'refs', 'heads', 'main.lock'), '');
    const pushed = await git(['push', '--quiet', to, 'HEAD:refs/heads/main'], { cwd: from });
    expect(pushed.ok).toBe(false);
    expect(gitError(pushed)).toBe(
      `failed to push some refs to '${to}': ! [remote rejected] HEAD -> main (failed to update ref)`,
    );
  });
});
