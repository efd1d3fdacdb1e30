/**
 * The one agent session (src/topology/session/agent-session.ts): an agent's first session builds its
 * system prompt once, scrubbed, and logs agent.started before the model is called; a later session
 * (a resumed run, a takeover, a subagent's next task) reuses the logged prompt without building one,
 * logs no second start, and the model sees the logged prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../../src/agent/budget.js';
import { eventOf } from '../../../src/core/events.js';
import { createScrubber } from '../../../src/core/secrets.js';
import { createScriptedProvider, resolveModel } from '../../../src/model/index.js';
import type { CallOptions, ModelRequest } from '../../../src/model/types.js';
import type { Store } from '../../../src/store/index.js';
import { type AgentSessionStart, runAgentSession } from '../../../src/topology/session/agent-session.js';
import { openTestStore, testRunId } from '../../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

const SECRET = 'sk-test-agent-session-0123456789';
const scrubber = createScrubber([SECRET]);

function sessionOf(runId: string, builds: string[], history: AgentSessionStart['history']) {
  const start: AgentSessionStart = {
    runId,
    agent: 'a1',
    log: store.log,
    scrubber,
    history,
    profile: 'coder',
    model: 'scripted',
    task: 'fix the bug',
    tools: ['read', 'edit'],
    maxSteps: 7,
    system: async () => {
      const text = `build ${builds.length + 1}: you are a coder; the key is ${SECRET}`;
      builds.push(text);
      return text;
    },
  };
  return start;
}

async function drive(start: AgentSessionStart, answer: string) {
  const model = resolveModel('scripted');
  if (!model.ok) throw new Error(model.error);
  const requests: ModelRequest[] = [];
  const provider = createScriptedProvider([{ text: answer }], { model: model.model });
  const recording = {
    ...provider,
    call: (request: ModelRequest, options?: CallOptions) => {
      requests.push(request);
      return provider.call(request, options);
    },
  };
  const outcome = await runAgentSession(start, (system) => ({
    kind: 'loop',
    spec: {
      runId: start.runId,
      name: start.agent,
      profile: start.profile,
      task: start.task,
      system,
      tools: [],
      provider: recording,
      maxSteps: start.maxSteps,
    },
    deps: { log: store.log, scrubber, budget: new Budget({}), history: start.history },
  }));
  await store.log.flush();
  return { outcome, requests };
}

describe('one agent session', () => {
  it('builds and logs the first start once, then reuses the logged prompt on the next session', async () => {
    const runId = testRunId('session');
    const builds: string[] = [];
    const first = await drive(sessionOf(runId, builds, []), 'first answer');
    expect(first.outcome.status).toBe('done');
    expect(builds).toHaveLength(1);

    const started = await store.log.read(runId, { kinds: ['agent.started'] });
    expect(started).toHaveLength(1);
    const logged = started[0]?.data;
    expect(logged).toMatchObject({ profile: 'coder', model: 'scripted', task: 'fix the bug', maxSteps: 7 });
    expect(logged?.tools).toEqual(['read', 'edit']);
    expect(logged?.system).toContain('build 1: you are a coder');
    expect(logged?.system).not.toContain(SECRET);
    // The model saw the prompt that was logged, not the unscrubbed one.
    expect(JSON.stringify(first.requests[0])).toContain(logged?.system);
    expect(JSON.stringify(first.requests)).not.toContain(SECRET);

    // A run that crashed after the start: the next session replays from the logged start alone.
    const rerun = testRunId('session-resumed');
    if (!logged) throw new Error('no agent.started');
    await store.log.append(eventOf(rerun, 'a1', 'agent.started', logged));
    await store.log.flush();
    const history = await store.log.read(rerun, { agent: 'a1' });
    const again = await drive(sessionOf(rerun, builds, history), 'second answer');
    expect(builds).toHaveLength(1);
    expect(await store.log.read(rerun, { kinds: ['agent.started'] })).toHaveLength(1);
    expect(again.outcome.finalText).toBe('second answer');
    expect(JSON.stringify(again.requests[0])).toContain(logged?.system);
  });
});
