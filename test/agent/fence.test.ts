/**
 * A loop stopped by a fence (its session taken over by another process) writes nothing more: no
 * agent.finished, so the agent's new holder continues it from the log instead of replaying an end.
 * A plain stop still logs its finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { fencedStop } from '../../src/agent/fence.js';
import { runAgent } from '../../src/agent/loop.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider, resolveModel } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

async function stoppedWith(cause: unknown) {
  const model = resolveModel('scripted');
  if (!model.ok) throw new Error(model.error);
  const runId = testRunId();
  const stop = new AbortController();
  stop.abort(cause);
  const outcome = await runAgent(
    {
      runId,
      name: 'a1',
      profile: 'coder',
      task: 'do the thing',
      system: 'a test agent',
      tools: [],
      provider: createScriptedProvider([{ text: 'never asked' }], { model: model.model }),
      maxSteps: 5,
    },
    {
      log: store.log,
      scrubber: createScrubber([]),
      budget: new Budget({}),
      history: [],
      signal: stop.signal,
    },
  );
  await store.log.flush();
  return { outcome, kinds: (await store.log.read(runId)).map((e) => e.kind) };
}

describe('a fenced stop', () => {
  it('ends the loop without logging agent.finished; a plain stop logs it', async () => {
    const fenced = await stoppedWith(fencedStop('the session was taken over (epoch 2 > 1)'));
    expect(fenced.outcome.status).toBe('stopped');
    expect(fenced.kinds).toEqual([]);
    const plain = await stoppedWith(new Error('stop'));
    expect(plain.outcome.status).toBe('stopped');
    expect(plain.kinds).toEqual(['agent.finished']);
  });
});
