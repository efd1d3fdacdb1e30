/**
 * The peers demo's changelog conflict resolution, run with real git and sh: whichever of the two
 * changelog fixes lands first, the resolved file is the same (kill-resume compares a crash run's result
 * with an uninterrupted run's, and a resume can change which peer wins the race to land).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESOLVE_CHANGELOG } from '../../src/demo/peers-policy.js';

const BASE = '# Changelog\n\n## Unreleased\n';
const SLUGIFY = '- slugify: lower-case\n';
const MEDIAN = '- median: sort numerically\n';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** The changelog after `ours` merges `theirs` (a conflict) and the demo's resolution runs. */
function resolvedAfterMerging(ours: 'slugify' | 'median'): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-peers-policy-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'CHANGELOG.md'), BASE);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'base');
  for (const [branch, line] of [
    ['slugify', SLUGIFY],
    ['median', MEDIAN],
  ] as const) {
    git(dir, 'checkout', '-q', '-b', branch, 'main');
    writeFileSync(join(dir, 'CHANGELOG.md'), BASE + line);
    git(dir, 'commit', '-q', '-am', branch);
  }
  git(dir, 'checkout', '-q', ours);
  const merged = spawnSync('git', ['merge', ours === 'slugify' ? 'median' : 'slugify'], { cwd: dir });
  expect(merged.status, 'the two changelog lines conflict').not.toBe(0);
  const resolved = spawnSync('sh', ['-c', RESOLVE_CHANGELOG], { cwd: dir, encoding: 'utf8' });
  expect(resolved.status, resolved.stderr).toBe(0);
  const text = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
  expect(resolved.stdout).toBe(text);
  return text;
}

describe('the peers demo changelog resolution', () => {
  it('keeps both entries once, in the same order whichever landed first', () => {
    const slugifyLandedFirst = resolvedAfterMerging('median');
    const medianLandedFirst = resolvedAfterMerging('slugify');
    expect(slugifyLandedFirst).toBe(BASE + MEDIAN + SLUGIFY);
    expect(medianLandedFirst).toBe(slugifyLandedFirst);
  });
});
