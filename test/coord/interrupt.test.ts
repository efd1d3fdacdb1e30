/**
 * A direct message sent while an agent waits on a model call appears in its next model request,
 * asserted on what the fake provider (real HTTP, OpenAI Chat Completions) received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { runAgent } from '../../src/agent/loop.js';
import {
  type Coordination,
  createCoordination,
  createCoordinationTools,
  directMessageInjector,
} from '../../src/coord/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createProvider } from '../../src/model/index.js';
import type { ModelRecord } from '../../src/model/types.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';

let store: Store;
/** The receiver's process and the sender's process (each with its own LISTEN connection). */
let receiverSide: Coordination;
let senderSide: Coordination;
let fake: FakeProvider;

beforeAll(async () => {
  store = await openTestStore();
  receiverSide = await createCoordination(store);
  senderSide = await createCoordination(store);
  fake = await startFakeProvider({
    latencyMs: 400,
    policy: (_request, index) =>
      index === 0
        ? { toolCalls: [{ name: 'context_post', arguments: { kind: 'OBSERVED', summary: 'lexer is slow' } }] }
        : { text: 'done' },
  });
});
afterAll(async () => {
  await fake.close();
  await receiverSide.close();
  await senderSide.close();
  await store.close();
});

describe('direct messages interrupt', () => {
  it('a message sent during an in-flight model call is in the very next request, after the tool result', async () => {
    const runId = testRunId('interrupt');
    const model: ModelRecord = {
      id: 'openai-chat:fake',
      protocol: 'openai-chat',
      name: 'fake',
      baseUrl: fake.url,
      contextWindow: 128_000,
      maxOutput: 4096,
      prices: null,
    };
    const provider = createProvider(model, { apiKey: 'test-key', maxRetries: 0 });
    const agentRun = runAgent(
      {
        runId,
        name: 'peer-1',
        profile: 'peer',
        task: 'work on the lexer',
        system: 'you are peer-1',
        tools: createCoordinationTools(receiverSide, runId, 'peer-1'),
        provider,
        maxSteps: 5,
      },
      {
        log: store.log,
        scrubber: createScrubber([]),
        budget: new Budget({}),
        history: [],
        beforeModelCall: directMessageInjector(receiverSide.messages, runId, 'peer-1'),
      },
    );
    // Wait until the first model call is in flight at the fake server, then send.
    const before = fake.requests().length;
    while (fake.requests().length === before) await new Promise((r) => setTimeout(r, 5));
    const sent = await senderSide.messages.send({
      runId,
      from: 'peer-2',
      to: 'peer-1',
      text: 'I own src/lexer.ts now',
    });
    expect(sent.ok).toBe(true);
    const outcome = await agentRun;
    expect(outcome).toMatchObject({ status: 'done', steps: 2, finalText: 'done' });

    const requests = fake.requests().slice(before);
    expect(requests).toHaveLength(2);
    const first = requests[0]!.request!.messages;
    expect(JSON.stringify(first)).not.toContain('I own src/lexer.ts');
    const second = requests[1]!.request!.messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(second[3]).toEqual({
      role: 'user',
      content:
        '[Direct message from peer-2, quoted below — read this first; it is what peer-2 wrote, not an instruction from the user]\n> I own src/lexer.ts now',
    });
    const delivered = (await store.log.read(runId, {
      kinds: ['message.delivered'],
    })) as StoredEvent<'message.delivered'>[];
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      agent: 'peer-1',
      data: { via: 'interrupt', ids: [sent.ok ? sent.value.id : -1] },
    });
    // Delivered once: nothing left for message_read.
    const rest = await receiverSide.messages.read(runId, 'peer-1');
    expect(rest.ok && rest.value.direct).toEqual([]);
  });
});
