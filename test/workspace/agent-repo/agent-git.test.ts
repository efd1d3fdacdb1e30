/**
 * The guard of Colony's git on an agent repository (src/workspace/agent-repo/agent-git.ts): once its run is
 * contained, a command there sees that repository and the hub's objects, nothing else of the host —
 * whatever the checkout's `.git` file says.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containAgentRepos } from '../../../src/workspace/agent-repo/agent-git.js';
import { openAgentRepo } from '../../../src/workspace/agent-repo/agent-repo.js';
import { git, shInRepo } from '../../../src/workspace/git/git.js';
import { machineSandbox } from '../../sandbox/helpers.js';
import { agentRepoIn, tempDir, userRepoAndHub } from '../helpers.js';

const made = tempDir('colony-agent-git-');
afterAll(() => made.cleanup());

describe("Colony's git on an agent repository", () => {
  it("runs in the repository's own sandbox once the run is contained, pinned to Colony's record", async () => {
    const { hub, base, user } = await userRepoAndHub(made.dir, { 'a.txt': 'a\n' });
    const repo = agentRepoIn(made.dir, 'ann');
    const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
    expect(opened.ok).toBe(true);
    const secret = path.join(made.dir, 'host-secret.txt');
    writeFileSync(secret, 'host secret\n');
    const probe = `cat ${secret} 2>&1; ls ${user} 2>&1; echo "dir=$GIT_DIR"`;

    const uncontained = await shInRepo(probe, [], { cwd: repo.checkout });
    expect(uncontained.stdout).toContain('host secret');

    containAgentRepos(path.join(made.dir, 'run'), await machineSandbox());
    const contained = await shInRepo(probe, [], { cwd: repo.checkout, contain: true });
    expect(contained.stdout).not.toContain('host secret');
    expect(contained.stdout).toContain('No such file or directory');
    expect(contained.stdout).toContain(`dir=${repo.gitDir}`);

    // A `.git` rewritten to name the user's repository changes nothing for Colony's git.
    writeFileSync(path.join(repo.checkout, '.git'), `gitdir: ${path.join(user, '.git')}\n`);
    const head = await git(['rev-parse', 'HEAD'], { cwd: repo.checkout });
    expect(head.ok, head.stderr).toBe(true);
    expect(head.stdout.trim()).toBe(base);
    const branch = await git(['symbolic-ref', 'HEAD'], { cwd: repo.checkout });
    expect(branch.stdout.trim()).toBe('refs/heads/agent/ann');
  });
});
