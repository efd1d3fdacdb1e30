/**
 * RefUpdateBatch (src/workspace/git/ref-batch.ts) on a real hub: updates that come together share one
 * transaction; the latest update of a ref wins; one update git refuses fails alone.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RefUpdateBatch } from '../../../src/workspace/git/ref-batch.js';
import { sh, tempDir, write } from '../helpers.js';

describe('RefUpdateBatch', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  function hubWithCommits(count: number): { hub: string; commits: string[] } {
    const made = tempDir('colony-ref-batch-');
    cleanup = made.cleanup;
    const repo = path.join(made.dir, 'repo');
    sh(made.dir, 'init', '--quiet', '--initial-branch=main', repo);
    const commits: string[] = [];
    for (let i = 0; i < count; i++) {
      write(repo, 'a.txt', `${i}\n`);
      sh(repo, 'add', '-A');
      sh(repo, 'commit', '--quiet', '-m', `c${i}`);
      commits.push(sh(repo, 'rev-parse', 'HEAD'));
    }
    return { hub: path.join(repo, '.git'), commits };
  }

  it('moves every branch of a burst, each to its latest commit, and logs the message', async () => {
    const { hub, commits } = hubWithCommits(3);
    const batch = new RefUpdateBatch(hub, 'publish');
    const results = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) =>
        batch.update(`refs/heads/agent/p${i}`, commits[i % 3] as string),
      ),
      batch.update('refs/heads/agent/p0', commits[2] as string),
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
    for (let i = 1; i < 30; i++) expect(sh(hub, 'rev-parse', `agent/p${i}`)).toBe(commits[i % 3]);
    expect(sh(hub, 'rev-parse', 'agent/p0')).toBe(commits[2]);
    expect(sh(hub, 'reflog', 'show', '--format=%gs', 'refs/heads/agent/p1')).toBe('publish');
  });

  it('fails only the update git refuses, whatever came with it', async () => {
    const { hub, commits } = hubWithCommits(1);
    const batch = new RefUpdateBatch(hub, 'publish');
    const missing = 'e'.repeat(40);
    const [first, bad, last] = await Promise.all([
      batch.update('refs/heads/agent/a', commits[0] as string),
      batch.update('refs/heads/agent/b', missing),
      batch.update('refs/heads/agent/c', commits[0] as string),
    ]);
    expect(first?.ok).toBe(true);
    expect(last?.ok).toBe(true);
    expect(bad?.ok).toBe(false);
    if (bad && !bad.ok) expect(bad.error).toMatch(/refs\/heads\/agent\/b/);
    expect(sh(hub, 'rev-parse', 'agent/c')).toBe(commits[0]);
    expect(() => sh(hub, 'rev-parse', '--verify', '--quiet', 'agent/b')).toThrow();
  });
});
