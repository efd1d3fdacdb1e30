import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colony } from '../helpers/cli.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const nodeTests = (cwd: string) =>
  spawnSync(process.execPath, ['--test', 'test/'], { cwd, encoding: 'utf8' });

describe('colony demo solo', () => {
  it('fixes the example repository on colony/<run-id> and leaves the repository itself untouched', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'colony-demo-test-'));
    const result = await colony(['demo', 'solo', '--dir', parent]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/SCRIPTED/);
    expect(result.stdout).toMatch(/The same goal with a real model/);

    const [folder] = readdirSync(parent);
    // Named after the demo, not after the example it copies (colony-demo-demo-repo-…).
    expect(folder).toMatch(/^colony-demo-solo-/);
    const repo = join(parent, folder ?? '');
    const runId = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();

    // The user's repository: still on its one commit, clean, with the tests failing there.
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'branch', '--show-current')).toBe('main');
    expect(nodeTests(repo).status).not.toBe(0);

    // The result branch: the same tests pass.
    const checkout = mkdtempSync(join(tmpdir(), 'colony-demo-result-'));
    execFileSync('sh', ['-c', `git -C "${repo}" archive colony/${runId} | tar -x -C "${checkout}"`]);
    const after = nodeTests(checkout);
    expect(after.stdout).toMatch(/# fail 0/);
    expect(after.status).toBe(0);
    // Only source files changed; the tests are the same.
    const changed = git(repo, 'diff', '--name-only', `main...colony/${runId}`).split('\n').sort();
    expect(changed).toEqual(['src/parse-duration.js', 'src/slugify.js', 'src/word-count.js']);
  });
});

describe('colony demo orchestrated', () => {
  it('prints events in words and the command to run it with a real model', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'colony-demo-test-'));
    const result = await colony(['demo', 'orchestrated', '--dir', parent]);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(parent)).toEqual([expect.stringMatching(/^colony-demo-orchestrated-/)]);
    // No raw event kinds as lines ("[a] task.started"); the tasks in words instead.
    expect(result.stdout).not.toMatch(/\] (task|merge|claim|subagent)\.[a-z_]+$/m);
    expect(result.stdout).toMatch(/\[lead\] assigned task-1 to a: /);
    expect(result.stdout).toMatch(/The same kind of team with a real model/);
    expect(result.stdout).toMatch(
      /npx colony run --topology orchestrated --repo .* --model gpt-5-mini --goal "/,
    );
    // A read-only team changes nothing: no result branch in the repository, and the demo says so.
    expect(result.stdout).toMatch(/result branch: none/);
  });
});
