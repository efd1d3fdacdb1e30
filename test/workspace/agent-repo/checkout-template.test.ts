/**
 * New lazy checkouts of a commit written from the first one's (src/workspace/agent-repo/checkout-template.ts):
 * the second agent's repository is the same as a `git reset` would make it — clean, the same files
 * skipped, modes and symlinks kept — and what it commits is the whole tree plus its change.
 */
import { chmodSync, lstatSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentRepo, openAgentRepo } from '../../../src/workspace/agent-repo/agent-repo.js';
import {
  CheckoutTemplates,
  MAX_TEMPLATE_BYTES,
} from '../../../src/workspace/agent-repo/checkout-template.js';
import { commitChanges } from '../../../src/workspace/worktree.js';
import { agentRepoIn, sh, tempDir, userRepoAndHub, write } from '../helpers.js';

describe('lazy checkouts from a template', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  async function setUp(extra: (user: string) => void = () => {}) {
    const made = tempDir('colony-template-');
    cleanup = made.cleanup;
    const files = {
      'README.md': '# template\n',
      'run.sh': '#!/bin/sh\necho run\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/deep/b.ts': 'export const b = 2;\n',
    };
    const { hub, base } = await userRepoAndHub(made.dir, files, (user) => {
      chmodSync(path.join(user, 'run.sh'), 0o755);
      symlinkSync('README.md', path.join(user, 'link'));
      extra(user);
    });
    const templates = new CheckoutTemplates();
    const open = async (name: string) => {
      const repo = agentRepoIn(made.dir, name);
      const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base, lazy: true, templates });
      if (!opened.ok) throw new Error(opened.error);
      return repo;
    };
    return { hub, base, templates, open };
  }

  const index = (repo: AgentRepo) => readFileSync(path.join(repo.gitDir, 'index'));

  it("makes the second checkout of a commit from the first one's, as a reset would", async () => {
    const { hub, base, open } = await setUp();
    const first = await open('ann');
    const second = await open('bob');
    // The template's index, byte for byte (a reset writes its own file times into it).
    expect(index(second).equals(index(first))).toBe(true);
    expect(sh(second.checkout, 'status', '--porcelain')).toBe('');
    expect(sh(second.checkout, 'ls-files', '-t')).toBe(sh(first.checkout, 'ls-files', '-t'));
    expect(sh(second.checkout, 'ls-files', '-t')).toContain('S src/deep/b.ts');
    expect(statSync(path.join(second.checkout, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(path.join(second.checkout, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(second.checkout, 'link'), 'utf8')).toBe('# template\n');

    write(second.checkout, 'README.md', '# changed\n');
    const committed = await commitChanges(second.checkout, 'change', { hub });
    if (!committed.ok || committed.status !== 'committed') throw new Error(JSON.stringify(committed));
    const files = (commit: string) => sh(hub, 'ls-tree', '-r', '--name-only', commit);
    expect(files(committed.commit)).toBe(files(base));
    expect(sh(hub, 'diff', '--name-only', base, committed.commit)).toBe('README.md');
    expect(sh(second.checkout, 'status', '--porcelain')).toBe('');
  });

  it('resets every checkout when the top-level files are too big to keep', async () => {
    const { open, templates, base } = await setUp((user) => {
      write(user, 'big.bin', 'x'.repeat(MAX_TEMPLATE_BYTES + 1));
    });
    const first = await open('ann');
    expect(await templates.write(base, '/nonexistent', '/nonexistent/index')).toBe(false);
    const second = await open('bob');
    expect(index(second).equals(index(first))).toBe(false);
    expect(sh(second.checkout, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(second.checkout, 'big.bin')).length).toBe(MAX_TEMPLATE_BYTES + 1);
  });
});
