/**
 * `--approve-merges` in the orchestrated topology, through executeRun with the fake provider over
 * real HTTP, real git and Postgres: a coder subagent's verified merge request is parked and its
 * merge_request waits for the person (its task ends with the merge). A rejection from outside comes
 * back to it as the tool's answer, with the reason; its fix is approved from outside and lands. The
 * test decides only on events in the log.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import type { EventKind, StoredEvent } from '../../src/core/events.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { approveFromOutside, rejectFromOutside } from '../../src/workspace/integration/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const REASON = 'the answer is 42, not 41';
let store: Store;
let fake: FakeProvider;

function leadTurn(request: ModelRequest): ScriptedTurn {
  if (request.messages.some((m) => m.role === 'assistant')) return { text: 'The team is done.' };
  return {
    toolCalls: [
      {
        name: 'create_subagent',
        arguments: { name: 'calc', system_prompt: 'You compute the answer.', profile: 'coder' },
      },
      {
        name: 'assign_task',
        arguments: { agent: 'calc', prompt: 'Task: write the answer to src/calc.txt.' },
      },
    ],
  };
}

function calcTurn(request: ModelRequest): ScriptedTurn {
  const tools = request.messages.filter((m) => m.role === 'tool');
  const heard = tools.some((m) => m.content.includes(REASON));
  const answer = heard ? 42 : 41;
  const wrote = request.messages.filter(
    (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'write'),
  ).length;
  const last = request.messages.filter((m) => m.role === 'assistant').at(-1)?.toolCalls[0]?.name;
  if (last === 'write')
    return { toolCalls: [{ name: 'merge_request', arguments: { note: `answer ${answer}` } }] };
  if (wrote === 0 || (heard && wrote === 1))
    return {
      toolCalls: [{ name: 'write', arguments: { path: 'src/calc.txt', content: `answer=${answer}\n` } }],
    };
  return { text: `Wrote answer=${answer}.` };
}

beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({
    record: false,
    policy: (request) =>
      request.system.startsWith('You are the lead') ? leadTurn(request) : calcTurn(request),
  });
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

const MODEL = {
  id: 'openai-chat:fake',
  protocol: 'openai-chat' as const,
  name: 'fake',
  contextWindow: 128_000,
  maxOutput: 8_192,
  prices: null,
};

async function until<K extends EventKind>(
  runId: string,
  kind: K,
  match: (e: StoredEvent<K>) => boolean,
): Promise<StoredEvent<K>> {
  const end = Date.now() + 60_000;
  for (;;) {
    const found = (await store.log.read(runId, { kinds: [kind] })).find(match);
    if (found) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${kind}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('orchestrated with --approve-merges', () => {
  it("parks a subagent's merge until a person decides; a rejection is the tool's answer, with the reason", async () => {
    const repo = createUserRepo({ 'README.md': '# calc\n' }, 'colony-orch-approve-');
    const spec: RunSpec = {
      runId: testRunId('orch-approve'),
      topology: 'orchestrated',
      repo: repo.dir,
      goal: 'Write the answer.',
      baseRef: 'HEAD',
      baseCommit: repo.base,
      model: MODEL.id,
      baseUrl: fake.url,
      customModels: [{ ...MODEL, baseUrl: fake.url }],
      verify: "grep -qx 'answer=42' src/calc.txt",
      mergeVerify: 'true',
      approveMerges: true,
      maxSteps: 10,
      profile: 'coder',
      stream: false,
      modelTimeoutMs: 30_000,
      maxRetries: 0,
      bashTimeoutS: 30,
    };
    const provider = createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 });
    await recordNewRun(store, spec);
    const running = executeRun({
      store,
      spec,
      provider,
      env: { ...process.env, OPENAI_API_KEY: 'k' },
      signal: new AbortController().signal,
      resumed: false,
    });

    const first = await until(spec.runId, 'merge.awaiting_approval', () => true);
    // Parked: nothing landed, and the subagent's merge_request is still waiting for the decision.
    const before = await store.log.read(spec.runId);
    expect(before.filter((e) => e.kind === 'merge.landed')).toEqual([]);
    expect(before.some((e) => e.kind === 'tool.finished' && e.data.name === 'merge_request')).toBe(false);
    expect(await rejectFromOutside(store.log, spec.runId, first.data.mr, REASON)).toEqual({ ok: true });
    const answer = await until(spec.runId, 'tool.finished', (e) => e.data.name === 'merge_request');
    expect(answer.data.isError).toBe(true);
    expect(answer.data.content).toMatch(/rejected: it was reviewed and turned down \(review_rejected\)/);
    expect(answer.data.content).toContain(`rejected by user: ${REASON}`);

    const second = await until(spec.runId, 'merge.awaiting_approval', (e) => e.data.mr !== first.data.mr);
    expect(await approveFromOutside(store.log, spec.runId, second.data.mr)).toEqual({ ok: true });
    const result = await running;
    if (!result.ok) throw new Error(result.error);
    expect(result.summary.status).toBe('succeeded');
    const events = await store.log.read(spec.runId, { kinds: ['merge.landed', 'merge.rejected'] });
    expect(events.map((e) => [e.kind, e.data.mr])).toEqual([
      ['merge.rejected', first.data.mr],
      ['merge.landed', second.data.mr],
    ]);
    const landed = execFileSync('git', ['show', `colony/${spec.runId}:src/calc.txt`], {
      cwd: repo.dir,
      encoding: 'utf8',
    });
    expect(landed).toBe('answer=42\n');
  });
});
