/** A run's git side for integration tests: user repo, hub, agent worktrees, recorded hooks. */
import path from 'node:path';
import { ok, type Result } from '../../../src/lang/result.js';
import type { Store } from '../../../src/store/index.js';
import { openAgentRepo, publishAgentRepo } from '../../../src/workspace/agent-repo/agent-repo.js';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { IntegrationQueue } from '../../../src/workspace/integration/index.js';
import type { IntegrationQueueOptions } from '../../../src/workspace/integration/types.js';
import { addWorktree } from '../../../src/workspace/worktree.js';
import { testRunId } from '../../helpers/db.js';
import { sh, tempDir, write } from '../helpers.js';

/** Verify fails when any file under src/ contains BROKEN; it counts its runs in a file outside the tree. */
export const CHECK_SH = `#!/bin/sh
echo run >> "$VERIFY_COUNT_FILE"
if grep -rl BROKEN src/; then echo "FAIL: BROKEN found"; exit 1; fi
echo "ok: $(ls src | wc -l) files clean"
`;

export interface Posted {
  author: string;
  kind: 'PATCH' | 'FAIL';
  summary: string;
  detail?: string;
  scope?: string[];
}

export interface FixtureAgent {
  path: string;
  branch: string;
  publish(): Promise<Result<string>>;
}

export interface Fixture {
  dir: string;
  user: string;
  hub: string;
  base: string;
  runId: string;
  posts: Posted[];
  dms: { to: string; from: string; text: string }[];
  countFile: string;
  /**
   * An agent's checkout as a worktree of the hub: the queue does not care where a branch comes from,
   * so `publish` has nothing to copy.
   */
  agent(name: string): Promise<FixtureAgent>;
  /** An agent with a repository of its own, as in a run (workspace/agent-repo/agent-repo.ts). */
  ownRepo(name: string): Promise<FixtureAgent>;
  queue(options?: Partial<IntegrationQueueOptions>): IntegrationQueue;
  mainLog(): string[];
  cleanup(): void;
}

export async function makeFixture(store: Store, label: string): Promise<Fixture> {
  const { dir, cleanup } = tempDir('colony-int-');
  const user = path.join(dir, 'user');
  sh(dir, 'init', '--quiet', '--initial-branch=main', user);
  write(user, 'src/shared.txt', 'alpha\nbeta\ngamma\n');
  write(user, 'check.sh', CHECK_SH);
  sh(user, 'add', '-A');
  sh(user, 'commit', '--quiet', '-m', 'base');
  const base = sh(user, 'rev-parse', 'HEAD');
  const hub = path.join(dir, 'hub.git');
  const created = await createHub(hub, user, base);
  if (!created.ok) throw new Error(created.error);
  const runId = testRunId(label);
  const posts: Posted[] = [];
  const dms: { to: string; from: string; text: string }[] = [];
  const countFile = path.join(dir, 'verify-count');
  const queues: IntegrationQueue[] = [];
  return {
    dir,
    user,
    hub,
    base,
    runId,
    posts,
    dms,
    countFile,
    async agent(name) {
      const wt = await addWorktree(hub, path.join(dir, 'wt', name), `agent/${name}`, base);
      if (!wt.ok) throw new Error(wt.error);
      const { branch } = wt;
      return { path: wt.path, branch, publish: async () => ok(sh(hub, 'rev-parse', branch)) };
    },
    async ownRepo(name) {
      const repo = {
        checkout: path.join(dir, 'worktrees', name),
        gitDir: path.join(dir, 'repos', `${name}.git`),
        branch: `agent/${name}`,
      };
      const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
      if (!opened.ok) throw new Error(opened.error);
      return { path: repo.checkout, branch: repo.branch, publish: () => publishAgentRepo(hub, repo) };
    },
    queue(options = {}) {
      const queue = new IntegrationQueue({
        runId,
        hubPath: hub,
        workRoot: path.join(dir, 'work'),
        verify: 'sh check.sh',
        log: store.log,
        env: { ...process.env, VERIFY_COUNT_FILE: countFile },
        hooks: {
          postEntry: async (entry) => {
            posts.push(entry);
          },
          sendDirect: async (to, from, text) => {
            dms.push({ to, from, text });
          },
        },
        ...options,
      });
      queues.push(queue);
      return queue;
    },
    mainLog: () => sh(hub, 'log', '--format=%H', 'main').split('\n'),
    cleanup: () => {
      for (const queue of queues) void queue.close();
      cleanup();
    },
  };
}

/** Writes files in a worktree and commits them as the agent would (through git directly). */
export function commitFiles(wt: string, files: Record<string, string>, message: string): string {
  for (const [rel, content] of Object.entries(files)) write(wt, rel, content);
  sh(wt, 'add', '-A');
  sh(wt, 'commit', '--quiet', '-m', message);
  return sh(wt, 'rev-parse', 'HEAD');
}
