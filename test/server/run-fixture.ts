/** Records a small but realistic run (two agents, claims, context, a rejected and a landed merge). */
import type { EventInput } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { testRunId } from '../helpers/db.js';

export function turn(text: string, toolCalls: Array<{ id: string; name: string; arguments: string }> = []) {
  return {
    text,
    toolCalls,
    stopReason: toolCalls.length > 0 ? ('tool_calls' as const) : ('end' as const),
    usage: { input: 1000, cachedInput: 600, cacheWrite: 0, output: 50, reasoning: undefined },
    costUsd: 0.002,
    model: 'fake',
  };
}

export function agentSteps(runId: string, agent: string, steps: number, from = 0): EventInput[] {
  const out: EventInput[] = [];
  for (let i = from; i < from + steps; i += 1) {
    const callId = `${agent}-c${i}`;
    out.push({
      runId,
      agent,
      kind: 'model.response',
      data: {
        step: i,
        turn: turn('', [{ id: callId, name: 'bash', arguments: '{"command":"npm test"}' }]),
        latencyMs: 5,
        requestMessages: i + 2,
      },
    } as EventInput<'model.response'>);
    out.push({
      runId,
      agent,
      kind: 'tool.started',
      data: { step: i, callId, name: 'bash', arguments: '{"command":"npm test"}' },
    });
    out.push({
      runId,
      agent,
      kind: 'tool.finished',
      data: { step: i, callId, name: 'bash', isError: false, content: 'ok', summary: 'ok', durationMs: 3 },
    });
  }
  return out;
}

/** `orphaned`: recorded as a run whose process died (no one holds its lock), else as a live run. */
export async function recordRun(
  store: Store,
  label = 'srv',
  options: { orphaned?: boolean } = {},
): Promise<string> {
  const runId = testRunId(label);
  const created = await store.runs.createRun({
    runId,
    topology: 'peers',
    goal: 'fix the tests',
    repo: '/tmp/repo',
  });
  if (!created.ok) throw new Error(created.error);
  // Held as a live owner holds it (until the store closes): a running run nobody holds is interrupted.
  if (!options.orphaned) {
    const lock = await store.tryLockRun(runId);
    if (!lock.ok) throw new Error(lock.error ?? `cannot lock run ${runId}`);
  }
  const base = { runId, agent: null };
  const events: EventInput[] = [
    {
      ...base,
      kind: 'run.started',
      data: {
        topology: 'peers',
        goal: 'fix the tests',
        repo: '/tmp/repo',
        base: 'main',
        model: 'fake',
        config: { maxSteps: 20, budgetUsd: 1 },
      },
    },
  ];
  for (const agent of ['peer-1', 'peer-2'])
    events.push({
      runId,
      agent,
      kind: 'agent.started',
      data: { profile: 'coder', model: 'fake', task: 't', system: 's', tools: ['bash'], maxSteps: 20 },
    });
  events.push(...agentSteps(runId, 'peer-1', 2), ...agentSteps(runId, 'peer-2', 1));
  events.push(
    {
      runId,
      agent: 'peer-1',
      kind: 'claim.granted',
      data: { claimId: 1, scope: 'src/alpha', summary: 'fix alpha', leaseMs: 60000 },
    },
    {
      runId,
      agent: 'peer-2',
      kind: 'context.posted',
      data: { id: 1, kind: 'FAIL', summary: 'beta test fails: off by one', scope: null, hasDetail: false },
    },
    {
      runId,
      agent: 'peer-1',
      kind: 'context.posted',
      data: { id: 2, kind: 'FACT', summary: 'alpha uses utc', scope: ['src/alpha'], hasDetail: false },
    },
    {
      runId,
      agent: 'peer-1',
      kind: 'merge.requested',
      data: { mr: 1, branch: 'agent/peer-1', commit: 'a'.repeat(40), note: 'alpha' },
    },
    {
      runId,
      agent: null,
      kind: 'merge.landed',
      data: { mr: 1, commit: 'b'.repeat(40), mainBefore: 'c'.repeat(40), batch: [1] },
    },
    {
      runId,
      agent: 'peer-2',
      kind: 'merge.requested',
      data: { mr: 2, branch: 'agent/peer-2', commit: 'd'.repeat(40), note: 'beta' },
    },
    {
      runId,
      agent: null,
      kind: 'merge.rejected',
      data: { mr: 2, reason: 'conflict', files: ['CHANGES.md'], output: 'conflict in CHANGES.md' },
    },
    {
      runId,
      agent: 'peer-2',
      kind: 'merge.requested',
      data: { mr: 3, branch: 'agent/peer-2', commit: 'e'.repeat(40), note: 'beta again' },
    },
    { runId, agent: null, kind: 'merge.awaiting_approval', data: { mr: 3, commit: 'e'.repeat(40) } },
    {
      runId,
      agent: 'peer-1',
      kind: 'agent.finished',
      data: { status: 'done', stopReason: 'answered', reason: 'done', steps: 2, finalText: 'ok' },
    },
  );
  for (const e of events) await store.log.append(e);
  await store.log.flush();
  return runId;
}
