/**
 * The run's model catalog, built in one place (src/run/run-catalog.ts) for a new run, a resumed one
 * and a fleet worker: the spec's models plus its bundled scenario; gated providers give the run's own
 * provider back for its model and every other model's through the rate gate.
 */
import { describe, expect, it } from 'vitest';
import { RateGate } from '../../src/run/rate-gate.js';
import { gatedProviders, runCatalog, runEndpoints } from '../../src/run/run-catalog.js';
import type { RunSpec } from '../../src/run/run-spec.js';

const spec = (fields: Partial<RunSpec>): RunSpec => ({
  runId: 'r-catalog',
  topology: 'solo',
  repo: '/repo',
  goal: 'g',
  baseRef: 'HEAD',
  baseCommit: 'abc',
  model: 'scripted',
  customModels: [],
  maxSteps: 10,
  profile: 'coder',
  stream: false,
  modelTimeoutMs: 1000,
  maxRetries: 0,
  bashTimeoutS: 10,
  ...fields,
});

describe('runCatalog', () => {
  it("runs the spec's bundled scenario on the scripted model, and refuses an unknown one", () => {
    const demo = runCatalog(spec({ scenario: 'solo-demo' }), {});
    const built = demo.provider();
    expect(built.ok).toBe(true);
    // One provider per model for the whole run: a scenario's policy keeps its state.
    expect(demo.provider()).toBe(built);
    expect(runCatalog(spec({ scenario: 'nope' }), {}).provider()).toEqual({
      ok: false,
      error: "unknown scripted scenario 'nope'",
    });
    expect(runCatalog(spec({}), {}).provider()).toMatchObject({
      ok: false,
      error: expect.stringMatching(/only runs bundled scenarios/),
    });
  });

  it("applies the run's base URL to its own model only, and names the endpoints without credentials", () => {
    const s = spec({
      model: 'openai-chat:local',
      baseUrl: 'http://user:secret@127.0.0.1:9/v1?token=x',
      profiles: { review: { base: 'reviewer', model: 'gpt-5-mini' } },
    });
    const catalog = runCatalog(s, { OPENAI_API_KEY: 'sk-test' });
    expect(runEndpoints(s, catalog)).toEqual([
      {
        model: 'openai-chat:local',
        profile: null,
        baseUrl: 'http://127.0.0.1:9/v1',
        keyEnv: 'OPENAI_API_KEY',
      },
      {
        model: 'gpt-5-mini',
        profile: 'review',
        baseUrl: 'https://api.openai.com/v1',
        keyEnv: 'OPENAI_API_KEY',
      },
    ]);
  });
});

describe('gatedProviders', () => {
  it("gives the run's own provider for its model (or none named) and gates the others", async () => {
    const catalog = runCatalog(spec({ scenario: 'solo-demo', customModels: [] }), {
      OPENAI_API_KEY: 'sk-test',
    });
    const gate = new RateGate();
    const own = gate.wrap({
      model: { id: 'scripted' } as never,
      call: async () => {
        throw new Error('not called');
      },
    });
    const providerFor = gatedProviders(catalog, gate, own);
    expect(providerFor(undefined)).toEqual({ ok: true, provider: own });
    expect(providerFor('scripted')).toEqual({ ok: true, provider: own });
    const other = providerFor('gpt-5-mini');
    expect(other.ok && other.provider.model.id).toBe('gpt-5-mini');
    expect(other.ok && other.provider).not.toBe(own);
    // One provider per model for the whole run: callers (lead, subagents, workflow steps) share it.
    const again = providerFor('gpt-5-mini');
    expect(again.ok && other.ok && again.provider === other.provider).toBe(true);
    expect(providerFor('no-such-model')).toMatchObject({ ok: false });
  });
});
