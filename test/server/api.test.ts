import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import type { CompactRunView as RunView } from '../../src/view/compact-types.js';
import { buildRunView } from '../../src/view/run-view.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { collectSse, request } from './http-client.js';
import { agentSteps, recordRun } from './run-fixture.js';

const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuv';
let store: Store;
let server: RunningServer;
let runId: string;

beforeAll(async () => {
  store = await openTestStore();
  runId = await recordRun(store);
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 50 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
});

afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('reading (open on loopback)', () => {
  it('lists runs with agents, cost, wall-clock and verify from the log', async () => {
    const r = await request(server.url, 'GET', '/api/runs');
    expect(r.status).toBe(200);
    const row = (r.body.runs as Array<Record<string, unknown>>).find((x) => x.runId === runId);
    expect(row).toMatchObject({ status: 'running', topology: 'peers', agents: 2, verify: null });
    expect(row?.costUsd).toBeCloseTo(0.006, 6);
    // Every token: 1000 uncached + 600 cached input + 50 output per call (cached input counts too).
    expect(row?.tokens).toBe(3 * 1650);
  });

  it('gives the run view: agent states, claims, context, integration queue, series, limits', async () => {
    const r = await request(server.url, 'GET', `/api/runs/${runId}`);
    expect(r.status).toBe(200);
    const v = r.body as unknown as RunView;
    const states = Object.fromEntries(
      (v.agents as Array<{ name: string; state: string }>).map((a) => [a.name, a.state]),
    );
    expect(states).toEqual({ 'peer-1': 'done', 'peer-2': 'thinking' });
    expect(v.agents.find((a) => a.name === 'peer-2')?.lastAction).toBe('merge request #3');
    expect(v.agents.find((a) => a.name === 'peer-1')?.lastAction).toBe('finished (done): done');
    expect(v.context.map((c: { kind: string }) => c.kind)).toEqual(['FAIL', 'FACT']);
    expect(v.merges.map((m: { mr: number; status: string }) => [m.mr, m.status])).toEqual([
      [3, 'awaiting_approval'],
      [2, 'rejected'],
      [1, 'landed'],
    ]);
    expect(v.merges[1]?.reason).toBe('conflict');
    expect(v.claims).toEqual([expect.objectContaining({ agent: 'peer-1', scope: 'src/alpha' })]);
    // `input` is uncached input (src/model/usage): 1,000 uncached + 600 cached per call.
    expect(v.series.at(-1)).toMatchObject({ uncached: 3 * 1000, cached: 3 * 600, output: 150 });
    expect(v.limits.find((l) => l.name === 'budget_tokens')?.used).toBe(3 * 1650);
    expect(v.limits.find((l: { name: string }) => l.name === 'budget_usd')).toMatchObject({
      limit: 1,
      used: 0.006,
    });
    expect(v.timeline.rows).toHaveLength(2);
    // The report's critical path (peers: the agent with the most steps), not a second rule.
    expect(v.timeline.critical).toMatchObject({ method: 'longest-agent', steps: 2 });
    expect(v.timeline.critical.segments.map((s) => s.agent)).toEqual(['peer-1']);
  });

  it('serves events, an agent transcript, context by kind, metrics; 404 for unknown runs', async () => {
    const ev = await request(server.url, 'GET', `/api/runs/${runId}/events?after=2&limit=3`);
    expect((ev.body.events as StoredEvent[]).map((e) => e.seq)).toEqual([3, 4, 5]);
    const agent = await request(server.url, 'GET', `/api/runs/${runId}/agents/peer-2`);
    expect((agent.body.transcript as StoredEvent[]).every((e) => e.agent === 'peer-2')).toBe(true);
    expect((agent.body.transcript as StoredEvent[]).map((e) => e.kind)).toContain('model.response');
    const fails = await request(server.url, 'GET', `/api/runs/${runId}/context?kind=FAIL`);
    expect(fails.body.total).toBe(1);
    const metrics = await request(server.url, 'GET', `/api/runs/${runId}/metrics`);
    expect(metrics.body).toMatchObject({ modelCalls: 3, toolCalls: 3, criticalSteps: 2, agents: 2 });
    expect((await request(server.url, 'GET', '/api/runs/nope')).status).toBe(404);
    expect((await request(server.url, 'GET', `/api/runs/${runId}/agents/nobody`)).status).toBe(404);
  });

  it('refuses a Host header that is not loopback (DNS rebinding)', async () => {
    const r = await request(server.url, 'GET', '/api/runs', { host: 'evil.example:7420' });
    expect(r.status).toBe(403);
  });
});

