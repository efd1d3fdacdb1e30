/**
 * A lead's program killed mid-run (issue 32): `colony run --topology planned` is SIGKILLed while
 * the program the lead wrote (run_workflow: an explore agent mapped over three items, one at a time)
 * has finished two steps and the third is in flight; `colony resume` re-runs the lead's unfinished
 * run_workflow call under the same program id, gets the two logged steps back without asking the
 * model, runs the third and hands all three answers to the lead. The kill point is fixed by the fake
 * provider (the third step's request is held) and the committed log, not by timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { colony, ensureBuilt } from '../durability/harness.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { deferred, killPlannedRunMidProgram } from './program-kill.js';

let store: Store;
let fake: FakeProvider;
/** Explore tasks asked of the model, in arrival order (both processes). */
const asked: string[] = [];
const hold = { holding: true, arrived: deferred(), release: deferred() };

const PROGRAM = [
  "const items = ['alpha', 'beta', 'gamma'];",
  "const results = await w.map(items, (item) => w.agent('explore').run(`Describe ${item}`), { concurrency: 1 });",
  'return results.map((r) => (r.ok ? r.value : `failed: ${r.error.message}`));',
].join('\n');

function leadTurn(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool')
    return { toolCalls: [{ name: 'run_workflow', arguments: { program: PROGRAM } }] };
  return { text: `done: ${last.content}` };
}

beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
  fake = await startFakeProvider({
    latencyMs: 50,
    policy: async (request) => {
      if (request.system.includes('You are the lead')) return leadTurn(request);
      const task = request.messages[0]?.content ?? '';
      asked.push(task);
      if (hold.holding && task === 'Describe gamma') {
        hold.arrived.resolve();
        await hold.release.promise;
      }
      return { text: `${task.replace('Describe ', '')} is a Greek letter` };
    },
  });
});
afterAll(async () => {
  hold.release.resolve();
  await fake?.close();
  await store?.close();
});

describe('a program the lead wrote, killed and resumed', () => {
  it('repeats no completed step', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-orch-prog-resume-');
    const runId = await killPlannedRunMidProgram({
      repo: repo.dir,
      goal: 'Describe three Greek letters',
      baseUrl: fake.url,
      hold,
    });
    const before = await store.log.read(runId, { kinds: ['step.finished', 'workflow.finished'] });
    expect(before.filter((e) => e.kind === 'step.finished')).toHaveLength(2);
    expect(before.filter((e) => e.kind === 'workflow.finished')).toHaveLength(0);

    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);
    // planned: an orchestrated run whose lead delegates only by run_workflow.
    const lead = of('agent.started').filter((e) => e.agent === 'lead');
    expect(lead[0]?.data.tools).toContain('run_workflow');
    expect(lead[0]?.data.tools).not.toContain('assign_task');
    // No completed step ran again: alpha and beta were asked once; only gamma (in flight) twice.
    expect(asked.filter((t) => t === 'Describe alpha')).toHaveLength(1);
    expect(asked.filter((t) => t === 'Describe beta')).toHaveLength(1);
    expect(asked.filter((t) => t === 'Describe gamma')).toHaveLength(2);
    const steps = of('step.finished').map((e) => e.data.step);
    expect(steps).toHaveLength(3);
    expect(new Set(steps).size).toBe(3);
    // The re-run call used the same program id; its result reached the lead.
    expect(of('workflow.finished').map((e) => e.data.program)).toEqual([steps[0]?.split('/')[0]]);
    const result = of('tool.finished').filter((e) => e.agent === 'lead' && e.data.name === 'run_workflow');
    expect(result).toHaveLength(1);
    expect(JSON.parse(result[0]?.data.content.split('\n').slice(1).join('\n') ?? '')).toEqual([
      'alpha is a Greek letter',
      'beta is a Greek letter',
      'gamma is a Greek letter',
    ]);
  }, 180_000);
});
