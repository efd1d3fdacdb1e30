/**
 * Workflow agents get the team's shared context and claims by default (a real run in-process through
 * executeRun: Postgres, git, the agent loop; the model answered by the fake provider over real HTTP).
 * A writer step claims the file it writes and posts a FAIL entry; its claim is a lease for the
 * attempt, released once its work has landed; the next step reads the FAIL and the landing's PATCH
 * entry with context_read and is granted the same file; being read-only, it reads hub main as it was
 * when it started, so it sees the file the writer landed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { readProgramSource } from '../../src/workflow/load.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
let fake: FakeProvider;

const FAIL_SUMMARY = 'answer.txt as YAML breaks the reader: plain text only';

const taskOf = (request: ModelRequest) => request.messages[0]?.content ?? '';
const assistantTurns = (request: ModelRequest) =>
  request.messages.filter((m) => m.role === 'assistant').length;

function turn(request: ModelRequest): ScriptedTurn {
  const n = assistantTurns(request);
  if (taskOf(request).includes('[write]'))
    return n === 0
      ? {
          toolCalls: [
            { name: 'claim', arguments: { scope: 'answer.txt', summary: 'writing the answer' } },
            { name: 'write', arguments: { path: 'answer.txt', content: '42\n' } },
            { name: 'context_post', arguments: { kind: 'FAIL', summary: FAIL_SUMMARY, scope: 'answer.txt' } },
          ],
        }
      : { text: 'wrote the answer' };
  return n === 0
    ? {
        toolCalls: [
          { name: 'context_read', arguments: {} },
          { name: 'claim', arguments: { scope: 'answer.txt', summary: 'reviewing the answer' } },
          { name: 'read', arguments: { path: 'answer.txt' } },
        ],
      }
    : { text: 'the answer is plain text' };
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

function ofKind<K extends StoredEvent['kind']>(events: StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e) => e.kind === kind) as StoredEvent<K>[];
}

describe('workflow agents share a context and claims', () => {
  it('a writer claims its file until its work lands; the next step reads its FAIL and takes the file', async () => {
    const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-wf-coord-');
    const file = join(import.meta.dirname, 'fixtures', 'claim-and-read.ts');
    const source = await readProgramSource(file);
    if (!source.ok) throw new Error(source.error);
    const spec: RunSpec = {
      runId: testRunId('wf-coord'),
      topology: 'workflow',
      repo: repo.dir,
      goal: 'workflow claim-and-read.ts',
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
      workflow: { file, js: source.source.js, args: {} },
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
    expect(ofKind(events, 'workflow.finished')[0]?.data.value).toEqual({
      wrote: true,
      read: 'the answer is plain text',
    });

    const started = ofKind(events, 'agent.started');
    const writer = started.find((e) => e.data.task.includes('[write]'));
    const reader = started.find((e) => e.data.task.includes('[read]'));
    expect(writer?.data.tools).toEqual(
      expect.arrayContaining(['write', 'context_post', 'context_read', 'claim', 'release']),
    );
    expect(writer?.data.system).toContain(
      'Your claims are released when you finish and your work has landed',
    );

    // The writer's claim was granted, held through its landing, then released.
    const granted = ofKind(events, 'claim.granted');
    expect(granted.map((e) => [e.agent, e.data.scope])).toEqual([
      [writer?.agent, 'answer.txt'],
      [reader?.agent, 'answer.txt'],
    ]);
    const landed = ofKind(events, 'merge.landed');
    expect(landed.map((e) => e.agent)).toEqual([writer?.agent]);
    const released = ofKind(events, 'claim.released').filter((e) => e.agent === writer?.agent);
    expect(released.map((e) => e.data.outcome)).toEqual(['workflow attempt ended']);
    expect(released[0]?.seq).toBeGreaterThan(landed[0]?.seq ?? Number.POSITIVE_INFINITY);

    // The next step saw the writer's FAIL and the landing's PATCH entry.
    const read = ofKind(events, 'tool.finished').filter(
      (e) => e.agent === reader?.agent && e.data.name === 'context_read',
    );
    expect(read[0]?.data.content).toContain(`FAIL ${writer?.agent} [answer.txt]: ${FAIL_SUMMARY}`);
    expect(read[0]?.data.content).toMatch(/PATCH .*MR 1 landed/);
    const claimed = ofKind(events, 'tool.finished').find(
      (e) => e.agent === reader?.agent && e.data.name === 'claim',
    );
    expect(claimed?.data.content).toMatch(/^Granted: you hold answer\.txt/);
    // A read-only step looks at hub main as it was when it started: the writer's work had landed.
    const readFile = ofKind(events, 'tool.finished').find(
      (e) => e.agent === reader?.agent && e.data.name === 'read',
    );
    expect(readFile?.data.isError).toBe(false);
    expect(readFile?.data.content).toContain('42');
  }, 120_000);
});
