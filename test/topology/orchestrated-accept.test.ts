/**
 * The acceptance step (`--accept CMD`) of the orchestrated topology, end to end through executeRun
 * with the fake provider over real HTTP, real git and real Postgres: a coder subagent lands a change
 * that fails the accept command; the failure (with its output) goes back to it as a new task, it
 * lands a fix, and the re-check passes. A subagent that never fixes it exhausts the rounds and the
 * run fails.
 */
import { execFileSync } from 'node:child_process';
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

const ACCEPT = `grep -qx 'answer=42' src/calc.txt || { echo "src/calc.txt: expected answer=42, got $(cat src/calc.txt)"; exit 1; }`;
let store: Store;
let fake: FakeProvider;
/** When true the subagent "fixes" by writing the same wrong answer again. */
let stubborn = false;

function leadTurn(request: ModelRequest): ScriptedTurn {
  if (request.messages.some((m) => m.role === 'assistant')) return { text: 'The team is done.' };
  return {
    text: 'Creating the calculator.',
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
  let last = -1;
  request.messages.forEach((m, i) => {
    if (m.role === 'user' && /^(Task:|Acceptance round)/.test(m.content)) last = i;
  });
  const prompt = request.messages[last]?.content ?? '';
  const done = request.messages.slice(last + 1).filter((m) => m.role === 'assistant').length;
  const fixing = prompt.startsWith('Acceptance round') && !stubborn;
  // A fix starts from the latest main (its earlier change landed squashed), as the prompt says.
  const steps: ScriptedTurn[] = [
    ...(prompt.startsWith('Acceptance round') ? [{ toolCalls: [{ name: 'sync', arguments: {} }] }] : []),
    {
      toolCalls: [
        { name: 'write', arguments: { path: 'src/calc.txt', content: `answer=${fixing ? 42 : 41}\n` } },
      ],
    },
    { toolCalls: [{ name: 'merge_request', arguments: { note: fixing ? 'fix the answer' : 'the answer' } }] },
  ];
  return steps[done] ?? { text: fixing ? 'Fixed: the answer is 42.' : 'Wrote the answer.' };
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

async function runWithAccept(extra: Partial<RunSpec>) {
  const repo = createUserRepo({ 'README.md': '# calc\n' }, 'colony-accept-');
  const spec: RunSpec = {
    runId: testRunId('accept'),
    topology: 'orchestrated',
    repo: repo.dir,
    goal: 'Write the answer.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: MODEL.id,
    baseUrl: fake.url,
    customModels: [{ ...MODEL, baseUrl: fake.url }],
    verify: 'test -f README.md',
    accept: ACCEPT,
    maxSteps: 10,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    ...extra,
  };
  const provider = createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 });
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider,
    env: { ...process.env, OPENAI_API_KEY: 'k' },
    signal: new AbortController().signal,
    resumed: false,
  });
  if (!result.ok) throw new Error(result.error);
  const events = await store.log.read(spec.runId);
  const rounds = events
    .filter((e) => e.kind === 'acceptance.finished')
    .map((e) => (e as StoredEvent<'acceptance.finished'>).data);
  return { repo: repo.dir, spec, summary: result.summary, events, rounds };
}

describe('orchestrated acceptance', () => {
  it('routes a failing accept check back to the owning subagent, which fixes it', async () => {
    stubborn = false;
    const { repo, spec, summary, events, rounds } = await runWithAccept({});
    expect(rounds).toEqual([
      { round: 0, passed: false, failures: [{ owner: 'calc', files: ['src/calc.txt'] }] },
      { round: 1, passed: true, failures: [] },
    ]);
    const tasks = events
      .filter((e) => e.kind === 'task.assigned')
      .map((e) => (e as StoredEvent<'task.assigned'>).data);
    expect(tasks.map((t) => [t.task, t.agent, t.leadStep])).toEqual([
      ['task-1', 'calc', 1],
      ['task-2', 'calc', 0],
    ]);
    // The fix task carries the failing output.
    expect(tasks[1]?.prompt).toContain('src/calc.txt: expected answer=42, got answer=41');
    expect(summary.status).toBe('succeeded');
    expect(summary.reason).toMatch(/acceptance passed after 1 fix round/);
    expect(summary.acceptance).toEqual({ round: 1, passed: true });
    // The run's own verify stays the summary's verify; the result branch has the fix.
    expect(summary.verify?.command).toBe('test -f README.md');
    const fixed = execFileSync('git', ['show', `colony/${spec.runId}:src/calc.txt`], {
      cwd: repo,
      encoding: 'utf8',
    });
    expect(fixed).toBe('answer=42\n');
  });

  it('fails the run when the owner does not fix it within the rounds', async () => {
    stubborn = true;
    const { summary, rounds } = await runWithAccept({ acceptRounds: 1 });
    expect(rounds.map((r) => [r.round, r.passed])).toEqual([
      [0, false],
      [1, false],
    ]);
    expect(summary.status).toBe('failed');
    expect(summary.reason).toMatch(/acceptance check failed on main after 1 fix round/);
  });
});
