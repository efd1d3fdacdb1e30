/**
 * The money budget: refused for a model without prices (it could never bind) unless a token budget
 * binds too; and end to end, a priced model served by the fake provider stops as `budget_exhausted`
 * with a recorded cost at most one in-flight call over the budget (src/agent/budget.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { type ColonyConfig, DEFAULT_CONFIG } from '../../src/cli/config.js';
import { prepareRun } from '../../src/cli/new-run.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { createUserRepo } from '../helpers/user-repo.js';

const repo = () => createUserRepo({ 'README.md': '# budget\n' }, 'colony-budget-').dir;
const keys = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };
const base: ColonyConfig = { ...DEFAULT_CONFIG, sandbox: 'off' };

function prepare(config: Partial<ColonyConfig>, topology?: 'orchestrated') {
  return prepareRun(
    { repo: repo(), goal: 'g', config: { ...base, ...config }, ...(topology ? { topology } : {}) },
    keys,
  );
}

describe('--budget-usd needs priced models', () => {
  it('refuses an unpriced model, saying why and what to do instead', async () => {
    const run = prepare({ model: 'openai-chat:local-llm', budgetUsd: 1 });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      "run: --budget-usd 1 cannot limit model 'openai-chat:local-llm': it has no prices, so its calls would cost nothing against the budget. Add --budget-tokens N (the token budget then binds), use a model with prices (colony models)",
    );
  });

  it('allows it with a token budget too, with priced models, and without a money budget', async () => {
    await expect(
      prepare({ model: 'openai-chat:local-llm', budgetUsd: 1, budgetTokens: 5000 }),
    ).resolves.toBeTruthy();
    await expect(prepare({ model: 'gpt-5-mini', budgetUsd: 1 })).resolves.toBeTruthy();
    // The same wire name of a known model at the vendor's endpoint keeps its prices.
    await expect(prepare({ model: 'openai-chat:gpt-4.1', budgetUsd: 1 })).resolves.toBeTruthy();
    await expect(prepare({ model: 'openai-chat:local-llm' })).resolves.toBeTruthy();
    const priced = {
      id: 'local',
      protocol: 'openai-chat' as const,
      name: 'llm',
      contextWindow: 8000,
      maxOutput: 1000,
    };
    const prices = { input: 1, cachedInput: 0.1, cacheWrite: 1, output: 2 };
    await expect(
      prepare({ model: 'local', models: [{ ...priced, prices }], budgetUsd: 1 }),
    ).resolves.toBeTruthy();
    await expect(
      prepare({ model: 'local', models: [{ ...priced, prices: null }], budgetUsd: 1 }),
    ).rejects.toThrow(/model 'local': it has no prices/);
  });

  it("checks the models the run's profiles name", async () => {
    const profiles = { cheap: { base: 'explore' as const, model: 'anthropic:local-claude' } };
    await expect(prepare({ model: 'gpt-5-mini', budgetUsd: 1, profiles }, 'orchestrated')).rejects.toThrow(
      `run: --budget-usd 1 cannot limit profile "cheap"'s model 'anthropic:local-claude': it has no prices`,
    );
    await expect(
      prepare({ model: 'gpt-5-mini', budgetUsd: 1, budgetTokens: 10_000, profiles }, 'orchestrated'),
    ).resolves.toBeTruthy();
  });

  it('is a usage error of the built CLI (exit 2, one line)', async () => {
    const r = await colony(
      [
        'run',
        '--repo',
        repo(),
        '--goal',
        'x',
        '--model',
        'openai-chat:fake-model',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--budget-usd',
        '0.5',
      ],
      { env: NO_API_KEYS },
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/it has no prices.*--budget-tokens/);
  });
});

describe('the money budget, end to end against the fake provider', () => {
  const PRICES = { input: 10, cachedInput: 1, cacheWrite: 10, output: 50 }; // $ per million tokens
  const USAGE = { input: 10_000, output: 1_000 }; // $0.15 a call at those prices
  const BUDGET = 0.5;
  const KEY = 'fake-provider-key';
  const VENDOR_KEY = 'sk-vendor-key-must-stay-home';
  let fake: FakeProvider;

  beforeAll(async () => {
    // An agent that never finishes by itself: only a limit ends it.
    fake = await startFakeProvider({
      policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }], usage: USAGE }),
      requireKey: KEY,
    });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('stops as budget_exhausted, at most one in-flight call over the budget, and prints its endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'colony-budget-config-'));
    const model = {
      id: 'priced-fake',
      protocol: 'openai-chat',
      name: 'fake-model',
      baseUrl: fake.url,
      apiKeyEnv: 'FAKE_PROVIDER_KEY',
      prices: PRICES,
    };
    writeFileSync(join(dir, 'team.json'), JSON.stringify({ models: [model] }));
    const r = await colony(
      [
        'run',
        '--repo',
        repo(),
        '--goal',
        'look around',
        '--model',
        'priced-fake',
        '--config',
        join(dir, 'team.json'),
        '--budget-usd',
        String(BUDGET),
        '--max-steps',
        '40',
      ],
      { env: { ...NO_API_KEYS, OPENAI_API_KEY: VENDOR_KEY, FAKE_PROVIDER_KEY: KEY } },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const origin = new URL(fake.url).origin;
    const started = r.stdout.split('\n')[0] ?? '';
    expect(started).toMatch(
      new RegExp(
        `^run (r-[a-z0-9-]+) started \\(model priced-fake at ${origin} \\(key FAKE_PROVIDER_KEY\\)\\)$`,
      ),
    );
    const runId = /^run (r-[a-z0-9-]+) started/.exec(started)?.[1] ?? '';

    // The endpoint's own key went there; the vendor key did not.
    const sent = fake.requests().map((req) => req.headers.authorization);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.every((auth) => auth === `Bearer ${KEY}`)).toBe(true);
    expect(JSON.stringify(fake.requests().map((req) => req.headers))).not.toContain(VENDOR_KEY);

    const show = await colony(['show', runId, '--json']);
    const summary = lastJsonLine(show.stdout) as { status: string; costUsd: number; modelCalls: number };
    expect(summary.status).toBe('budget_exhausted');
    const logs = await colony(['logs', runId, '--json']);
    const events = logs.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; data: Record<string, unknown> });
    const calls = events
      .filter((e) => e.kind === 'model.response')
      .map((e) => (e.data.turn as { costUsd: number | null }).costUsd);
    expect(calls.every((cost) => typeof cost === 'number' && cost > 0)).toBe(true);
    const largest = Math.max(...(calls as number[]));
    expect(largest).toBeCloseTo(0.15, 6);
    expect(summary.modelCalls).toBe(calls.length);
    expect(summary.modelCalls).toBeLessThan(40);
    // The budget stopped it before a call that would exceed it; the call in flight may overshoot.
    expect(summary.costUsd).toBeLessThanOrEqual(BUDGET + largest + 1e-9);
    expect(summary.costUsd).toBeGreaterThan(BUDGET - largest);
    const hit = events.find((e) => e.kind === 'limit.hit');
    expect(hit?.data).toMatchObject({ limit: 'budget_usd', value: BUDGET });
  });
});
