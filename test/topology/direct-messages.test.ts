/**
 * `colony send --to AGENT` reaches the agents of every topology: real runs (executeRun, real Postgres
 * and git) whose agents the fake provider answers over real HTTP. The model call of the agent under
 * test is held in the fake's policy until the built CLI (another process) has sent the message and
 * this process's listener has seen its NOTIFY, so the message must be in that agent's very next
 * request — no timing involved. And the refusals: a name that is not an agent of the run (naming the
 * ones it has), an agent that has finished, a finished run (nothing appended to its log).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { Message, ModelRequest } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import type { Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { readProgramSource } from '../../src/workflow/load.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

let store: Store;
/** The run's coordination services (executeRun uses them), so the test can see the NOTIFY arrive. */
let coord: Coordination;
let fake: FakeProvider;
let policy: ScriptedPolicy = () => ({ text: 'unexpected call' });

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  fake = await startFakeProvider({ policy: (request, index) => policy(request, index) });
});
afterAll(async () => {
  await fake?.close();
  await coord?.close();
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

const READ_README: ScriptedTurn = { toolCalls: [{ name: 'read', arguments: { path: 'README.md' } }] };
const delivered = (text: string): Message => ({
  role: 'user',
  content: `[Direct message from the user, quoted below — read this first]\n> ${text}`,
});

/** A model call that waits for the test: `arrived` once the fake has it, answered after `release()`. */
function held() {
  let arrive = () => {};
  let release = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    arrived,
    release,
    async answer(turn: ScriptedTurn): Promise<ScriptedTurn> {
      arrive();
      await released;
      return turn;
    },
  };
}

function specFor(topology: RunSpec['topology'], extra: Partial<RunSpec> = {}): RunSpec {
  const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-dm-');
  return {
    runId: testRunId(`dm-${topology}`),
    topology,
    repo: repo.dir,
    goal: 'Read the README.',
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
}

async function startRun(spec: RunSpec) {
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider: createProvider({ ...MODEL, baseUrl: fake.url }, { apiKey: 'k', maxRetries: 0 }),
    env: { ...process.env, OPENAI_API_KEY: 'k' },
    signal: new AbortController().signal,
    resumed: false,
    coordination: coord,
  });
  if (!result.ok) throw new Error(result.error);
  return result.summary;
}

/** `colony send RUN --to AGENT TEXT` succeeds, and the run's listener has the NOTIFY of it. */
async function sendFromCli(runId: string, agent: string, text: string): Promise<void> {
  let off = () => {};
  const noticed = new Promise<void>((resolve) => {
    off = coord.listener.wait(runId, agent, resolve);
  });
  const sent = await colony(['send', runId, '--to', agent, text]);
  expect(sent.stderr).toBe('');
  expect(sent.code).toBe(0);
  await noticed;
  off();
}

/** `colony send` refuses: exit 1 and the reason on stderr. */
async function refused(runId: string, args: string[]): Promise<string> {
  const r = await colony(['send', runId, ...args]);
  expect(r.stdout).toBe('');
  expect(r.code).toBe(1);
  return r.stderr.trim();
}

const sentCount = async (runId: string) => (await store.log.read(runId, { kinds: ['message.sent'] })).length;
const requestsSince = (from: number): ModelRequest[] =>
  fake
    .requests()
    .slice(from)
    .map((r) => r.request as ModelRequest);
const assistantTurns = (request: ModelRequest) =>
  request.messages.filter((m) => m.role === 'assistant').length;

