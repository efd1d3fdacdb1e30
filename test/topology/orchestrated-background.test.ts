/**
 * Background workflow runs of the lead (issue 32): `run_workflow {program, background: true}` returns
 * a handle at once, `workflow_status {id, wait?}` reports on the run, its end reaches the lead as a
 * direct message (in the lead's next model request), the lead's final answer waits for open runs,
 * and the run after the last open one (`maxOpenWorkflows`) is refused. Real runs in-process through
 * executeRun (Postgres, git, the agent loop), every model answered by the fake provider. When a step
 * may end is fixed by the fake provider (explore requests are held until the lead's script lets them
 * go), not by timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;

/** The lead's script of the test that runs now, and the gate explore requests wait at. */
let lead: (request: ModelRequest, n: number) => ScriptedTurn = () => ({ text: 'nothing to do' });
/** Every request the lead made in the test that runs now. */
let leadRequests: ModelRequest[] = [];
let gate = deferred();

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const program = (item: string) =>
  [`const r = await w.agent('explore').run('Describe ${item}');`, "return r.ok ? r.value : 'failed';"].join(
    '\n',
  );

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({
    policy: async (request) => {
      if (request.system.includes('You are the lead')) {
        leadRequests.push(request);
        return lead(request, leadRequests.length - 1);
      }
      const task = request.messages[0]?.content ?? '';
      await gate.promise;
      return { text: `${task.replace('Describe ', '')} is a Greek letter` };
    },
  });
});
afterAll(async () => {
  gate.resolve();
  await fake?.close();
  await store?.close();
});

const MODEL = {
  id: 'openai-chat:fake',
  protocol: 'openai-chat' as const,
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
};

function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}

/** The text of the last tool result in a request. */
function lastTool(request: ModelRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'tool');
  return typeof last?.content === 'string' ? last.content : '';
}

function allText(request: ModelRequest): string {
  return request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}

async function runLead(
  name: string,
  script: typeof lead,
  extra: Partial<RunSpec> = {},
): Promise<{ spec: RunSpec; events: StoredEvent[] }> {
  lead = script;
  leadRequests = [];
  gate = deferred();
  const repo = createUserRepo({ 'README.md': '# repo\n' }, `colony-orch-bg-${name}-`);
  const spec: RunSpec = {
    runId: testRunId(`orch-bg-${name}`),
    topology: 'orchestrated',
    leadDelegation: 'programs',
    repo: repo.dir,
    goal: 'Describe Greek letters',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: MODEL.id,
    baseUrl: fake.url,
    customModels: [{ ...MODEL, baseUrl: fake.url }],
    maxSteps: 10,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    ...extra,
  };
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider: createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 }),
    env: { ...process.env, OPENAI_API_KEY: 'k' },
    signal: new AbortController().signal,
    resumed: false,
  });
  if (!result.ok) throw new Error(result.error);
  expect(result.summary.status).toBe('succeeded');
  return { spec, events: await store.log.read(spec.runId) };
}

