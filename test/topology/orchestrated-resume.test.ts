/**
 * Orchestrated crash and resume: `colony run --topology orchestrated` is SIGKILLed while subagents
 * are mid-task (some tasks queued behind the concurrency limit), then `colony resume` finishes it.
 * Subagents start without waiting for task.assigned / agent.started to commit and hand their slot over
 * before their last events commit; the log must still replay into exactly one task per assignment,
 * one agent.started per subagent, one task.started per task, every task done, and no completed model
 * call served twice (only the calls in flight at the kill may repeat).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import type { Store } from '../../src/store/index.js';
import { colony, ensureBuilt, killWhen, repeatedServes, startColony } from '../durability/harness.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;

beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
  fake = await startFakeProvider({ policy: orchestratedPolicy(), latencyMs: 150, record: false });
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

describe('orchestrated resume', () => {
  it('a run killed mid-fan-out resumes to one finished task per assignment, repeating no completed call', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n', 'src/a.txt': 'a\n' }, 'colony-orch-resume-');
    const c = startColony([
      'run',
      '--topology',
      'orchestrated',
      '--repo',
      repo.dir,
      '--goal',
      'Inspect the repository. plan: a:3,b:3,c:3,d:3 / a:2,b:2',
      '--model',
      'openai-chat:fake',
      '--base-url',
      fake.url,
      '--concurrency',
      '2',
      '--json',
    ]);
    // A subagent's second response is logged: the first two tasks are mid-way, two more are queued.
    const killed = await killWhen(c, (e) => e.kind === 'model.response' && e.step === 2, 50);
    expect(killed, `the run ended before the kill: ${c.stderr()}\n${c.lines.slice(-5).join('\n')}`).toBe(
      true,
    );
    const runId = await c.runId;
    if (!runId) throw new Error('the run printed no run id');

    // The kill interrupted the fan-out: the first wave's tasks were assigned, not all had finished.
    const before = await store.log.read(runId, { kinds: ['task.assigned', 'task.finished'] });
    expect(before.filter((e) => e.kind === 'task.assigned').length).toBe(4);
    expect(before.filter((e) => e.kind === 'task.finished').length).toBeLessThan(4);

    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);

    const assigned = of('task.assigned');
    expect(assigned.map((e) => `${e.data.leadStep}/${e.data.callId}`).length).toBe(6);
    expect(new Set(assigned.map((e) => `${e.data.leadStep}/${e.data.callId}`)).size).toBe(6);
    const finished = of('task.finished');
    expect(finished.map((e) => e.data.task).sort()).toEqual(assigned.map((e) => e.data.task).sort());
    expect(finished.every((e) => e.data.status === 'done')).toBe(true);
    expect(
      of('task.started')
        .map((e) => e.data.task)
        .sort(),
    ).toEqual(assigned.map((e) => e.data.task).sort());
    const starts = of('agent.started').map((e) => e.agent);
    expect(starts.sort()).toEqual(['a', 'b', 'c', 'd', 'lead']);
    // Steps per task as planned (the kill did not add or lose a step): 3 each, then 2 each.
    expect(finished.map((e) => `${e.data.agent}:${e.data.steps}`).sort()).toEqual(
      ['a:2', 'a:3', 'b:2', 'b:3', 'c:3', 'd:3'].sort(),
    );
    // At most the requests in flight at the kill (two subagents) are served again.
    expect(repeatedServes(fake.stats())).toBeLessThanOrEqual(2);
  });
});
