/**
 * `POST /api/runs` and `GET /api/needs-you` through real HTTP on the real store.
 * - Starting a run is an action: 401 without the token, and nothing starts. A bad body or spec is a
 *   400 with the spec builder's words (not a git repository, an empty goal, an unknown model, peers
 *   without verify) and starts nothing. A good one starts the built `colony run` (on the fake
 *   provider, its base URL in the server's environment as a user would set OPENAI_BASE_URL), answers
 *   201 once the run is recorded, and the run's process environment has no variable with the token.
 * - The needs-you list: a running run's waiting approval and stalled agent are listed; once the merge
 *   is approved and the agent moves again they are not; a budget warning gives way to the limit hit;
 *   a recently finished run's failed verify and limit hit are listed, a stall in it is not.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../../src/core/events.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { NeedsYouItem } from '../../src/server/needs-you.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from './http-client.js';
import { agentSteps } from './run-fixture.js';

const TOKEN = 'start-run-token-0123456789abcdefghijklmnopq';
let store: Store;
let server: RunningServer;
let fake: FakeProvider;
let release = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  store = await openTestStore();
  // The first model call waits until the test has looked at the run's process; then the agent is done.
  fake = await startFakeProvider({
    policy: async () => {
      await held;
      return { text: 'nothing to do' };
    },
  });
  // The server's environment, as the person who started `colony serve` set it (this file runs in a
  // process of its own): the fake provider's URL, no vendor keys, and a variable holding the server
  // token, which a run started from the page must not get.
  Object.assign(process.env, NO_API_KEYS, {
    OPENAI_BASE_URL: fake.url,
    COLONY_TEST_SERVER_TOKEN: TOKEN,
  });
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 50 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
});

afterAll(async () => {
  release();
  await server?.close();
  await fake?.close();
  await store?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runsWithGoal(goal: string): Promise<number> {
  return (await store.runs.listRuns(1000)).filter((r) => r.goal === goal).length;
}

describe('POST /api/runs', () => {
  it('needs the token (401) and starts nothing without it', async () => {
    const repo = createUserRepo({ 'README.md': '# x\n' }, 'colony-start-401-').dir;
    const goal = `no token ${Date.now()}`;
    const r = await request(server.url, 'POST', '/api/runs', {
      body: { repo, goal, model: 'openai-chat:fake-model', topology: 'solo' },
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatch(/needs the server token/);
    await sleep(1000);
    expect(await runsWithGoal(goal)).toBe(0);
  });

  it('refuses a bad body or spec with 400 and the builder’s words, starting nothing', async () => {
    const repo = createUserRepo({ 'README.md': '# x\n' }, 'colony-start-400-').dir;
    const notGit = mkdtempSync(join(tmpdir(), 'colony-not-git-'));
    const goal = `bad spec ${Date.now()}`;
    const post = (body: Record<string, unknown>) =>
      request(server.url, 'POST', '/api/runs', { token: TOKEN, body });
    const base = { repo, goal, model: 'openai-chat:fake-model', topology: 'solo' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, repo: notGit }, new RegExp(`not a git repository: ${notGit}`)],
      [{ ...base, goal: '   ' }, /goal/],
      [{ ...base, model: 'no-such-model' }, /no-such-model/],
      [{ ...base, topology: 'peers', agents: 2 }, /verify/],
      [{ ...base, repo: undefined }, /repo is required/],
      [{ ...base, topology: 'swarm' }, /topology must be one of/],
      [{ ...base, budgetTokens: -3 }, /budgetTokens must be a positive integer/],
      [{ ...base, agents: 2 }, /agents is for the peers topology/],
    ];
    for (const [body, error] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toMatch(error);
    }
    await sleep(1000);
    expect(await runsWithGoal(goal)).toBe(0);
  });

  it('starts colony run, answers once it is recorded, and keeps the token out of its environment', async () => {
    const repo = createUserRepo({ 'README.md': '# x\n' }, 'colony-start-ok-').dir;
    const goal = `started from the API ${Date.now()}`;
    const r = await request(server.url, 'POST', '/api/runs', {
      token: TOKEN,
      body: { repo, goal, model: 'openai-chat:fake-model', topology: 'solo', budgetTokens: 100000 },
    });
    expect(r.status, r.text).toBe(201);
    const runId = String(r.body.runId);
    expect(r.body).toMatchObject({ ok: true, recorded: true });
    const run = await store.runs.getRun(runId);
    expect(run).toMatchObject({ goal, topology: 'solo', status: 'running' });
    expect(run?.config).toMatchObject({ model: 'openai-chat:fake-model', budgetTokens: 100000 });
    // The run's process (its pid is in the runs row): its environment has the server's variables,
    // but none with the token.
    const environ = readFileSync(`/proc/${run?.pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`OPENAI_BASE_URL=${fake.url}`);
    expect(environ.some((v) => v.includes(TOKEN))).toBe(false);
    release();
    const end = Date.now() + 60_000;
    while ((await store.runs.getRun(runId))?.status === 'running' && Date.now() < end) await sleep(200);
    expect((await store.runs.getRun(runId))?.status).toBe('succeeded');
    // Its output went to $COLONY_HOME/serve/<id>.log.
    expect(readdirSync(join(store.home, 'serve'))).toContain(`${runId}.log`);
  }, 90_000);
});

async function recordNeedsRun(
  label: string,
  config: Record<string, unknown>,
  events: (runId: string) => EventInput[],
): Promise<string> {
  const runId = testRunId(label);
  const created = await store.runs.createRun({
    runId,
    topology: 'peers',
    goal: `needs ${label}`,
    repo: '/tmp/repo',
    config,
  });
  if (!created.ok) throw new Error(created.error);
  const lock = await store.tryLockRun(runId);
  if (!lock.ok) throw new Error(`cannot lock run ${runId}`);
  for (const e of events(runId)) await store.log.append(e);
  await store.log.flush();
  return runId;
}

const needs = async (runId: string) => {
  const r = await request(server.url, 'GET', '/api/needs-you');
  expect(r.status).toBe(200);
  return (r.body.items as NeedsYouItem[]).filter((i) => i.runId === runId);
};

describe('GET /api/needs-you', () => {
  it('lists a waiting approval and a stalled agent until they are settled', async () => {
    const runId = await recordNeedsRun('needs-open', { approveMerges: true }, (id) => [
      ...agentSteps(id, 'peer-1', 1),
      {
        runId: id,
        agent: 'peer-1',
        kind: 'merge.requested',
        data: { mr: 1, branch: 'b', commit: 'c', note: 'fix it' },
      },
      { runId: id, agent: null, kind: 'merge.awaiting_approval', data: { mr: 1, commit: 'c' } },
      { runId: id, agent: 'peer-2', kind: 'agent.stalled', data: { idleMs: 2000 } },
    ]);
    const open = await needs(runId);
    expect(open.map((i) => [i.kind, i.agent])).toEqual([
      ['approval_needed', null],
      ['agent_stalled', 'peer-2'],
    ]);
    expect(open[0]?.details).toMatchObject({ mr: 1, note: 'fix it' });
    expect(open[0]).toMatchObject({ runStatus: 'running', goal: 'needs needs-open' });

    // The merge is approved and peer-2 moves again: nothing waits any more.
    await store.log.append({ runId, agent: null, kind: 'merge.approved', data: { mr: 1, by: 'user' } });
    for (const e of agentSteps(runId, 'peer-2', 1)) await store.log.append(e);
    await store.log.flush();
    expect(await needs(runId)).toEqual([]);

    // An approval that did not count leaves it waiting again.
    await store.log.append({
      runId,
      agent: 'peer-1',
      kind: 'merge.requested',
      data: { mr: 2, branch: 'b', commit: 'd', note: 'again' },
    });
    await store.log.append({
      runId,
      agent: null,
      kind: 'merge.awaiting_approval',
      data: { mr: 2, commit: 'd' },
    });
    const approved = await store.log.append({
      runId,
      agent: 'peer-1',
      kind: 'merge.approved',
      data: { mr: 2, by: 'peer-1' },
    });
    await store.log.append({
      runId,
      agent: null,
      kind: 'merge.approval_ignored',
      data: {
        mr: 2,
        by: 'peer-1',
        agent: 'peer-1',
        decision: 'approve',
        reason: 'own',
        seq: approved.seq,
      },
    });
    await store.log.flush();
    expect((await needs(runId)).map((i) => [i.kind, i.details.mr])).toEqual([['approval_needed', 2]]);
  });

  it('a budget warning gives way to its limit hit; a finished run keeps its failed verify and limit hit', async () => {
    // 3 calls of 1,650 tokens: 4,950 of 6,000 is past 80%.
    const runId = await recordNeedsRun('needs-budget', { budgetTokens: 6000 }, (id) =>
      agentSteps(id, 'peer-1', 3),
    );
    expect((await needs(runId)).map((i) => [i.kind, i.details.budget])).toEqual([
      ['budget_warning', 'tokens'],
    ]);
    await store.log.append({
      runId,
      agent: null,
      kind: 'limit.hit',
      data: { limit: 'budget_tokens', value: 6000, used: 6600 },
    });
    await store.log.append({ runId, agent: 'peer-1', kind: 'agent.stalled', data: { idleMs: 1000 } });
    await store.log.flush();
    expect((await needs(runId)).map((i) => i.kind)).toEqual(['limit_hit', 'agent_stalled']);
    await store.log.append({
      runId,
      agent: null,
      kind: 'verify.finished',
      data: { command: 'npm test', exitCode: 1, passed: false, output: 'FAIL', durationMs: 5 },
    });
    await store.log.append({
      runId,
      agent: null,
      kind: 'run.finished',
      data: { status: 'budget_exhausted', reason: 'token budget', resultBranch: null },
    });
    await store.log.flush();
    await store.runs.setRunStatus(runId, 'budget_exhausted');
    const finished = await needs(runId);
    expect(finished.map((i) => i.kind)).toEqual(['limit_hit', 'verify_failed']);
    expect(finished[1]).toMatchObject({
      runStatus: 'budget_exhausted',
      details: { command: 'npm test', exitCode: 1 },
    });
  });
});
