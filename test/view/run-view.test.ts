/**
 * The view model folded from events appended through the real event log (real Postgres): agent
 * states, claims, usage with cached input apart, the integration queue, context, messages, limits,
 * and the critical path (longest agent for peers, lead turns + longest task for orchestrated).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput, EventKind, EventPayloads } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { buildRunView } from '../../src/view/run-view.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

function recorder(runId: string) {
  return <K extends EventKind>(agent: string | null, kind: K, data: EventPayloads[K]) =>
    store.log.append({ runId, agent, kind, data } as EventInput<K>);
}

const usage = (input: number, cachedInput: number, output: number) => ({
  input,
  cachedInput,
  cacheWrite: 0,
  output,
  reasoning: 0,
});

function turn(step: number, tools: string[], u = usage(100, 50, 10), costUsd: number | null = 0.001) {
  return {
    step,
    turn: {
      text: tools.length ? '' : 'done',
      toolCalls: tools.map((name, i) => ({ id: `c${step}-${i}`, name, arguments: '{}' })),
      stopReason: tools.length ? ('tool_calls' as const) : ('end' as const),
      usage: u,
      costUsd,
      model: 'm',
    },
    latencyMs: 5,
    requestMessages: 1,
  };
}

const started = (profile = 'peer') => ({
  profile,
  model: 'm',
  task: 't',
  system: 's',
  tools: [],
  maxSteps: 10,
});

describe('buildRunView', () => {
  it('folds a peers run: states, claims, tokens split, merges, context, messages, limits', async () => {
    const runId = testRunId('view');
    const add = recorder(runId);
    await add(null, 'run.started', {
      topology: 'peers',
      goal: 'g',
      repo: '/r',
      base: 'HEAD',
      model: 'm',
      config: { agents: 3 },
    });
    await add('peer-1', 'agent.started', started());
    await add('peer-2', 'agent.started', started());
    await add('peer-1', 'model.response', turn(1, ['claim']));
    await add('peer-1', 'tool.started', { step: 1, callId: 'c1-0', name: 'claim', arguments: '{}' });
    await add('peer-1', 'claim.granted', { claimId: 7, scope: 'src/a.js', summary: 'fix a', leaseMs: 1000 });
    await add('peer-1', 'context.posted', {
      id: 1,
      kind: 'FAIL',
      summary: 'tried x',
      scope: ['src/a.js'],
      hasDetail: false,
    });
    await add('peer-1', 'tool.finished', {
      step: 1,
      callId: 'c1-0',
      name: 'claim',
      isError: false,
      content: 'ok',
      summary: 'claimed src/a.js',
      durationMs: 3,
    });
    await add('peer-2', 'model.response', turn(1, ['bash'], usage(200, 0, 20), null));
    await add('peer-2', 'tool.started', { step: 1, callId: 'c1-0', name: 'bash', arguments: '{}' });
    await add('peer-2', 'message.sent', { id: 3, to: 'peer-1', channel: null, text: 'hi' });
    await add('peer-1', 'message.delivered', {
      ids: [3],
      via: 'interrupt',
      messages: [{ id: 3, from: 'peer-2', text: 'hi' }],
    });
    await add('peer-1', 'merge.requested', { mr: 1, branch: 'agent/peer-1', commit: 'abc', note: 'fix a' });
    await add('peer-1', 'merge.rejected', { mr: 1, reason: 'conflict', files: ['CHANGELOG.md'], output: '' });
    await add('peer-1', 'merge.requested', { mr: 2, branch: 'agent/peer-1', commit: 'def', note: 'fix a' });
    await add('peer-1', 'merge.landed', { mr: 2, commit: 'fed', mainBefore: 'x', batch: [2] });
    await add('peer-1', 'limit.hit', { limit: 'max_steps', value: 10, used: 10 });

    const events = await store.log.read(runId);
    const mid = buildRunView(events, Date.parse(events[events.length - 1]?.ts ?? '') + 1000);
    expect(mid.status).toBe('running');
    expect(mid.agents.map((a) => [a.name, a.state])).toEqual([
      ['peer-1', 'thinking'],
      ['peer-2', 'tool'],
      ['peer-3', 'queued'], // configured, not started yet (behind the concurrency limit)
    ]);
    const p1 = mid.agents[0];
    expect(p1?.claim?.scope).toBe('src/a.js');
    expect(p1?.tokens).toEqual({ uncached: 100, cached: 50, cacheWrite: 0, output: 10 });
    expect(mid.totals.tokens).toEqual({ uncached: 300, cached: 50, cacheWrite: 0, output: 30 });
    expect(mid.totals.costUsd).toBe(0.001);
    expect(mid.totals.unpricedCalls).toBe(1);
    expect(mid.byState).toMatchObject({ thinking: 1, tool: 1, queued: 1, idle: 0, done: 0 });
    expect(mid.claims).toEqual([expect.objectContaining({ agent: 'peer-1', scope: 'src/a.js' })]);
    expect(p1?.lastAction).toBe('merge request #2');
    expect(mid.agents[1]?.lastAction).toBe('bash');
    // Running: peer-2's bash and peer-1's next model call are open bars up to "now".
    const p2lane = mid.lanes.find((l) => l.agent === 'peer-2');
    expect(p2lane?.bars.some((b) => b.kind === 'tool' && b.open && b.label === 'bash')).toBe(true);
    expect(mid.lanes.find((l) => l.agent === 'peer-1')?.bars.some((b) => b.kind === 'model' && b.open)).toBe(
      true,
    );
    expect(mid.merges.map((m) => [m.mr, m.status, m.reason])).toEqual([
      [1, 'rejected', 'conflict'],
      [2, 'landed', null],
    ]);
    expect(mid.totals.merges).toEqual({ requested: 2, landed: 1, rejected: 1, pending: 0 });
    expect(mid.context.map((c) => c.kind)).toEqual(['FAIL']);
    expect(mid.messages[0]).toMatchObject({ from: 'peer-2', to: 'peer-1', via: 'interrupt' });
    expect(mid.messages[0]?.deliveredMs).not.toBeNull();
    expect(mid.limits).toMatchObject([{ agent: 'peer-1', limit: 'max_steps', used: 10 }]);

    await add('peer-2', 'tool.finished', {
      step: 1,
      callId: 'c1-0',
      name: 'bash',
      isError: true,
      content: 'boom',
      summary: 'bash failed',
      durationMs: 9,
    });
    await add('peer-2', 'model.response', turn(2, ['ls']));
    await add('peer-2', 'tool.started', { step: 2, callId: 'c2-0', name: 'ls', arguments: '{}' });
    await add('peer-2', 'tool.finished', {
      step: 2,
      callId: 'c2-0',
      name: 'ls',
      isError: false,
      content: '',
      summary: 'ls',
      durationMs: 1,
    });
    await add('peer-2', 'model.response', turn(3, []));
    await add('peer-1', 'agent.finished', {
      status: 'failed',
      stopReason: 'max_steps',
      reason: 'step cap',
      steps: 1,
      finalText: '',
    });
    await add('peer-2', 'agent.finished', {
      status: 'done',
      stopReason: 'answered',
      reason: 'final answer',
      steps: 3,
      finalText: 'done',
    });
    await add(null, 'verify.finished', {
      command: 'npm test',
      exitCode: 0,
      passed: true,
      output: '',
      durationMs: 5,
    });
    await add(null, 'run.finished', { status: 'succeeded', reason: 'ok', resultBranch: null });

    const done = buildRunView(await store.log.read(runId));
    expect(done.status).toBe('succeeded');
    expect(done.agents.map((a) => a.state)).toEqual(['failed', 'done', 'queued']);
    expect(done.agents[0]?.claim).toBeNull();
    expect(done.lanes.flatMap((l) => l.bars).some((b) => b.open)).toBe(false);
    expect(done.lanes.find((l) => l.agent === 'peer-2')?.bars.filter((b) => b.error)).toHaveLength(1);
    expect(done.verify).toEqual({ command: 'npm test', passed: true, exitCode: 0, output: '' });
    // No claim.released was logged: the claims table still holds it (its lease runs out).
    expect(done.claims.map((c) => c.claimId)).toEqual([7]);
    // Peers: the agent with the most steps stands for the critical path.
    expect(done.criticalPath).toMatchObject({ method: 'longest-agent', steps: 3 });
    expect(done.criticalPath.segments.map((s) => s.agent)).toEqual(['peer-2']);
    expect(done.totals.steps).toBe(4);
  });

  it("orchestrated: CriticalSteps = Σ over the lead's turns of 1 + the longest task (issue 5's example = 15)", async () => {
    const runId = testRunId('view-orch');
    const add = recorder(runId);
    await add(null, 'run.started', {
      topology: 'orchestrated',
      goal: 'g',
      repo: '/r',
      base: 'HEAD',
      model: 'm',
      config: {},
    });
    await add('lead', 'agent.started', started('lead'));
    const plan: number[][] = [[4, 7, 2], [5, 5], []];
    let task = 0;
    for (const [i, sizes] of plan.entries()) {
      const leadStep = i + 1;
      await add(
        'lead',
        'model.response',
        turn(
          leadStep,
          sizes.map(() => 'assign_task'),
        ),
      );
      const ids: string[] = [];
      for (const [j, steps] of sizes.entries()) {
        const id = `task-${++task}`;
        const agent = `sub-${j + 1}`;
        ids.push(id);
        if (i === 0)
          await add('lead', 'subagent.created', {
            name: agent,
            profile: 'coder',
            model: 'm',
            maxSteps: 50,
            systemPrompt: '',
          });
        await add('lead', 'task.assigned', {
          task: id,
          agent,
          prompt: 'p',
          leadStep,
          callId: `c${leadStep}-${j}`,
        });
        await add(agent, 'task.started', { task: id, prompt: 'p', index: 0, stepsBefore: 0 });
        for (let s = 1; s <= steps; s += 1) await add(agent, 'model.response', turn(s, []));
        await add(agent, 'task.finished', { task: id, agent, steps, status: 'done', result: 'r' });
      }
    }
    const view = buildRunView(await store.log.read(runId));
    expect(view.criticalPath.method).toBe('lead-turns');
    expect(view.criticalPath.steps).toBe(15);
    expect(view.criticalPath.segments.map((s) => `${s.agent}:${s.steps}`)).toEqual([
      'lead:1',
      'sub-2:7',
      'lead:1',
      'sub-1:5',
      'lead:1',
    ]);
    expect(view.totals.steps).toBe(26);
    expect(view.agents.map((a) => a.name)).toEqual(['lead', 'sub-1', 'sub-2', 'sub-3']);
  });
});
