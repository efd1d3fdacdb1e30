/**
 * The peers topology end to end through executeRun (the code `colony run --topology peers` runs):
 * three scripted peers on a repository with three broken modules, real Postgres, real git, DBOS.
 * Each peer gathers, claims a module (another one on a conflict), fixes it, merges through the
 * integration queue and releases; the run verifies hub main and delivers colony/<run-id>.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import { recordNewRun } from '../../src/cli/new-run.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { runDir } from '../../src/core/home.js';
import { createScriptedProvider, type ScriptedPolicy } from '../../src/model/index.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { peerNames } from '../../src/topology/peers.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { callsSoFar, peersSpec } from './peers-spec.js';

const MODULES = ['alpha', 'beta', 'gamma'];
// Each module is "broken" until fixed. The merge check fails on a wrong fix but tolerates a module
// not yet fixed, so single-module merges can land (the queue checks every merge with it); the verify
// command that decides the goal wants every module fixed (else the goal check could end the run after
// two modules, before the third peer got a slot).
const VERIFY = 'sh verify.sh';
const VERIFY_ALL = `sh verify.sh && ! grep -rqx broken src`;
const VERIFY_SH = `set -e
for m in ${MODULES.join(' ')}; do
  v=$(cat src/$m/value.txt)
  [ "$v" = "broken" ] || [ "$v" = "fixed $m" ] || { echo "src/$m is wrong: $v"; exit 1; }
done
echo ok
`;

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
  const files: Record<string, string> = {
    'README.md': '# three modules\n',
    'verify.sh': VERIFY_SH,
    '.gitignore': 'setup.log\n',
  };
  for (const m of MODULES) files[`src/${m}/value.txt`] = 'broken\n';
  return createUserRepo(files, 'colony-peers-');
}

/** One policy for every peer, reading the peer's ID from the end of its system prompt. */
const peerPolicy: ScriptedPolicy = (request) => {
  const id = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
  if (!id) return { text: 'no peer ID in the system prompt' };
  const order = id === 'peer-3' ? ['gamma', 'alpha', 'beta'] : ['alpha', 'beta', 'gamma'];
  const calls = callsSoFar(request);
  const results = request.messages.filter((m) => m.role === 'tool');
  const last = calls.at(-1);
  const lastResult = results.at(-1)?.content ?? '';
  if (!last) return { toolCalls: [{ name: 'context_read', arguments: {} }] };
  const claimed = calls.filter((c) => c.name === 'claim').map((c) => JSON.parse(c.arguments).scope as string);
  const area = claimed.at(-1)?.split('/')[1] ?? '';
  const conflict = last.name === 'claim' && /held by|conflict/i.test(lastResult);
  // A deterministic race: peer-2 always goes for alpha first, and peer-1 holds alpha until peer-2
  // has told it (by direct message) that it yields — so the conflict happens however slow a start is.
  if (last.name === 'context_read' && id === 'peer-2') {
    return { toolCalls: [{ name: 'claim', arguments: { scope: 'src/alpha/', summary: 'fix alpha' } }] };
  }
  if (conflict && id === 'peer-2' && !calls.some((c) => c.name === 'message_send')) {
    return {
      toolCalls: [{ name: 'message_send', arguments: { to: 'peer-1', text: 'you hold alpha; I yield' } }],
    };
  }
  if (last.name === 'context_read' || conflict || last.name === 'message_send') {
    const gathered = results[0]?.content ?? '';
    const next = order.find((m) => !claimed.includes(`src/${m}/`) && !gathered.includes(`fix ${m}`));
    if (!next) return { text: `${id}: nothing left to claim` };
    return { toolCalls: [{ name: 'claim', arguments: { scope: `src/${next}/`, summary: `fix ${next}` } }] };
  }
  // Injected before the next request, or returned by message_read if its notification came late.
  const yielded = request.messages.some((m) => m.role !== 'assistant' && /I yield/.test(m.content));
  if (
    id === 'peer-1' &&
    area === 'alpha' &&
    (last.name === 'merge_request' || last.name === 'message_read') &&
    !yielded
  ) {
    const waited = calls.filter((c) => c.name === 'message_read').length;
    if (waited < 250) return { toolCalls: [{ name: 'message_read', arguments: {} }] };
  }
  switch (last.name) {
    case 'claim':
      return {
        toolCalls: [
          { name: 'write', arguments: { path: `src/${area}/value.txt`, content: `fixed ${area}\n` } },
        ],
      };
    case 'write':
      return { toolCalls: [{ name: 'bash', arguments: { command: VERIFY } }] };
    case 'bash':
      return { toolCalls: [{ name: 'merge_request', arguments: { note: `fix ${area}` } }] };
    case 'merge_request':
    case 'message_read':
      return { toolCalls: [{ name: 'release', arguments: { scope: `src/${area}/`, outcome: 'landed' } }] };
    default:
      return { text: `${id}: fixed ${area}` };
  }
};

function threeModulesSpec(
  repo: { dir: string; base: string },
  agents: number,
  concurrency?: number,
): RunSpec {
  return peersSpec(repo, {
    runId: testRunId('peers'),
    agents,
    concurrency,
    goal: 'Fix every module under src/: each value.txt must read "fixed <module>".',
    setup: 'echo ready > setup.log',
    verify: VERIFY_ALL,
    mergeVerify: VERIFY,
  });
}

