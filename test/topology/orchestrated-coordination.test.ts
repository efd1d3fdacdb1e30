/**
 * Coordination is a capability, not a topology: an orchestrated run (executeRun, real Postgres and
 * git, the lead and subagents answered by the fake provider over real HTTP) whose subagent `a` claims
 * a file and posts a FAIL entry; its sibling `b`, started after `a`'s task ended, reads the FAIL with
 * context_read and is granted the same file (a's claim was released when its task ended). The lead
 * reads the context too.
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

const FAIL_SUMMARY = 'parsing src/a.txt as JSON crashes: it is plain text';

const assistantTurns = (request: ModelRequest) =>
  request.messages.filter((m) => m.role === 'assistant').length;

function turn(request: ModelRequest): ScriptedTurn {
  const subagent = /You are subagent "([^"]+)"/.exec(request.system)?.[1];
  const n = assistantTurns(request);
  if (subagent === 'a')
    return n === 0
      ? {
          toolCalls: [
            { name: 'claim', arguments: { scope: 'src/a.txt', summary: 'trying to parse it' } },
            { name: 'context_post', arguments: { kind: 'FAIL', summary: FAIL_SUMMARY, scope: 'src/a.txt' } },
          ],
        }
      : { text: 'a: parsing failed, posted a FAIL' };
  if (subagent === 'b')
    return n === 0
      ? {
          toolCalls: [
            { name: 'context_read', arguments: {} },
            { name: 'claim', arguments: { scope: 'src/a.txt', summary: 'reading it as text' } },
          ],
        }
      : { text: 'b: read it as text' };
  // The lead: a, then (after a's result) b, then a look at the context, then the answer.
  if (n === 0)
    return {
      toolCalls: [
        {
          name: 'create_subagent',
          arguments: { name: 'a', system_prompt: 'Try things.', profile: 'explore' },
        },
        {
          name: 'create_subagent',
          arguments: { name: 'b', system_prompt: 'Try other things.', profile: 'explore' },
        },
        { name: 'assign_task', arguments: { agent: 'a', prompt: 'parse src/a.txt' } },
      ],
    };
  if (n === 1)
    return { toolCalls: [{ name: 'assign_task', arguments: { agent: 'b', prompt: 'read src/a.txt' } }] };
  if (n === 2) return { toolCalls: [{ name: 'context_read', arguments: {} }] };
  return { text: 'lead done' };
}

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: (request) => turn(request) });
});
afterAll(async () => {
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

function toolResults(events: StoredEvent[], agent: string, name: string) {
  return events.filter(
    (e): e is StoredEvent<'tool.finished'> =>
      e.kind === 'tool.finished' && e.agent === agent && e.data.name === name,
  );
}

describe('orchestrated subagents share a context and claims', () => {
  it("a subagent's FAIL reaches its sibling; its claim is released when its task ends", async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n', 'src/a.txt': 'a\n' }, 'colony-orch-coord-');
    const spec: RunSpec = {
      runId: testRunId('orch-coord'),
      topology: 'orchestrated',
      repo: repo.dir,
      goal: 'Find out how to read src/a.txt.',
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
    const events = await store.log.read(spec.runId);

    // Subagents get shared context and claims by default, and their prompt says so.
    const started = events.filter((e): e is StoredEvent<'agent.started'> => e.kind === 'agent.started');
    const b = started.find((e) => e.agent === 'b');
    expect(b?.data.tools).toEqual(
      expect.arrayContaining(['context_post', 'context_read', 'context_unfold', 'claim', 'release']),
    );
    expect(b?.data.tools).not.toContain('message_send');
    expect(b?.data.system).toContain('context_read shows what the others posted');
    expect(started.find((e) => e.agent === 'lead')?.data.tools).toEqual(
      expect.arrayContaining(['context_read', 'context_unfold']),
    );

    // a's FAIL is in b's context_read result, and so in b's next request.
    const read = toolResults(events, 'b', 'context_read');
    expect(read).toHaveLength(1);
    expect(read[0]?.data.isError).toBe(false);
    expect(read[0]?.data.content).toContain(`FAIL a [src/a.txt]: ${FAIL_SUMMARY}`);
    const bSecond = fake
      .requests()
      .map((r) => r.request as ModelRequest)
      .find((r) => r.system.includes('You are subagent "b"') && assistantTurns(r) === 1);
    expect(bSecond?.messages.some((m) => m.role === 'tool' && m.content.includes(FAIL_SUMMARY))).toBe(true);

    // a's claim lasted its task: released when it ended, so b is granted the same file.
    const released = events.filter(
      (e): e is StoredEvent<'claim.released'> => e.kind === 'claim.released' && e.agent === 'a',
    );
    expect(released.map((e) => [e.data.scope, e.data.outcome])).toEqual([['src/a.txt', 'task-1 ended']]);
    expect(toolResults(events, 'b', 'claim')[0]?.data.content).toMatch(/^Granted: you hold src\/a\.txt/);
    const granted = events.filter((e) => e.kind === 'claim.granted').map((e) => e.agent);
    expect(granted).toEqual(['a', 'b']);
    // Nothing is left held once the run is over.
    expect(events.filter((e) => e.kind === 'claim.released').map((e) => e.agent)).toEqual(['a', 'b']);

    // The lead reads the same context: a's FAIL (and b's CLAIM entries).
    expect(toolResults(events, 'lead', 'context_read')[0]?.data.content).toContain(FAIL_SUMMARY);
  }, 120_000);
});