describe('one fold: the API and the report view agree', () => {
  /** The API's view next to buildRunView over the same log: same states, critical path, totals. */
  async function both(id: string) {
    const api = (await request(server.url, 'GET', `/api/runs/${id}`)).body as unknown as RunView;
    const report = buildRunView(await store.log.read(id), Date.now());
    const states = (rows: Array<{ name: string; state: string }>) =>
      Object.fromEntries(rows.map((a) => [a.name, a.state]));
    expect(states(api.agents)).toEqual(states(report.agents));
    expect(api.timeline.critical.steps).toBe(report.criticalPath.steps);
    expect(api.costUsd).toBe(report.totals.costUsd);
    expect(api.tokens.input).toBe(report.totals.tokens.uncached);
    expect(api.tokens.cachedInput).toBe(report.totals.tokens.cached);
    return { api, states: states(api.agents) };
  }

  it('shows a stopped agent as stopped and peers not started yet as queued, incrementally', async () => {
    const id = testRunId('fold');
    const created = await store.runs.createRun({ runId: id, topology: 'peers', goal: 'g', repo: '/r' });
    if (!created.ok) throw new Error(created.error);
    const start = (agent: string): EventInput => ({
      runId: id,
      agent,
      kind: 'agent.started',
      data: { profile: 'coder', model: 'fake', task: 't', system: 's', tools: ['bash'], maxSteps: 20 },
    });
    const first: EventInput[] = [
      {
        runId: id,
        agent: null,
        kind: 'run.started',
        data: {
          topology: 'peers',
          goal: 'g',
          repo: '/r',
          base: 'main',
          model: 'fake',
          config: { agents: 3, concurrency: 2 },
        },
      },
      start('peer-1'),
      start('peer-2'),
      ...agentSteps(id, 'peer-1', 1),
      {
        runId: id,
        agent: 'peer-1',
        kind: 'agent.finished',
        data: { status: 'stopped', stopReason: 'aborted', reason: 'stop requested', steps: 1, finalText: '' },
      },
      ...agentSteps(id, 'peer-2', 2),
    ];
    for (const e of first) await store.log.append(e);
    await store.log.flush();
    const one = await both(id);
    expect(one.states).toEqual({ 'peer-1': 'stopped', 'peer-2': 'thinking', 'peer-3': 'queued' });
    expect(one.api.counts).toMatchObject({ stopped: 1, failed: 0, queued: 1, thinking: 1 });
    expect(one.api.limits.find((l) => l.name === 'concurrency')).toMatchObject({ limit: 2, used: 1 });
    expect(one.api.timeline.rows.map((r) => r.agent)).toEqual(['peer-1', 'peer-2', 'peer-3']);

    // The server's state is caught up incrementally: peer-3 gets its slot and calls a tool.
    const more: EventInput[] = [start('peer-3'), ...agentSteps(id, 'peer-3', 1).slice(0, 2)];
    for (const e of more) await store.log.append(e);
    await store.log.flush();
    const two = await both(id);
    expect(two.api.lastSeq).toBe(one.api.lastSeq + 3);
    expect(two.states).toEqual({ 'peer-1': 'stopped', 'peer-2': 'thinking', 'peer-3': 'tool' });

    // The run is stopped before the others log agent.finished: they are stopped too, not failed.
    await store.log.append({
      runId: id,
      agent: null,
      kind: 'run.finished',
      data: { status: 'stopped', reason: 'enough', resultBranch: null },
    });
    await store.log.flush();
    const three = await both(id);
    expect(three.states).toEqual({ 'peer-1': 'stopped', 'peer-2': 'stopped', 'peer-3': 'stopped' });
    const agent = await request(server.url, 'GET', `/api/runs/${id}/agents/peer-1`);
    expect(agent.body).toMatchObject({
      finishStatus: 'stopped',
      stopReason: 'aborted',
      runStatus: 'stopped',
    });
    expect((agent.body.agent as { state: string }).state).toBe('stopped');
  });

  it("lists a peer's merge requests as its commits, with the main commit a landed one became", async () => {
    const one = await request(server.url, 'GET', `/api/runs/${runId}/agents/peer-1`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ branch: 'agent/peer-1', runStatus: 'running' });
    expect(one.body.commits).toEqual([
      expect.objectContaining({ commit: 'a'.repeat(40), mr: 1, landedAs: 'b'.repeat(40), files: null }),
    ]);
    // peer-2's first request was rejected, its second waits: neither landed.
    const two = await request(server.url, 'GET', `/api/runs/${runId}/agents/peer-2`);
    expect(two.body.commits).toEqual([
      expect.objectContaining({ commit: 'd'.repeat(40), mr: 2, landedAs: null }),
      expect.objectContaining({ commit: 'e'.repeat(40), mr: 3, landedAs: null }),
    ]);
    const row = (await request(server.url, 'GET', `/api/runs/${runId}`)).body.agents as Array<{
      name: string;
      commits: number;
    }>;
    expect(row.find((a) => a.name === 'peer-1')?.commits).toBe(1);
  });
});