describe('background workflow runs of the lead', () => {
  it('returns a handle at once; workflow_status answers without and with wait; the end arrives as a direct message', async () => {
    let id = '';
    const { events } = await runLead('status', (request, n) => {
      if (n === 0)
        return {
          toolCalls: [{ name: 'run_workflow', arguments: { program: program('alpha'), background: true } }],
        };
      if (n === 1) {
        id = (JSON.parse(lastTool(request)) as { id: string }).id;
        return { toolCalls: [{ name: 'workflow_status', arguments: { id } }] };
      }
      if (n === 2) {
        // The step is still held: the status said "running". Now let it end and wait for it.
        gate.resolve();
        return { toolCalls: [{ name: 'workflow_status', arguments: { id, wait: true } }] };
      }
      return { text: 'all described' };
    });
    expect(id).toMatch(/^wf1-/);
    const results = ofKind(events, 'tool.finished').filter((e) => e.agent === 'lead');
    expect(results.map((e) => e.data.name)).toEqual(['run_workflow', 'workflow_status', 'workflow_status']);
    const [handle, running, done] = results.map((e) => e.data);
    expect(handle?.isError).toBe(false);
    expect(JSON.parse(handle?.content ?? '')).toMatchObject({ id, status: 'running' });
    expect(running?.content).toMatch(new RegExp(`^\\[workflow ${id}: running\\] `));
    expect(running?.content).not.toContain('result:');
    expect(done?.isError).toBe(false);
    expect(done?.content).toMatch(
      new RegExp(`^\\[workflow ${id}: done\\] 1 step\\(s\\): 1 done, 0 failed, 0 running\\n`),
    );
    expect(done?.content).toContain('- explore: done');
    expect(done?.content).toContain('result:\n"alpha is a Greek letter"');

    // The end message went to the lead from colony and was in its next model request.
    const sent = ofKind(events, 'message.sent').filter((e) => e.agent === 'colony');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.data.to).toBe('lead');
    expect(sent[0]?.data.text).toMatch(
      new RegExp(`^\\[workflow ${id}: done\\] your background workflow run ended`),
    );
    expect(leadRequests).toHaveLength(4);
    expect(allText(leadRequests[2] as ModelRequest)).not.toContain('[Direct message from colony');
    const fourth = allText(leadRequests[3] as ModelRequest);
    expect(fourth).toContain('[Direct message from colony');
    expect(fourth).toContain(`> [workflow ${id}: done] your background workflow run ended`);
    expect(fourth).toContain('> "alpha is a Greek letter"');
    expect(ofKind(events, 'workflow.finished').map((e) => e.data.program)).toEqual([id]);
  }, 120_000);

  it("the lead's final answer waits for its open run; the end message reopens it", async () => {
    const { events } = await runLead('finish', (_request, n) => {
      if (n === 0)
        return {
          toolCalls: [{ name: 'run_workflow', arguments: { program: program('beta'), background: true } }],
        };
      if (n === 1) {
        // Answers while the run is open (its step is held until now).
        gate.resolve();
        return { text: 'started it; waiting' };
      }
      return { text: 'beta described' };
    });
    expect(leadRequests).toHaveLength(3);
    expect(allText(leadRequests[1] as ModelRequest)).not.toContain('[Direct message from colony');
    const third = allText(leadRequests[2] as ModelRequest);
    expect(third).toContain('[Direct message from colony');
    expect(third).toContain('> "beta is a Greek letter"');
    // The run's program ended before the lead did; the lead's final answer is its last one.
    const seqOf = (e: StoredEvent | undefined) => e?.seq ?? Number.NaN;
    const finished = ofKind(events, 'workflow.finished');
    const leadEnd = ofKind(events, 'agent.finished').filter((e) => e.agent === 'lead');
    expect(leadEnd).toHaveLength(1);
    expect(leadEnd[0]?.data.finalText).toBe('beta described');
    expect(seqOf(finished[0])).toBeLessThan(seqOf(leadEnd[0]));
    const delivered = ofKind(events, 'message.delivered').filter((e) => e.agent === 'lead');
    expect(delivered.map((e) => e.data.via)).toEqual(['interrupt']);
  }, 120_000);

  it('refuses the run after the last open one (maxOpenWorkflows 2) with workflow_limit_error', async () => {
    const { events } = await runLead(
      'limit',
      (_request, n) => {
        if (n === 0)
          return {
            toolCalls: ['alpha', 'beta', 'gamma'].map((item) => ({
              name: 'run_workflow',
              arguments: { program: program(item), background: true },
            })),
          };
        if (n === 1) {
          gate.resolve();
          return { text: 'two started' };
        }
        return { text: 'done' };
      },
      { maxOpenWorkflows: 2 },
    );
    const results = ofKind(events, 'tool.finished').filter((e) => e.agent === 'lead');
    expect(results.map((e) => e.data.isError)).toEqual([false, false, true]);
    expect(results[2]?.data.content).toMatch(
      /^workflow_limit_error: 2 workflow run\(s\) of yours are still open \(wf1-[^,]+, wf1-[^;]+; at most 2\)\. Nothing ran\./,
    );
    expect(ofKind(events, 'limit.hit').map((e) => e.data)).toEqual([
      { limit: 'max_open_workflows', value: 2, used: 2 },
    ]);
    // Only the two accepted programs ran; both ends reached the lead before its last answer.
    expect(ofKind(events, 'step.finished')).toHaveLength(2);
    expect(ofKind(events, 'workflow.finished')).toHaveLength(2);
    const last = allText(leadRequests.at(-1) as ModelRequest);
    expect(last).toContain('> "alpha is a Greek letter"');
    expect(last).toContain('> "beta is a Greek letter"');
    expect(last).not.toContain('gamma is a Greek letter');
  }, 120_000);

  it('refuses the 11th open run by default', async () => {
    const items = Array.from({ length: 11 }, (_, i) => `item${i}`);
    const { events } = await runLead('default', (_request, n) => {
      if (n === 0)
        return {
          toolCalls: items.map((item) => ({
            name: 'run_workflow',
            arguments: { program: program(item), background: true },
          })),
        };
      if (n === 1) {
        gate.resolve();
        return { text: 'ten started' };
      }
      return { text: 'done' };
    });
    const results = ofKind(events, 'tool.finished').filter((e) => e.agent === 'lead');
    expect(results.map((e) => e.data.isError)).toEqual([...Array(10).fill(false), true]);
    expect(results[10]?.data.content).toMatch(/^workflow_limit_error: 10 workflow run\(s\) .*at most 10\)/);
    expect(ofKind(events, 'workflow.finished')).toHaveLength(10);
  }, 180_000);
});