describe('peers topology', () => {
  it('three peers claim, fix, merge and release; hub main passes verify and reaches colony/<run-id>', async () => {
    const repo = userRepo();
    // Concurrency 2 of 3: the third peer waits for a free slot.
    const spec = threeModulesSpec(repo, 3, 2);
    await recordNewRun(store, spec);
    const started = performance.now();
    const result = await executeRun({
      store,
      spec,
      // A little latency so the first two peers race for the same module.
      provider: createScriptedProvider(peerPolicy, { latencyMs: 40 }),
      env: process.env,
      signal: new AbortController().signal,
      resumed: false,
    });
    const wallMs = Math.round(performance.now() - started);
    if (!result.ok) throw new Error(result.error);
    const events = await store.log.read(spec.runId);
    const finished = events.find((e) => e.kind === 'run.finished') as StoredEvent<'run.finished'>;
    expect(finished.data).toMatchObject({ status: 'succeeded', resultBranch: `colony/${spec.runId}` });
    expect(result.summary.status).toBe('succeeded');

    // Every peer ran with the same prompt up to its ID, which comes last.
    const starts = events.filter((e) => e.kind === 'agent.started') as StoredEvent<'agent.started'>[];
    expect(starts.map((e) => e.agent).sort()).toEqual(peerNames(3));
    const prefixes = new Set(starts.map((e) => e.data.system.replace(/peer-\d+\.$/, '')));
    expect(prefixes.size).toBe(1);
    expect([...prefixes][0]).toContain('merge_request');
    for (const e of events.filter((e) => e.kind === 'agent.finished') as StoredEvent<'agent.finished'>[])
      expect(e.data.status).toBe('done');

    // One PATCH per module; the result branch holds all three fixes and passes verify.
    const patches = await coord.context.read(spec.runId, 'observer', { kinds: ['PATCH'] });
    if (!patches.ok) throw new Error(patches.error);
    for (const m of MODULES) {
      const forModule = patches.value.entries.filter((p) => (p.scope ?? []).includes(`src/${m}/value.txt`));
      expect(forModule, m).toHaveLength(1);
    }
    const show = (path: string) =>
      execFileSync('git', ['show', `colony/${spec.runId}:${path}`], { cwd: repo.dir, encoding: 'utf8' });
    for (const m of MODULES) expect(show(`src/${m}/value.txt`)).toBe(`fixed ${m}\n`);
    const check = mkdtempSync(join(tmpdir(), 'colony-peers-check-'));
    execFileSync('git', ['worktree', 'add', '--quiet', '--detach', check, `colony/${spec.runId}`], {
      cwd: repo.dir,
    });
    expect(execFileSync('sh', ['-c', VERIFY_ALL], { cwd: check, encoding: 'utf8' })).toContain('ok');

    // peer-1 and peer-2 both went for alpha at the start: one got it, the other claimed beta.
    expect(events.filter((e) => e.kind === 'claim.conflict').length).toBeGreaterThanOrEqual(1);
    // Final verify on hub main was logged; no claim is left open; worktrees are gone.
    // (The goal check may also have verified an earlier main; each commit is verified once.)
    const verified = events.filter(
      (e) => e.kind === 'verify.finished' && e.agent === null,
    ) as StoredEvent<'verify.finished'>[];
    expect(verified.at(-1)?.data.passed).toBe(true);
    expect(new Set(verified.map((e) => e.data.commit)).size).toBe(verified.length);
    const held = await coord.claims.held(spec.runId);
    expect(held.ok && held.value).toEqual([]);
    const worktrees = join(runDir(store.home, spec.runId), 'worktrees');
    expect(existsSync(worktrees) ? readdirSync(worktrees) : []).toEqual([]);
    process.stderr.write(
      `[peers] 3 peers: wall ${wallMs} ms, events ${events.length}, landed ${events.filter((e) => e.kind === 'merge.landed').length}, conflicts ${events.filter((e) => e.kind === 'claim.conflict').length}\n`,
    );

    // Resume after the end: every peer is finished, so nothing runs again and the status stays.
    const again = await executeRun({
      store,
      spec,
      provider: createScriptedProvider(() => ({ text: 'must not be called' })),
      env: process.env,
      signal: new AbortController().signal,
      resumed: true,
    });
    if (!again.ok) throw new Error(again.error);
    const after = await store.log.read(spec.runId);
    expect(after.filter((e) => e.kind === 'model.response').length).toBe(
      events.filter((e) => e.kind === 'model.response').length,
    );
    expect(after.filter((e) => e.kind === 'run.finished')).toHaveLength(1);
  });

  it('colony run rejects incomplete peers options with a usage error', async () => {
    const repo = userRepo();
    const run = (...args: string[]) => runCommand(['--repo', repo.dir, '--goal', 'g', ...args]);
    await expect(run('--topology', 'swarm')).rejects.toThrow(
      /--topology must be solo, peers, orchestrated or planned/,
    );
    await expect(run('--topology', 'peers', '--verify', 'true')).rejects.toThrow(/needs --agents N/);
    await expect(run('--topology', 'peers', '--agents', '3')).rejects.toThrow(/needs --verify CMD/);
    await expect(run('--topology', 'peers', '--agents', '0', '--verify', 'true')).rejects.toThrow(
      /--agents must be a positive integer/,
    );
    await expect(run('--agents', '3')).rejects.toThrow(/need --topology peers/);
  });
});
