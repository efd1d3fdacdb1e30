/**
 * A background workflow run killed and resumed (issue 32): `colony run --topology planned`; the lead
 * starts a program in the background (an explore agent mapped over three items, one at a time) and
 * answers at once, so its final answer waits for the open run. The process is SIGKILLed while two
 * steps are finished and the third is in flight; `colony resume` starts the background run again
 * under the same id (the lead's log holds its handle): the two logged steps come back without a model
 * call, the third runs, the end message reaches the lead, whose `workflow_status` still answers. The
 * kill point is fixed by the fake provider (the third step's request is held) and the committed log.
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
/** The lead's requests (both processes). */
const leadRequests: ModelRequest[] = [];
const hold = { holding: true, arrived: deferred(), release: deferred() };

const PROGRAM = [
  "const items = ['alpha', 'beta', 'gamma'];",
  "const results = await w.map(items, (item) => w.agent('explore').run(`Describe ${item}`), { concurrency: 1 });",
  'return results.map((r) => (r.ok ? r.value : `failed: ${r.error.message}`));',
].join('\n');

function text(content: unknown): string {
  return typeof content === 'string' ? content : '';
}

/** The handle's id, from the run_workflow result in the conversation. */
function handleId(request: ModelRequest): string {
  const handle = request.messages.find((m) => m.role === 'tool' && text(m.content).startsWith('{"id"'));
  return (JSON.parse(text(handle?.content)) as { id: string }).id;
}

function leadTurn(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  const content = text(last?.content);
  if (!request.messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ name: 'run_workflow', arguments: { program: PROGRAM, background: true } }] };
  if (content.includes('[Direct message from colony'))
    return { toolCalls: [{ name: 'workflow_status', arguments: { id: handleId(request) } }] };
  if (last?.role === 'tool' && content.startsWith('[workflow ')) return { text: `done: ${content}` };
  // The handle came back: answer now; the answer waits for the open run.
  return { text: 'started the review in the background' };
}

beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
  fake = await startFakeProvider({
    latencyMs: 50,
    policy: async (request) => {
      if (request.system.includes('You are the lead')) {
        leadRequests.push(request);
        return leadTurn(request);
      }
      const task = text(request.messages[0]?.content);
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

describe('a background workflow run, killed and resumed', () => {
  it('continues the run, repeats no completed step, and the lead gets its end', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-orch-bg-resume-');
    const runId = await killPlannedRunMidProgram({
      repo: repo.dir,
      goal: 'Describe three Greek letters',
      baseUrl: fake.url,
      hold,
    });
    const before = await store.log.read(runId);
    expect(before.filter((e) => e.kind === 'step.finished')).toHaveLength(2);
    expect(before.filter((e) => e.kind === 'workflow.finished')).toHaveLength(0);
    // The handle was logged: the background run is the lead's to continue, not a call to re-run.
    const handles = before.filter(
      (e) => e.kind === 'tool.finished' && e.agent === 'lead' && e.data.name === 'run_workflow',
    );
    expect(handles).toHaveLength(1);

    const resumed = await colony(['resume', runId, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);
    // No completed step ran again: alpha and beta were asked once; only gamma (in flight) twice.
    expect(asked.filter((t) => t === 'Describe alpha')).toHaveLength(1);
    expect(asked.filter((t) => t === 'Describe beta')).toHaveLength(1);
    expect(asked.filter((t) => t === 'Describe gamma')).toHaveLength(2);
    const steps = of('step.finished').map((e) => e.data.step);
    expect(new Set(steps).size).toBe(3);
    const id = steps[0]?.split('/')[0] ?? '';
    expect(id).toMatch(/^wf1-/);
    expect(of('workflow.finished').map((e) => e.data.program)).toEqual([id]);
    // The lead's run_workflow call was not run again; its end message came once; status answered.
    const lead = of('tool.finished').filter((e) => e.agent === 'lead');
    expect(lead.map((e) => e.data.name)).toEqual(['run_workflow', 'workflow_status']);
    expect(lead[1]?.data.content).toMatch(new RegExp(`^\\[workflow ${id}: done\\] 3 step\\(s\\): 3 done`));
    expect(lead[1]?.data.content).toContain('"gamma is a Greek letter"');
    const notices = of('message.sent').filter((e) => e.agent === 'colony');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.data.text).toContain('"alpha is a Greek letter"');
    const leadEnd = of('agent.finished').filter((e) => e.agent === 'lead');
    expect(leadEnd).toHaveLength(1);
    expect(leadEnd[0]?.data.finalText).toMatch(/^done: \[workflow wf1-/);
    // The resumed lead's first request held the end message (its answer before the kill waited).
    const withNotice = leadRequests.filter((r) =>
      r.messages.some((m) => text(m.content).includes('[Direct message from colony')),
    );
    expect(withNotice.length).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
