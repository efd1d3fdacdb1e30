/**
 * A run behind the model proxy, for tests: the fake provider as the real upstream (it requires the
 * real key), three models (one per protocol) resolved by a real ModelCatalog, the real Postgres log,
 * a budget and a rate gate, and the proxy on 127.0.0.1. Agents are mapped to models by name.
 */
import { Budget, type BudgetLimits } from '../../src/agent/budget.js';
import { createRunSecret, issueAgentToken } from '../../src/auth/index.js';
import type { StoredEvent } from '../../src/core/events.js';
import { ModelCatalog } from '../../src/model/catalog.js';
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';
import type { ModelRecord, Prices } from '../../src/model/types.js';
import {
  type ModelProxyOptions,
  type ModelProxyRun,
  type ModelProxyServer,
  startModelProxy,
} from '../../src/proxy/index.js';
import { RateGate } from '../../src/run/rate-gate.js';
import type { Store } from '../../src/store/index.js';
import { type FailurePlan, type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { testRunId } from '../helpers/db.js';

export const REAL_KEY = 'sk-real-upstream-key-7f3a9c1e55';
export const USAGE = { input: 120, cachedInput: 80, cacheWrite: 30, output: 25, reasoning: 7 };
export const PRICES: Prices = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };
export const ARGS = { path: 'src/a.ts', old: 'x', new: 'y "z"' };

/** A tool call until a tool result comes back, then a final text. */
export const editThenDone: ScriptedPolicy = (req): ScriptedTurn =>
  req.messages.some((m) => m.role === 'tool')
    ? { text: 'All done.', usage: USAGE }
    : { text: 'Editing now.', toolCalls: [{ name: 'edit', arguments: ARGS, id: 'call_1' }], usage: USAGE };

export const MODEL_NAMES = {
  anthropic: 'claude-upstream-1',
  chat: 'chat-upstream-1',
  responses: 'resp-upstream-1',
} as const;

function records(fakeUrl: string): ModelRecord[] {
  const common = { apiKeyEnv: 'FAKE_UPSTREAM_KEY', contextWindow: 200_000, maxOutput: 8192, prices: PRICES };
  return [
    {
      id: 'claude-proxied',
      protocol: 'anthropic',
      name: MODEL_NAMES.anthropic,
      baseUrl: fakeUrl.replace(/\/v1$/, ''),
      ...common,
    },
    { id: 'chat-proxied', protocol: 'openai-chat', name: MODEL_NAMES.chat, baseUrl: fakeUrl, ...common },
    {
      id: 'resp-proxied',
      protocol: 'openai-responses',
      name: MODEL_NAMES.responses,
      baseUrl: fakeUrl,
      ...common,
    },
  ];
}

export interface HarnessOptions {
  /** Agent name → model id (claude-proxied, chat-proxied, resp-proxied). */
  agents: Record<string, string>;
  policy?: ScriptedPolicy;
  budget?: BudgetLimits;
  failures?: FailurePlan;
  streamFrameDelayMs?: number;
  latencyMs?: number;
  proxy?: Partial<ModelProxyOptions>;
  /** More of the run (allowNetwork, hosted). */
  run?: Partial<ModelProxyRun>;
}

export interface Harness {
  runId: string;
  fake: FakeProvider;
  proxy: ModelProxyServer;
  budget: Budget;
  gate: RateGate;
  secret: Uint8Array;
  token(agent: string, options?: { expiresAt?: number; runId?: string; secret?: Uint8Array }): string;
  events(agent?: string): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

export async function startHarness(store: Store, options: HarnessOptions): Promise<Harness> {
  const fake = await startFakeProvider({
    policy: options.policy ?? editThenDone,
    requireKey: REAL_KEY,
    failures: options.failures,
    streamFrameDelayMs: options.streamFrameDelayMs,
    latencyMs: options.latencyMs,
  });
  const catalog = new ModelCatalog({
    runModel: 'claude-proxied',
    custom: records(fake.url),
    env: { FAKE_UPSTREAM_KEY: REAL_KEY },
  });
  const runId = testRunId('proxy');
  const secret = createRunSecret();
  const budget = new Budget(options.budget ?? {});
  const gate = new RateGate();
  const run: ModelProxyRun = {
    runId,
    secret,
    log: store.log,
    budget,
    gate,
    upstream: (agent) => {
      const id = options.agents[agent];
      if (id === undefined) return undefined;
      const found = catalog.upstream(id);
      if (!found.ok) throw new Error(found.error);
      return found.upstream;
    },
    ...options.run,
  };
  const proxy = await startModelProxy({ runs: (id) => (id === runId ? run : undefined), ...options.proxy });
  return {
    runId,
    fake,
    proxy,
    budget,
    gate,
    secret,
    token: (agent, t = {}) =>
      issueAgentToken(t.secret ?? secret, {
        runId: t.runId ?? runId,
        agent,
        expiresAt: t.expiresAt ?? Date.now() + 3_600_000,
        scopes: ['model'],
      }),
    events: (agent) => store.log.read(runId, agent === undefined ? {} : { agent }),
    close: async () => {
      await proxy.close();
      await fake.close();
    },
  };
}

/** The `model.response` events of a list of events, as data. */
export function responses(events: StoredEvent[]) {
  return events.flatMap((e) => (e.kind === 'model.response' ? [e.data] : []));
}

/** Costs per the model's prices: the Anthropic usage has cache writes, the OpenAI ones do not. */
export const ANTHROPIC_COST = (120 * 3 + 80 * 0.3 + 30 * 3.75 + 25 * 15) / 1e6;
export const OPENAI_COST = (120 * 3 + 80 * 0.3 + 25 * 15) / 1e6;