describe('acting (token required even on loopback)', () => {
  it('rejects a message without the token or with a wrong one (401), sends it with the token', async () => {
    const body = { to: 'peer-2', text: 'look at beta first' };
    expect((await request(server.url, 'POST', `/api/runs/${runId}/messages`, { body })).status).toBe(401);
    expect(
      (await request(server.url, 'POST', `/api/runs/${runId}/messages`, { body, token: 'wrong' })).status,
    ).toBe(401);
    // A token in the query string is not accepted for actions.
    expect(
      (await request(server.url, 'POST', `/api/runs/${runId}/messages?token=${TOKEN}`, { body })).status,
    ).toBe(401);
    const ok = await request(server.url, 'POST', `/api/runs/${runId}/messages`, { body, token: TOKEN });
    expect(ok.status).toBe(200);
    const sent = await store.log.read(runId, { kinds: ['message.sent'] });
    expect(sent.at(-1)).toMatchObject({ agent: null, data: { to: 'peer-2', text: 'look at beta first' } });
    const bad = await request(server.url, 'POST', `/api/runs/${runId}/messages`, {
      body: { text: 'x' },
      token: TOKEN,
    });
    expect(bad.status).toBe(400);
  });

  it('refuses a message no agent would read: unknown name (404), finished agent or run (409)', async () => {
    const post = (id: string, body: Record<string, string>) =>
      request(server.url, 'POST', `/api/runs/${id}/messages`, { body, token: TOKEN });
    const sentBefore = (await store.log.read(runId, { kinds: ['message.sent'] })).length;
    const unknown = await post(runId, { to: 'peer-9', text: 'hello' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe(`run ${runId} has no agent "peer-9"; its agents: peer-1, peer-2`);
    const done = await post(runId, { to: 'peer-1', text: 'hello' });
    expect(done.status).toBe(409);
    expect(done.body.error).toBe(
      `agent "peer-1" of run ${runId} has finished (done: done); it reads no more messages`,
    );
    expect((await store.log.read(runId, { kinds: ['message.sent'] })).length).toBe(sentBefore);

    const ended = await recordRun(store, 'srv-ended');
    await store.log.append({
      runId: ended,
      agent: null,
      kind: 'run.finished',
      data: { status: 'failed', reason: 'test', resultBranch: null },
    });
    const late = await post(ended, { channel: 'all', text: 'too late' });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe(`run ${ended} has finished (failed); no agent would read the message`);
    expect(await store.log.read(ended, { kinds: ['message.sent'] })).toEqual([]);
  });

  it('approves a merge request waiting for approval (401 without token, 409 when not approvable)', async () => {
    expect((await request(server.url, 'POST', `/api/runs/${runId}/merges/3/approve`)).status).toBe(401);
    expect(
      (await request(server.url, 'POST', `/api/runs/${runId}/merges/3/approve`, { token: TOKEN })).status,
    ).toBe(200);
    const approved = await store.log.read(runId, { kinds: ['merge.approved'] });
    expect(approved.map((e) => e.data)).toEqual([{ mr: 3, by: 'user' }]);
    expect(
      (await request(server.url, 'POST', `/api/runs/${runId}/merges/1/approve`, { token: TOKEN })).status,
    ).toBe(409);
  });

  it('rejects a merge request waiting for approval with a reason (401 without token, 400 without reason, 409 when decided)', async () => {
    await store.log.append({
      runId,
      agent: 'peer-2',
      kind: 'merge.requested',
      data: { mr: 4, branch: 'agent/peer-2', commit: 'f'.repeat(40), note: 'n' },
    });
    const path = (mr: number) => `/api/runs/${runId}/merges/${mr}/reject`;
    const body = { reason: 'split it in two' };
    expect((await request(server.url, 'POST', path(4), { body })).status).toBe(401);
    expect((await request(server.url, 'POST', path(4), { token: TOKEN, body: { reason: ' ' } })).status).toBe(
      400,
    );
    const ok = await request(server.url, 'POST', path(4), { token: TOKEN, body });
    expect(ok.status, ok.text).toBe(200);
    const declined = await store.log.read(runId, { kinds: ['merge.declined'] });
    expect(declined.map((e) => e.data)).toEqual([{ mr: 4, by: 'user', reason: 'split it in two' }]);
    // MR 3 was approved above (the first decision counts); MR 1 is decided; MR 9 does not exist.
    for (const mr of [3, 1, 9])
      expect((await request(server.url, 'POST', path(mr), { token: TOKEN, body })).status, String(mr)).toBe(
        409,
      );
  });

  it('stops a run (401 without token); an orphaned run is finished as stopped', async () => {
    const other = await recordRun(store, 'stop', { orphaned: true });
    expect((await request(server.url, 'GET', `/api/runs/${other}`)).body.status).toBe('interrupted');
    expect((await request(server.url, 'POST', `/api/runs/${other}/stop`)).status).toBe(401);
    const r = await request(server.url, 'POST', `/api/runs/${other}/stop`, {
      token: TOKEN,
      body: { reason: 'enough' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, mode: 'finished', status: 'stopped' });
    expect((await store.runs.getRun(other))?.status).toBe('stopped');
    const view = await request(server.url, 'GET', `/api/runs/${other}`);
    expect(view.body.status).toBe('stopped');
  });
});

describe('SSE', () => {
  it('resumes after a disconnect with every event exactly once, in order', async () => {
    const live = await recordRun(store, 'sse');
    const initial = (await store.log.read(live)).length;
    // First connection: read half of what exists, then drop.
    const first = await collectSse(server.url, `/api/runs/${live}/stream?after=0`, (e) => e.length >= 10);
    const lastId = first.at(-1)?.id ?? '0';
    // While disconnected, the run goes on.
    for (const e of agentSteps(live, 'peer-2', 5, 10)) await store.log.append(e);
    await store.log.flush();
    const total = initial + 15;
    // Reconnect the way EventSource does (Last-Event-ID); also append while connected.
    const appending = (async () => {
      for (const e of agentSteps(live, 'peer-1', 3, 10)) await store.log.append(e);
      await store.log.flush();
    })();
    const second = await collectSse(
      server.url,
      `/api/runs/${live}/stream?after=0`,
      (e) => Number(e.at(-1)?.id) >= total + 9,
      { 'last-event-id': lastId },
    );
    await appending;
    const seqs = [...first, ...second].map((e) => (JSON.parse(e.data) as StoredEvent).seq);
    expect(seqs).toEqual(Array.from({ length: total + 9 }, (_, i) => i + 1));
  });

  it('needs the token for everything on a non-loopback bind (query token accepted for reading)', async () => {
    const started = await startServer({ store, token: TOKEN, host: '0.0.0.0', port: 0 });
    if (!started.ok) throw new Error(started.error);
    const base = `http://127.0.0.1:${started.server.port}`;
    try {
      expect((await request(base, 'GET', '/api/runs')).status).toBe(401);
      expect((await request(base, 'GET', '/')).status).toBe(401);
      expect((await request(base, 'GET', '/api/runs', { token: TOKEN })).status).toBe(200);
      expect((await request(base, 'GET', `/api/runs?token=${TOKEN}`)).status).toBe(200);
      // Any Host is fine there (the token is the guard).
      expect((await request(base, 'GET', '/api/runs', { token: TOKEN, host: 'colony.lan' })).status).toBe(
        200,
      );
    } finally {
      await started.server.close();
    }
  });
});
