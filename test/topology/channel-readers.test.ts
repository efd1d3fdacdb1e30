/**
 * A channel message nobody would read is refused at send, with a reason and what to do instead: a
 * solo run's agent has no gather step (message_read, context_read), and a named channel needs a
 * working member. Checked the way `colony send` and the dashboard's endpoint check (checkUserMessage),
 * and through the endpoint itself (409, nothing logged). Runs recorded in real Postgres, not executed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import type { Store } from '../../src/store/index.js';
import { checkUserMessage } from '../../src/topology/team/recipients.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { request } from '../server/http-client.js';

const TOKEN = 'test-token-channel-readers-0123456789abcdef';
let store: Store;
let coord: Coordination;
let server: RunningServer;
const recorded: string[] = [];

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
  const started = await startServer({ store, token: TOKEN, host: '127.0.0.1', port: 0, pollMs: 50 });
  if (!started.ok) throw new Error(started.error);
  server = started.server;
});
afterAll(async () => {
  // Not executed: marked finished so they are not left running.
  for (const runId of recorded) {
    await store.log.append({
      runId,
      agent: null,
      kind: 'run.finished',
      data: { status: 'stopped', reason: 'test', resultBranch: null },
    });
    await store.runs.setRunStatus(runId, 'stopped');
  }
  await server?.close();
  await coord?.close();
  await store?.close();
});

async function record(topology: RunSpec['topology'], extra: Partial<RunSpec> = {}): Promise<string> {
  const repo = createUserRepo({ 'README.md': '# repo\n' }, 'colony-channels-');
  const spec: RunSpec = {
    runId: testRunId(`ch-${topology}`),
    topology,
    repo: repo.dir,
    goal: 'Read the README.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: 'openai-chat:fake',
    customModels: [],
    maxSteps: 10,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    ...extra,
  };
  await recordNewRun(store, spec);
  recorded.push(spec.runId);
  return spec.runId;
}

const onChannel = (runId: string, channel: string) => ({
  channel,
  members: (name: string) => coord.messages.channelMembers(runId, name),
});
const sent = async (runId: string) => (await store.log.read(runId, { kinds: ['message.sent'] })).length;

describe('channel messages nobody would read are refused at send', () => {
  it('solo: a channel message is refused (its agent has no gather step), a direct one is not', async () => {
    const runId = await record('solo');
    const check = await checkUserMessage(store.log, runId, onChannel(runId, 'all'));
    expect(check).toEqual({
      ok: false,
      kind: 'no_reader',
      error:
        `no agent of run ${runId} would read a channel message: its agent (solo) has no message_read or ` +
        'context_read tool, where channel messages are read; send a direct message instead (--to AGENT; its agents: solo)',
    });
    expect(await checkUserMessage(store.log, runId, { to: 'solo' })).toEqual({ ok: true });

    // The dashboard's endpoint refuses it the same way, and nothing is logged.
    const post = await request(server.url, 'POST', `/api/runs/${runId}/messages`, {
      body: { channel: 'all', text: 'everyone: look at the tests' },
      token: TOKEN,
    });
    expect(post.status).toBe(409);
    expect(post.body.error).toBe(check.ok ? '' : check.error);
    expect(await sent(runId)).toBe(0);
  });

  it('peers: "all" reaches the peers; a named channel needs a member, so it is refused until one joins', async () => {
    const runId = await record('peers', { agents: 2 });
    expect(await checkUserMessage(store.log, runId, onChannel(runId, 'all'))).toEqual({ ok: true });
    expect(await checkUserMessage(store.log, runId, onChannel(runId, 'design'))).toEqual({
      ok: false,
      kind: 'no_reader',
      error:
        `no agent of run ${runId} would read channel "design": no agent has joined it (an agent joins a ` +
        'channel by sending to it); send to channel all, or send a direct message instead (--to AGENT; its agents: peer-1, peer-2)',
    });
    const joined = await coord.messages.join(runId, 'peer-2', 'design');
    expect(joined.ok).toBe(true);
    expect(await checkUserMessage(store.log, runId, onChannel(runId, 'design'))).toEqual({ ok: true });
  });

  it('orchestrated and workflow: the lead and later workflow agents read the context, so "all" is taken', async () => {
    const orchestrated = await record('orchestrated');
    expect(await checkUserMessage(store.log, orchestrated, onChannel(orchestrated, 'all'))).toEqual({
      ok: true,
    });
    const workflow = await record('workflow');
    expect(await checkUserMessage(store.log, workflow, onChannel(workflow, 'all'))).toEqual({ ok: true });
    // Once the program has finished, no agent is left to read it.
    await store.log.append({
      runId: workflow,
      agent: null,
      kind: 'workflow.finished',
      data: { ok: true, value: null },
    });
    const late = await checkUserMessage(store.log, workflow, onChannel(workflow, 'all'));
    expect(late.ok ? '' : late.error).toMatch(/would read a channel message: it has no agents/);
  });
});
