/**
 * The bug-hunt example end to end (examples/workflows/bug-hunt.ts on examples/peers-repo): a planner
 * splits the sources, hunters report bugs per slice (one bug twice), the program de-duplicates them,
 * parallel coder agents fix them in their own worktrees and land through the integration queue, and
 * the integration sync point passes on hub main.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bugHuntDemoPolicy } from '../../src/demo/bug-hunt-policy.js';
import { createDemoRepo } from '../../src/demo/demo-repo.js';
import { PEERS_DEMO_MERGE_VERIFY } from '../../src/demo/peers-policy.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { ofKind, runWorkflowFile, type WorkflowRunResult } from './run-helper.js';

let store: Store;
let run: WorkflowRunResult;
let repo: string;

beforeAll(async () => {
  store = await openTestStore();
  repo = createDemoRepo('peers-repo');
  run = await runWorkflowFile(store, {
    file: join(import.meta.dirname, '..', '..', 'examples', 'workflows', 'bug-hunt.ts'),
    repo,
    policy: bugHuntDemoPolicy,
    args: { test: 'node --test test/', fixers: '6' },
    verify: 'node --test test/',
    mergeVerify: PEERS_DEMO_MERGE_VERIFY,
  });
}, 180_000);

afterAll(async () => {
  await store?.close();
});

describe('bug-hunt workflow', () => {
  it('de-duplicates the reported bugs and fixes every one through the integration queue', () => {
    expect(run.summary.status, run.summary.reason ?? '').toBe('succeeded');
    const value = run.result?.value as {
      reported: number;
      bugs: Array<{ file: string; fixed: boolean }>;
      integration: { passed: boolean };
    };
    expect(value.reported).toBe(7);
    expect(value.bugs).toHaveLength(6);
    expect(value.bugs.every((b) => b.fixed)).toBe(true);
    expect(value.integration.passed).toBe(true);
    expect(ofKind(run.events, 'merge.landed')).toHaveLength(6);
    // Every fixer had its own worktree and branch.
    const writers = ofKind(run.events, 'workspace.ready').map((e) => e.agent);
    expect(new Set(writers).size).toBe(6);
    expect(writers.every((agent) => agent?.startsWith('key.fix-'))).toBe(true);
  });

  it('ran the fixers in parallel (several started before the first landed)', () => {
    const firstLanded = Math.min(...ofKind(run.events, 'merge.landed').map((e) => e.seq));
    const coders = ofKind(run.events, 'agent.started').filter(
      (e) => e.data.profile === 'coder' && e.seq < firstLanded,
    );
    expect(coders.length).toBeGreaterThan(1);
  });

  it('fetches hub main with every fix into the user repository', () => {
    const tests = execFileSync(
      'bash',
      ['-c', `git checkout -q colony/${run.runId} && node --test test/ 2>&1; echo "exit=$?"`],
      {
        cwd: repo,
        encoding: 'utf8',
      },
    );
    expect(tests).toContain('exit=0');
    expect(run.summary.verify?.passed).toBe(true);
  });
});
