/**
 * A setup that fails without the network says so (issue 27): on a tree with agents' changes setup
 * runs with no network unless the run allows it, and its failure names `--allow-network`. Checked
 * on hub-main checks' checkouts (main-checkout.ts), in the machine's bubblewrap sandbox.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutForCheck } from '../../src/workspace/main-checkout.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { machineSandbox } from '../sandbox/helpers.js';

function repoWithLanding(): { dir: string; base: string; landed: string } {
  const repo = createUserRepo({ 'README.md': '# base\n' }, 'colony-setup-offline-');
  writeFileSync(path.join(repo.dir, 'README.md'), '# an agent was here\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: repo.dir,
      encoding: 'utf8',
    }).trim();
  git('commit', '-qam', 'landed');
  return { ...repo, landed: git('rev-parse', 'HEAD') };
}

async function failedSetupOutput(commit: 'base' | 'landed', allowNetwork: boolean): Promise<string> {
  const repo = repoWithLanding();
  const prepared = await checkoutForCheck({
    hubPath: repo.dir,
    checkout: path.join(mkdtempSync(path.join(tmpdir(), 'colony-setup-offline-check-')), 'main'),
    commit: repo[commit],
    baseCommit: repo.base,
    setup: 'echo cannot download; exit 3',
    env: process.env,
    sandbox: await machineSandbox({ network: allowNetwork }),
  });
  if (prepared.kind !== 'setup_failed') throw new Error(`setup did not fail: ${JSON.stringify(prepared)}`);
  expect(prepared.setup.exitCode).toBe(3);
  return prepared.setup.output;
}

describe('setup without the network', () => {
  it('on a tree with an agent’s change, a failed setup says it had no network and names --allow-network', async () => {
    const output = await failedSetupOutput('landed', false);
    expect(output).toContain('cannot download');
    expect(output).toMatch(/setup ran without the network.*--allow-network/);
  });

  it('on the base tree, or with --allow-network, setup had the network: no such note', async () => {
    expect(await failedSetupOutput('base', false)).not.toContain('--allow-network');
    expect(await failedSetupOutput('landed', true)).not.toContain('--allow-network');
  });
});
