/**
 * The coordination primitives and the shared workspace working together, through the real agent
 * loop: two scripted agents race for the same scope, one yields, both land through the integration
 * queue, and the integrated result reaches the user's repository as colony/<run-id>.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { runAgent } from '../../src/agent/loop.js';
import { toolsForProfile } from '../../src/agent/profiles.js';
import {
  type Coordination,
  createCoordination,
  createCoordinationTools,
  directMessageInjector,
} from '../../src/coord/index.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider, type ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { coordinationHooks } from '../../src/topology/team/integration-hooks.js';
import { IntegrationQueue } from '../../src/workspace/integration/index.js';
import { createMergeRequestTool, createSyncTool } from '../../src/workspace/integration/tools.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let coord: Coordination;
beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord.close();
  await store.close();
});

function userRepo(): { dir: string; base: string } {
  return createUserRepo({ '.gitignore': 'setup.log\n', 'README.md': '# shared\n' }, 'colony-shared-');
}

function promiseWithResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Claim `src/<want>/`; on a conflict claim the fallback instead; write a file there, merge, release.
 * `claimed` is called once this peer's first claim has come back (its result is in the request);
 * the release waits for `otherClaimed`, so the holder of the contested scope keeps it until the
 * other peer's first claim has been answered (and so refused).
 */
function peerPolicy(
  want: string,
  fallback: string,
  barrier: { claimed: () => void; otherClaimed: Promise<void> },
): ScriptedPolicy {
  return async (request) => {
    const results = request.messages.filter((m) => m.role === 'tool');
    if (results.length > 0) barrier.claimed();
    const last = results.at(-1)?.content ?? '';
    const claimedFallback = request.messages.some(
      (m) =>
        m.role === 'assistant' &&
        m.toolCalls.some((c) => c.name === 'claim' && c.arguments.includes(fallback)),
    );
    const area = claimedFallback ? fallback : want;
    switch (results.length) {
      case 0:
        return {
          toolCalls: [{ name: 'claim', arguments: { scope: `src/${want}/`, summary: `work on ${want}` } }],
        };
      case 1:
        if (/held by|conflict/i.test(last)) {
          return {
            toolCalls: [
              { name: 'claim', arguments: { scope: `src/${fallback}/`, summary: `work on ${fallback}` } },
            ],
          };
        }
        return {
          toolCalls: [{ name: 'write', arguments: { path: `src/${area}/index.txt`, content: `${area}\n` } }],
        };
      default: {
        const wrote = request.messages.some(
          (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'write'),
        );
        if (!wrote)
          return {
            toolCalls: [
              { name: 'write', arguments: { path: `src/${area}/index.txt`, content: `${area}\n` } },
            ],
          };
        const merged = request.messages.some(
          (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'merge_request'),
        );
        if (!merged)
          return { toolCalls: [{ name: 'merge_request', arguments: { note: `add src/${area}` } }] };
        const released = request.messages.some(
          (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'release'),
        );
        if (!released) {
          await barrier.otherClaimed;
          return {
            toolCalls: [{ name: 'release', arguments: { scope: `src/${area}/`, outcome: 'landed' } }],
          };
        }
        return { text: `done with ${area}` };
      }
    }
  };
}

describe('shared workspace with claims, messages and the integration queue', () => {
  it('lets two agents race for a scope, land both changes and deliver colony/<run-id>', async () => {
    const runId = testRunId('shared');
    const repo = userRepo();
    const runDir = mkdtempSync(join(tmpdir(), 'colony-shared-run-'));
    const workspace = new RunWorkspace({
      runId,
      runDir,
      userRepo: repo.dir,
      baseCommit: repo.base,
      log: store.log,
      setup: 'echo ready > setup.log',
    });
    expect((await workspace.open()).ok).toBe(true);
    const queue = new IntegrationQueue({
      runId,
      hubPath: workspace.hubPath,
      workRoot: runDir,
      verify: 'test -f README.md',
      log: store.log,
      hooks: coordinationHooks(coord, runId),
    });

    const runPeer = async (agent: string, policy: ScriptedPolicy) => {
      const ws = await workspace.forAgent(agent);
      if (!ws.ok) throw new Error(ws.error);
      expect(existsSync(join(ws.value.worktree, 'setup.log'))).toBe(true);
      const base = toolsForProfile('coder', ws.value.worktree);
      if (!base.ok) throw new Error(base.error);
      const ctx = {
        runId,
        agent,
        worktree: ws.value.worktree,
        branch: ws.value.branch,
        publish: ws.value.publish,
        queue,
        hubPath: workspace.hubPath,
        log: store.log,
      };
      const tools = [
        ...base.tools,
        ...createCoordinationTools(coord, runId, agent),
        createMergeRequestTool(ctx),
        createSyncTool(ctx),
      ];
      return runAgent(
        {
          runId,
          name: agent,
          profile: 'coder',
          task: 'add your area',
          system: 'peer',
          tools,
          provider: createScriptedProvider(policy),
          maxSteps: 12,
        },
        {
          log: store.log,
          scrubber: createScrubber([]),
          budget: new Budget({}),
          history: [],
          beforeModelCall: directMessageInjector(coord.messages, runId, agent),
        },
      );
    };
    // Both worktrees first, so both agents make their first claim at the same moment (a real race).
    // Whichever wins holds the scope until the other's first claim has been refused.
    await Promise.all([workspace.forAgent('peer-1'), workspace.forAgent('peer-2')]);
    const claimed1 = promiseWithResolvers();
    const claimed2 = promiseWithResolvers();
    const outcomes = await Promise.all([
      runPeer(
        'peer-1',
        peerPolicy('parser', 'lexer', { claimed: claimed1.resolve, otherClaimed: claimed2.promise }),
      ),
      runPeer(
        'peer-2',
        peerPolicy('parser', 'lexer', { claimed: claimed2.resolve, otherClaimed: claimed1.promise }),
      ),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['done', 'done']);
    await queue.close();

    // Exactly one got the contested scope; the other yielded to the fallback.
    const finals = outcomes.map((o) => o.finalText).sort();
    expect(finals).toEqual(['done with lexer', 'done with parser']);
    const conflicts = await store.log.read(runId, { kinds: ['claim.conflict'] });
    expect(conflicts).toHaveLength(1);
    const landed = await store.log.read(runId, { kinds: ['merge.landed'] });
    expect(landed.length).toBeGreaterThanOrEqual(1);
    const entries = await coord.context.read(runId, 'observer', { kinds: ['PATCH', 'CLAIM'] });
    expect(entries.ok && entries.value.entries.filter((e) => e.kind === 'PATCH')).toHaveLength(2);

    const fetched = await workspace.finish();
    expect(fetched.ok).toBe(true);
    const show = (path: string) =>
      execFileSync('git', ['show', `colony/${runId}:${path}`], { cwd: repo.dir, encoding: 'utf8' });
    expect(show('src/parser/index.txt')).toBe('parser\n');
    expect(show('src/lexer/index.txt')).toBe('lexer\n');
    // Worktrees are gone; branches stay in the hub; the user's checkout is untouched.
    expect(existsSync(workspace.worktreePath('peer-1'))).toBe(false);
    const branches = execFileSync('git', ['branch', '--list', 'agent/*'], {
      cwd: workspace.hubPath,
      encoding: 'utf8',
    });
    expect(branches).toMatch(/agent\/peer-1/);
    expect(branches).toMatch(/agent\/peer-2/);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo.dir, encoding: 'utf8' })).toBe('');
  });
});