describe('direct messages reach every topology', () => {
  it('solo: the message is in the agent’s next request; unknown agents and a finished run are refused', async () => {
    const call = held();
    policy = (request) => (assistantTurns(request) === 0 ? call.answer(READ_README) : { text: 'done' });
    const spec = specFor('solo');
    const from = fake.requests().length;
    const run = startRun(spec);
    await call.arrived;
    try {
      expect(await refused(spec.runId, ['--to', 'nobody', 'hello'])).toBe(
        `colony: send: run ${spec.runId} has no agent "nobody"; its agents: solo`,
      );
      await sendFromCli(spec.runId, 'solo', 'also look at the tests');
    } finally {
      // Released on a failed assertion too, so the run ends rather than hangs.
      call.release();
    }
    expect((await run).status).toBe('succeeded');

    const requests = requestsSince(from);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(requests[1]?.messages[3]).toEqual(delivered('also look at the tests'));
    expect(await sentCount(spec.runId)).toBe(1);

    // The run has finished: direct and channel messages are refused and nothing is logged.
    expect(await refused(spec.runId, ['--to', 'solo', 'too late'])).toMatch(
      new RegExp(`run ${spec.runId} has finished \\(succeeded\\); no agent would read the message`),
    );
    expect(await refused(spec.runId, ['--channel', 'all', 'too late'])).toMatch(/has finished/);
    expect(await sentCount(spec.runId)).toBe(1);
  });

  it('orchestrated: messages reach a subagent and the lead in their next requests', async () => {
    const call = held();
    policy = (request) => {
      const subagent = /You are subagent "([^"]+)"/.exec(request.system)?.[1];
      const turns = assistantTurns(request);
      if (subagent === 'scout') return turns === 0 ? call.answer(READ_README) : { text: 'scout done' };
      return turns === 0
        ? {
            toolCalls: [
              {
                name: 'create_subagent',
                arguments: { name: 'scout', system_prompt: 'You read files.', profile: 'explore' },
              },
              { name: 'assign_task', arguments: { agent: 'scout', prompt: 'read the README' } },
            ],
          }
        : { text: 'lead done' };
    };
    const spec = specFor('orchestrated');
    const from = fake.requests().length;
    const run = startRun(spec);
    await call.arrived;
    try {
      // subagent.created is committed (the send's check reads it from the log).
      await store.log.flush();
      expect(await refused(spec.runId, ['--to', 'nobody', 'hello'])).toBe(
        `colony: send: run ${spec.runId} has no agent "nobody"; its agents: lead, scout`,
      );
      await sendFromCli(spec.runId, 'scout', 'the README is short');
      await sendFromCli(spec.runId, 'lead', 'keep it brief');
    } finally {
      // Released on a failed assertion too, so the run ends rather than hangs.
      call.release();
    }
    expect((await run).status).toBe('succeeded');

    const requests = requestsSince(from);
    const scout = requests.filter((r) => r.system.includes('You are subagent "scout"'));
    const lead = requests.filter((r) => !r.system.includes('You are subagent'));
    expect(scout).toHaveLength(2);
    expect(scout[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(scout[1]?.messages[3]).toEqual(delivered('the README is short'));
    expect(lead).toHaveLength(2);
    // After the results of create_subagent and assign_task.
    expect(lead[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(lead[1]?.messages[4]).toEqual(delivered('keep it brief'));
  });

  it('workflow: the message is in the step agent’s next request; a finished agent is refused', async () => {
    const call = held();
    const taskOf = (request: ModelRequest) => request.messages[0]?.content ?? '';
    policy = (request) => {
      if (taskOf(request).includes('[one]')) return { text: 'one done' };
      return assistantTurns(request) === 0 ? call.answer(READ_README) : { text: 'two done' };
    };
    const file = join(import.meta.dirname, 'fixtures', 'two-steps.ts');
    const source = await readProgramSource(file);
    if (!source.ok) throw new Error(source.error);
    const spec = specFor('workflow', { workflow: { file, js: source.source.js, args: {} } });
    const from = fake.requests().length;
    const run = startRun(spec);
    await call.arrived;
    try {
      const started = await store.log.read(spec.runId, { kinds: ['agent.started'] });
      const first = started.find((e) => e.data.task.includes('[one]'))?.agent ?? '';
      const second = started.find((e) => e.data.task.includes('[two]'))?.agent ?? '';
      expect(first).not.toBe('');
      expect(second).not.toBe('');
      expect(await refused(spec.runId, ['--to', first, 'hello'])).toBe(
        `colony: send: agent "${first}" of run ${spec.runId} has finished (done: final answer); it reads no more messages`,
      );
      expect(await refused(spec.runId, ['--to', 'nobody', 'hello'])).toBe(
        `colony: send: run ${spec.runId} has no agent "nobody"; its agents so far: ${first}, ${second}`,
      );
      await sendFromCli(spec.runId, second, 'mind the title');
    } finally {
      // Released on a failed assertion too, so the run ends rather than hangs.
      call.release();
    }
    expect((await run).status).toBe('succeeded');

    const requests = requestsSince(from).filter((r) => taskOf(r).includes('[two]'));
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(requests[1]?.messages[3]).toEqual(delivered('mind the title'));
    expect(await sentCount(spec.runId)).toBe(1);
  });

  it('peers: a planned peer that has not started takes messages; another name is refused with the planned ones', async () => {
    const spec = specFor('peers', { agents: 3 });
    await recordNewRun(store, spec);
    expect(await refused(spec.runId, ['--to', 'peer-9', 'hello'])).toBe(
      `colony: send: run ${spec.runId} has no agent "peer-9"; its agents: peer-1, peer-2, peer-3`,
    );
    expect(await sentCount(spec.runId)).toBe(0);
    const sent = await colony(['send', spec.runId, '--to', 'peer-3', 'start with the README']);
    expect(sent.code).toBe(0);
    expect(await sentCount(spec.runId)).toBe(1);
    // Not executed: mark it finished so it is not left running.
    await store.log.append({
      runId: spec.runId,
      agent: null,
      kind: 'run.finished',
      data: { status: 'stopped', reason: 'test', resultBranch: null },
    });
    await store.runs.setRunStatus(spec.runId, 'stopped');
  });
});
